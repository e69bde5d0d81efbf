// Progressive enhancement: every form works without this file.
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function answerOf(article, form) {
  const kind = article.dataset.kind;
  if (kind === "multiple_choice") {
    const boxes = [...form.querySelectorAll('input[name="answer"]')];
    const picked = boxes.filter((b) => b.checked).map((b) => Number(b.value));
    return boxes[0] && boxes[0].type === "checkbox" ? picked : picked.length === 1 ? picked[0] : null;
  }
  if (kind === "fill_in") {
    return [...form.querySelectorAll('input[name="blank"]')].map((i) => i.value);
  }
  const answer = {};
  for (const select of form.querySelectorAll("select")) {
    answer[select.name.replace(/^match-/, "")] = select.value;
  }
  return answer;
}

function describeCorrect(article, correct) {
  const kind = article.dataset.kind;
  if (kind === "multiple_choice") {
    const labels = [...article.querySelectorAll("label.option span")].map((s) => s.textContent);
    return (Array.isArray(correct) ? correct : [correct]).map((i) => labels[i]);
  }
  if (kind === "fill_in") return correct;
  return Object.entries(correct).map(([left, right]) => {
    const select = article.querySelector(`select[name="match-${left}"]`);
    const leftText = article.querySelector(`label[for="${select.id}"]`).textContent;
    const rightText = select.querySelector(`option[value="${right}"]`).textContent;
    return `${leftText} → ${rightText}`;
  });
}

async function submitAnswer(event) {
  const form = event.target;
  const article = form.closest("article.question");
  if (!article) return;
  event.preventDefault();
  const feedback = article.querySelector(".feedback");
  const answer = answerOf(article, form);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const response = await fetch(`/api/questions/${article.dataset.question}/answers`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify({ answer }),
      credentials: "same-origin",
    });
    if (response.status === 401) {
      window.location = `/login?next=${encodeURIComponent(window.location.pathname)}`;
      return;
    }
    const data = await response.json();
    feedback.replaceChildren();
    if (!response.ok) {
      const message = typeof data.detail === "string" ? data.detail : "Answer every part first.";
      feedback.append(el("p", { class: "alert error", role: "alert" }, message));
      return;
    }
    feedback.append(
      el("p", { class: `verdict ${data.correct ? "right" : "wrong"}` }, data.correct ? "Correct." : "Not quite."),
    );
    if (!data.correct) {
      const line = el("p", {}, "The answer: ");
      describeCorrect(article, data.correct_answer).forEach((text, i) => {
        if (i) line.append(", ");
        line.append(el("code", {}, text));
      });
      feedback.append(line);
    }
    const explanation = el("p", { class: "explanation" });
    explanation.innerHTML = data.explanation_html; // rendered server-side from trusted content
    feedback.append(explanation);
  } catch (error) {
    feedback.replaceChildren(el("p", { class: "alert error", role: "alert" }, "Could not reach the server; try again."));
  } finally {
    button.disabled = false;
  }
}

function race(widget) {
  const steps = el("input", { type: "range", min: "1", max: "12", value: "1", id: "race-steps", "aria-describedby": "race-result" });
  const label = el("label", { for: "race-steps" }, "Steps per number: ");
  const count = el("output", { for: "race-steps" }, "1");
  label.append(count);
  const cpu = el("div", { class: "lane" });
  const gpu = el("div", { class: "lane" });
  const result = el("p", { id: "race-result", "aria-live": "polite" });
  const update = () => {
    const n = Number(steps.value);
    const cpuTicks = 32 * n;
    const gpuTicks = 40 + n + 40;
    const longest = Math.max(cpuTicks, gpuTicks);
    count.textContent = String(n);
    cpu.replaceChildren(el("span", { class: "who" }, "CPU"), el("span", { class: "track-bar", style: `width:${(100 * cpuTicks) / longest}%` }), el("span", {}, `${cpuTicks} ticks`));
    gpu.replaceChildren(el("span", { class: "who" }, "GPU"), el("span", { class: "track-bar gpu", style: `width:${(100 * gpuTicks) / longest}%` }), el("span", {}, `${gpuTicks} ticks`));
    result.textContent = cpuTicks === gpuTicks ? "A tie." : cpuTicks < gpuTicks ? `The CPU wins, ${cpuTicks} ticks to ${gpuTicks}.` : `The GPU wins, ${gpuTicks} ticks to ${cpuTicks}.`;
  };
  steps.addEventListener("input", update);
  widget.replaceChildren(label, steps, cpu, gpu, result);
  update();
}

document.addEventListener("submit", submitAnswer);
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll('[data-widget="race"]').forEach(race);
});
