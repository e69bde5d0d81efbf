// The exercise workbench: the editor, drafts, submitting and running without leaving the
// page, live status by long polling, results, the attempt history and the sample solution.
// Every part is an enhancement of plain forms that work without JavaScript.
import { createEditor, highlightPython } from "./editor.js";
import { api, el, HttpError } from "./dom.js";
import { hiddenNote, hiddenOnly, historyItem, outputHints, runResult, tryOutMatches, tryOutSymbol, verdictLabel } from "./feedback.js";
import { t } from "./i18n.js";

const POLL_WAIT_S = 2; // each poll is held up to this long: quick when done, live meanwhile
const RETRY_AFTER_S = 5; // after a 429 without Retry-After
const DRAFT_PREFIX = "tensorcamp:draft:";
// The history lists as the page draws them (app/submissions/history.py, lessons/_exercise.html):
// the newest HISTORY_SIZE of each kind, the first SHOWN of each open to see.
const HISTORY_SIZE = 10;
const SHOWN = 3;

const storage = {
  get(key) {
    try {
      return JSON.parse(window.localStorage.getItem(key));
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* private mode or full: drafts are a convenience */
    }
  },
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Workbench {
  constructor(article) {
    this.article = article;
    this.data = JSON.parse(article.querySelector("script.exercise-data").textContent);
    this.form = article.querySelector("form.workbench");
    this.textarea = this.form.querySelector("textarea");
    this.submitButton = this.form.querySelector("button.submit");
    this.runButton = this.form.querySelector("button.run");
    this.resetButton = this.form.querySelector("button.reset");
    this.draftNote = this.form.querySelector(".draft-note");
    this.live = article.querySelector(".live");
    this.history = article.querySelector("section.history");
    this.draftKey = `${DRAFT_PREFIX}${this.data.user}:${this.data.id}`;
    this.busy = false;
  }

  start() {
    const help = this.form.querySelector(".editor-help");
    help.hidden = false;
    this.editor = createEditor(this.textarea, {
      labelId: `code-${this.data.id}-label`,
      helpId: help.id,
      onSubmit: () => this.send("grade"),
      onChange: (code) => this.saveDraft(code),
    });
    this.restoreDraft();
    this.resetButton.hidden = false;
    this.resetButton.addEventListener("click", () => this.reset());
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send(event.submitter === this.runButton ? "run" : "grade");
    });
    this.article.querySelector("details.give-up form")?.addEventListener("submit", (event) => {
      event.preventDefault();
      this.giveUp();
    });
    for (const code of this.article.querySelectorAll("section.solution pre code")) highlightPython(code);
    if (this.data.pending) this.follow({ id: this.data.pending, status: "queued", runs: [] }, "grade");
  }

  // --- drafts ---------------------------------------------------------------------------

  restoreDraft() {
    const draft = storage.get(this.draftKey);
    if (!draft || typeof draft.code !== "string" || draft.code === this.editor.getCode()) return;
    const latest = this.data.latest ? Date.parse(this.data.latest) : 0;
    if (draft.savedAt && draft.savedAt < latest) return; // submitted since: the page is newer
    this.editor.setCode(draft.code);
    this.draftNote.textContent = t("draft_restored");
  }

  saveDraft(code) {
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => storage.set(this.draftKey, { code, savedAt: Date.now() }), 300);
  }

  reset() {
    this.editor.setCode(this.data.starter);
    this.draftNote.textContent = t("reset_done");
    this.editor.view.focus();
  }

  // --- submitting, running, following ---------------------------------------------------

  setBusy(busy) {
    this.busy = busy;
    this.submitButton.disabled = busy;
    this.runButton.disabled = busy;
    this.form.setAttribute("aria-busy", busy ? "true" : "false");
  }

  async send(mode) {
    if (this.busy) return;
    this.setBusy(true);
    // The code as it was when the button was pressed, also when it is sent again after a 429.
    const code = this.editor.getCode();
    try {
      const path = mode === "run" ? "runs" : "submissions";
      let submission = null;
      while (submission === null) {
        this.showProgress(mode, { status: "sending", runs: [] });
        try {
          submission = await api("POST", `/api/exercises/${this.data.id}/${path}`, { code });
        } catch (error) {
          if (!(error instanceof HttpError) || error.status !== 429) throw error;
          await this.countDown(mode, error.retryAfter ?? RETRY_AFTER_S);
        }
      }
      storage.set(this.draftKey, { code, savedAt: Date.now() });
      await this.follow(submission, mode);
    } catch (error) {
      this.showError(error);
      this.setBusy(false);
    }
  }

  async follow(submission, mode) {
    this.setBusy(true);
    let current = submission;
    try {
      while (current.status === "queued" || current.status === "running") {
        this.showProgress(mode, current);
        const started = Date.now();
        try {
          current = await api("GET", `/api/submissions/${current.id}?wait=${POLL_WAIT_S}`);
        } catch (error) {
          if (error instanceof HttpError && error.status < 500) throw error;
          this.showProgress(mode, current, t("offline"));
          await sleep(Math.max(0, 3000 - (Date.now() - started)));
        }
      }
      mode = current.mode ?? mode;
      this.showResult(mode, current);
      await this.refreshHistory();
      if (mode !== "run" && current.verdict === "passed") await this.loadSolution();
    } catch (error) {
      this.showError(error);
    } finally {
      this.setBusy(false);
    }
  }

  /** Backpressure (429): the server says when to try again; the page waits that long,
   * counting down, and sends again by itself. */
  async countDown(mode, seconds) {
    for (let left = Math.max(1, Math.ceil(seconds)); left > 0; left -= 1) {
      const { status, body } = this.panel(mode);
      status.replaceChildren(el("p", { class: "live-line retry-line" }, t("retrying_in", { seconds: left })));
      body.replaceChildren();
      await sleep(1000);
    }
  }

  panel(mode) {
    this.live.className = `live active ${mode === "run" ? "live-run" : "live-grade"}`;
    return { status: this.live.querySelector(".live-status"), body: this.live.querySelector(".live-body") };
  }

  showProgress(mode, submission, note) {
    const { status, body } = this.panel(mode);
    const s = submission;
    let text;
    if (s.status === "sending") text = t("submitting");
    else if (s.status === "queued" && s.waiting_for_own) text = t("waiting_for_own");
    else if (s.status === "queued" && s.position && s.wait_estimate_s != null) {
      text = t("queued_wait", { position: s.position, seconds: Math.max(1, Math.round(s.wait_estimate_s)) });
    } else if (s.status === "queued") text = s.position ? t("queued_position", { position: s.position }) : t("queued");
    else text = mode === "run" ? t("running_cpu") : t("running_on", { devices: (this.data.devices_now?.length ? this.data.devices_now : this.data.devices).join(", ") });
    const stage = s.status === "running" ? 1 : 0;
    const steps = [t("step_queued"), t("step_running"), t("step_verdict")];
    const items = [];
    if (mode !== "run") {
      items.push(
        el(
          "ol",
          { class: "steps" },
          steps.map((label, index) =>
            el(
              "li",
              { class: index < stage ? "done" : index === stage ? "current" : "todo", "aria-current": index === stage ? "step" : false },
              label,
            ),
          ),
        ),
      );
    }
    items.push(el("progress", { class: "grading", "aria-label": t("progress_label") }));
    const line = el("p", { class: "live-line" }, text);
    if (note) line.append(" ", el("em", {}, note));
    items.push(line);
    if (mode !== "run" && s.status === "running") {
      const done = new Map((s.runs ?? []).map((run) => [run.device, run]));
      items.push(
        el(
          "ul",
          { class: "device-states" },
          this.data.devices.map((device) =>
            el(
              "li",
              {},
              el("span", { class: "device" }, device),
              " ",
              done.has(device) ? verdictLabel(done.get(device).verdict) : t("running"),
            ),
          ),
        ),
      );
    }
    status.replaceChildren(...items);
    body.replaceChildren();
  }

  showResult(mode, s) {
    const { status, body } = this.panel(mode);
    const passed = s.verdict === "passed";
    // A try-out is never graded: right or wrong only by whether its output matched.
    const matches = mode === "run" ? tryOutMatches(s) : undefined;
    let headline;
    if (s.status === "error") headline = t("platform_error_note");
    else if (mode === "run" && matches !== undefined) headline = t(matches === true ? "run_matches" : matches === false ? "run_differs" : "run_passed");
    else if (mode === "run") headline = t("run_failed", { verdict: verdictLabel(s.verdict) });
    else headline = passed ? t("passed_all") : hiddenOnly(s) ? t("hidden_failed") : t("failed_some");
    const badge = s.status === "error" ? t("platform_error") : verdictLabel(s.verdict);
    let tone = passed ? "right" : "wrong";
    let symbol = passed ? "✓" : "✗";
    if (s.status === "error") [tone, symbol] = ["error", "⚠"];
    else if (matches !== undefined) [tone, symbol] = [matches === true ? "right" : matches === false ? "wrong" : "neutral", tryOutSymbol(matches)];
    status.replaceChildren(
      el(
        "p",
        { class: `verdict-line ${tone}` },
        el("span", { "aria-hidden": "true" }, symbol),
        " ",
        el("strong", {}, mode === "run" ? t("run_title") : badge),
        ` — ${headline}`,
      ),
    );
    const parts = [];
    if (s.status === "error" && s.detail) parts.push(el("p", { class: "alert" }, s.detail));
    parts.push(...outputHints(s));
    for (const run of s.runs ?? []) parts.push(runResult(run, mode));
    const note = hiddenNote(s, { sentence: false }); // the headline says it
    if (note) parts.push(note);
    body.replaceChildren(...parts);
  }

  showError(error) {
    const { status, body } = this.panel("grade");
    let message = t("offline");
    if (error instanceof HttpError) {
      if (error.status === 401) {
        window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
        return;
      }
      if (error.status === 429) message = t("too_many", { seconds: error.retryAfter ?? 30 });
      else if (error.status === 413) message = t("too_large");
      else message = error.message;
    }
    status.replaceChildren(el("p", { class: "alert error", role: "alert" }, message));
    body.replaceChildren();
  }

  async refreshHistory() {
    if (!this.history) return;
    let rows;
    try {
      // Both kinds in one page, enough for each list unless the newest were nearly all one.
      rows = await api("GET", `/api/exercises/${this.data.id}/submissions?limit=${5 * HISTORY_SIZE}`);
    } catch {
      return; // the old lists stay; the page shows the new ones on reload
    }
    const graded = rows.filter((s) => s.mode !== "run").slice(0, HISTORY_SIZE);
    const tried = rows.filter((s) => s.mode === "run").slice(0, HISTORY_SIZE);
    const gradedBox = this.history.querySelector(".graded-attempts");
    fillAttempts(gradedBox, graded);
    gradedBox.querySelector(".none").hidden = graded.length > 0;
    const tryOuts = this.history.querySelector("details.try-outs");
    fillAttempts(tryOuts, tried);
    tryOuts.querySelector("summary .count").textContent = `(${tried.length})`;
    tryOuts.hidden = tried.length === 0;
    this.history.hidden = rows.length === 0;
  }

  // --- the sample solution --------------------------------------------------------------

  async loadSolution() {
    if (this.article.querySelector("section.solution")) return;
    try {
      const data = await api("GET", `/api/exercises/${this.data.id}/solution`);
      this.showSolution(data, false);
    } catch {
      /* not available (yet): nothing to show */
    }
  }

  async giveUp() {
    const button = this.article.querySelector("details.give-up button");
    button.disabled = true;
    try {
      const data = await api("POST", `/api/exercises/${this.data.id}/give-up`);
      this.showSolution({ reason: "gave_up", ...data }, true);
    } catch (error) {
      button.disabled = false;
      this.showError(error);
    }
  }

  showSolution(data, focus) {
    const headingId = `solution-${this.data.id}`;
    const section = el(
      "section",
      { class: "solution", "aria-labelledby": headingId },
      el("h4", { id: headingId, tabindex: "-1" }, t("solution_title")),
      el("p", {}, data.reason === "passed" ? t("solution_after_pass") : t("solution_after_give_up")),
      el("pre", { class: "code" }, el("code", { class: "python" }, data.solution_code)),
    );
    highlightPython(section.querySelector("pre code"));
    const giveUp = this.article.querySelector("details.give-up");
    if (giveUp) giveUp.replaceWith(section);
    else this.live.after(section);
    if (focus) section.querySelector("h4").focus();
  }
}

// The newest SHOWN of `rows` in the box's list, the rest behind "Show N more" (kept open if
// it was).
function fillAttempts(box, rows) {
  const list = el("ol", { class: "attempts" }, rows.slice(0, SHOWN).map((s) => historyItem(s, false)));
  box.querySelector(":scope > ol.attempts").replaceWith(list);
  const old = box.querySelector(":scope > details.more-attempts");
  old?.remove();
  if (rows.length <= SHOWN) return;
  list.after(
    el(
      "details",
      { class: "more-attempts", open: old?.open ?? false },
      el("summary", {}, t("show_more", { count: rows.length - SHOWN })),
      el("ol", { class: "attempts" }, rows.slice(SHOWN).map((s) => historyItem(s, false))),
    ),
  );
}

export function setUpWorkbenches() {
  for (const article of document.querySelectorAll("article.exercise")) {
    if (!article.querySelector("script.exercise-data") || !article.querySelector("form.workbench")) continue;
    try {
      new Workbench(article).start();
    } catch (error) {
      console.error("workbench", error); // the plain form still works
    }
  }
}
