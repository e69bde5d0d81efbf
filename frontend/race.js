// The CPU-versus-GPU race of the lesson "PyTorch tensors on the GPU": 256 numbers, several
// steps each. The CPU does 8 numbers a tick: 32 ticks a step. The GPU does all 256 in one
// tick but pays 40 ticks to copy there and 40 to copy back. CPU = 32 × steps,
// GPU = 40 + steps + 40.
import { el } from "./dom.js";
import { t } from "./i18n.js";

let counter = 0;

export const cpuTicks = (steps) => 32 * steps;
export const gpuTicks = (steps) => 40 + steps + 40;

function verdict(steps) {
  const cpu = cpuTicks(steps);
  const gpu = gpuTicks(steps);
  if (cpu === gpu) return t("race_tie", { cpu });
  return cpu < gpu ? t("race_cpu_wins", { cpu, gpu }) : t("race_gpu_wins", { cpu, gpu });
}

function lane(name, className) {
  const fill = el("span", { class: `race-fill ${className}` });
  const ticks = el("span", { class: "race-ticks" });
  const row = el(
    "div",
    { class: "race-lane" },
    el("span", { class: "race-who" }, name),
    el("span", { class: "race-track", "aria-hidden": "true" }, fill),
    ticks,
  );
  return { row, fill, ticks };
}

export function race(widget) {
  counter += 1;
  const id = `race-${counter}`;
  const slider = el("input", {
    type: "range",
    min: "1",
    max: "12",
    step: "1",
    value: "1",
    id: `${id}-steps`,
    "aria-describedby": `${id}-result`,
  });
  const shown = el("output", { for: `${id}-steps`, class: "race-count" }, "1");
  const label = el("label", { for: `${id}-steps` }, `${t("race_steps")}: `, shown);
  const run = el("button", { type: "button", class: "secondary small" }, t("race_run"));
  const cpu = lane("CPU", "cpu");
  const gpu = lane("GPU", "gpu");
  const result = el("p", { id: `${id}-result`, class: "race-result", role: "status" }, t("race_prompt"));
  const reduceMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  let frame = null;
  let raced = false;

  const draw = (progress) => {
    const steps = Number(slider.value);
    const c = cpuTicks(steps);
    const g = gpuTicks(steps);
    const longest = Math.max(c, g);
    const now = progress * longest; // ticks elapsed
    for (const [side, total] of [
      [cpu, c],
      [gpu, g],
    ]) {
      side.fill.style.width = `${(100 * Math.min(now, total)) / longest}%`;
      side.ticks.textContent = progress >= 1 ? t("race_ticks", { ticks: total }) : "";
    }
  };

  const finish = () => {
    frame = null;
    draw(1);
    raced = true;
    result.textContent = verdict(Number(slider.value));
    run.disabled = false;
  };

  run.addEventListener("click", () => {
    if (frame !== null) cancelAnimationFrame(frame);
    if (reduceMotion) return finish();
    run.disabled = true;
    result.textContent = "…";
    const started = performance.now();
    const tick = (now) => {
      const progress = Math.min(1, (now - started) / 1600);
      draw(progress);
      if (progress < 1) frame = requestAnimationFrame(tick);
      else finish();
    };
    frame = requestAnimationFrame(tick);
  });
  slider.addEventListener("input", () => {
    shown.textContent = slider.value;
    if (frame !== null) {
      cancelAnimationFrame(frame);
      run.disabled = false;
    }
    if (raced) finish();
    else draw(0);
  });
  widget.replaceChildren(
    el("div", { class: "race-controls" }, label, slider, run),
    el("div", { class: "race-lanes" }, cpu.row, gpu.row),
    result,
  );
  widget.lang = document.documentElement.lang; // its words are the interface's, not the lesson's
  widget.setAttribute("role", "group");
  widget.setAttribute("aria-label", t("race_run"));
  draw(0);
}
