// A submission's outcome, drawn from the JSON API the way app/templates/lessons/
// _submission.html draws it on the server (keep the two in step).
import { el } from "./dom.js";
import { t } from "./i18n.js";

export const STDERR_LINES = 30;

export function verdictLabel(verdict) {
  if (!verdict) return "";
  const key = `verdict_${verdict}`;
  const text = t(key);
  return text === key ? verdict.replace(/_/g, " ") : text;
}

/** A try-out is never graded: whether its output matched, never "Passed" (null: not checked). */
export function tryOutLabel(matches) {
  return t(matches === true ? "output_matches" : matches === false ? "output_differs" : "output_unchecked");
}

export function tryOutSymbol(matches) {
  return matches === true ? "✓" : matches === false ? "✗" : "•";
}

/** A run's outcome in words: its verdict, or for a try-out that ran cleanly whether its output matched. */
export function runLabel(run, mode) {
  return mode === "run" && run.verdict === "passed" ? tryOutLabel(run.output_matches) : verdictLabel(run.verdict);
}

/** A finished try-out that ran cleanly: whether its output matched (undefined otherwise). */
export function tryOutMatches(submission) {
  const s = submission;
  if (s.mode !== "run" || s.status !== "done" || s.verdict !== "passed") return undefined;
  return s.runs?.[0]?.output_matches ?? null;
}

export function trimLines(text, keep = STDERR_LINES) {
  // Not text.replace(/\n+$/, ""): that backtracks over every run of newlines, quadratic time.
  let end = text.length;
  while (end > 0 && text[end - 1] === "\n") end--;
  const all = text.slice(0, end).split("\n");
  if (all.length <= keep) return { shown: all.join("\n"), hidden: 0 };
  return { shown: all.slice(-keep).join("\n"), hidden: all.length - keep };
}

function cell(side) {
  if (!side || side.number === null) return el("td", { class: "gap" });
  return el(
    "td",
    { class: side.differs ? "changed" : "same" },
    el("span", { class: "ln", "aria-hidden": "true" }, String(side.number)),
    side.differs ? el("span", { class: "visually-hidden" }, `${t("differs")}: `) : null,
    el("code", {}, side.text),
  );
}

/** `rows`: a run's side-by-side rows as the server aligned them (app/submissions/diff.py). */
export function compareTable(rows) {
  const body = el("tbody");
  for (const row of rows) {
    const differs = (row.expected?.differs ?? false) || (row.actual?.differs ?? false);
    body.append(el("tr", { class: differs ? "differs" : false }, cell(row.expected), cell(row.actual)));
  }
  if (!rows.length) {
    body.append(el("tr", {}, el("td", {}, el("code", {}, t("no_output"))), el("td", {}, el("code", {}, t("no_output")))));
  }
  return el(
    "div",
    { class: "compare", role: "region", "aria-label": t("diff_caption"), tabindex: "0" },
    el(
      "table",
      { class: "side-by-side" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("expected")), el("th", { scope: "col" }, t("actual")))),
      body,
    ),
  );
}

/** A run's detail in the page's language: the API words a timeout in English, with its limit. */
export function runDetail(run) {
  const limit = run.verdict === "timeout" ? /([0-9]+(?:\.[0-9]+)?) s\b/.exec(run.detail) : null;
  return limit ? t("timeout_detail", { seconds: limit[1] }) : run.detail;
}

export function runResult(run, mode) {
  const head = el(
    "p",
    { class: "run-head" },
    el("span", { class: "device" }, run.device),
    " ",
    el("strong", {}, runLabel(run, mode)),
  );
  if (run.duration_ms) head.append(` · ${t("duration", { ms: run.duration_ms })}`);
  // A timeout's exit code is the grader's kill (-9): the limit says more (app/submissions/present.py).
  const timedOut = run.verdict === "timeout";
  if (run.exit_code !== null && run.exit_code !== undefined && run.exit_code !== 0 && !timedOut) {
    head.append(` · ${t("exit_code", { code: run.exit_code })}`);
  }
  if (run.detail && run.verdict !== "not_graded") head.append(` · ${runDetail(run)}`);
  const box = el("div", { class: `run verdict-${run.verdict}` }, head);
  if (run.hint) box.append(el("p", { class: "alert hint-device" }, run.hint));
  if (run.rows) {
    box.append(compareTable(run.rows));
  } else if (run.stdout && (mode === "run" || run.verdict !== "passed")) {
    box.append(el("span", { class: "label" }, t("output")), el("pre", { class: "output" }, el("code", {}, run.stdout)));
  }
  if (run.stderr) {
    const { shown, hidden } = trimLines(run.stderr);
    box.append(el("span", { class: "label" }, t("error_output")));
    if (hidden) box.append(el("p", { class: "note" }, t(hidden === 1 ? "line_left_out" : "lines_left_out", { count: hidden })));
    box.append(el("pre", { class: "stderr" }, el("code", {}, shown)));
  }
  return box;
}

/**
 * How the hidden checks went: the API gives only their counts, never their input or output.
 * `sentence: false` leaves out "Passed the example, failed a hidden check" (said elsewhere).
 */
export function hiddenNote(submission, { sentence = true } = {}) {
  const s = submission;
  const checks = s.hidden_checks;
  if (!checks || s.mode === "run" || s.status !== "done") return null;
  const counts = { passed: checks.passed, total: checks.total };
  if (checks.passed === checks.total) {
    return el("p", { class: "hidden-checks right" }, t("hidden_all_passed", counts));
  }
  return el(
    "p",
    { class: "hidden-checks wrong" },
    sentence && hiddenOnly(s) ? el("strong", {}, t("hidden_failed")) : null,
    sentence && hiddenOnly(s) ? " " : null,
    t("hidden_count", counts),
  );
}

/** Passed the visible example wherever it ran, failed only a hidden check. */
export function hiddenOnly(submission) {
  const s = submission;
  const checks = s.hidden_checks;
  if (!checks || checks.passed === checks.total) return false;
  return (s.runs ?? []).every((run) => run.verdict === "passed" || run.verdict === "not_graded");
}

export function statusBadge(submission) {
  const s = submission;
  if (s.status === "queued") return el("span", { class: "badge" }, t(s.waiting_for_own ? "waiting_for_own" : "queued"));
  if (s.status === "running") return el("span", { class: "badge" }, t("running"));
  if (s.status === "error") return el("span", { class: "badge" }, t("platform_error"));
  const matches = tryOutMatches(s);
  if (matches !== undefined) {
    return el("span", { class: "badge" }, el("span", { "aria-hidden": "true" }, tryOutSymbol(matches)), ` ${tryOutLabel(matches)}`);
  }
  return el(
    "span",
    { class: "badge" },
    el("span", { "aria-hidden": "true" }, s.verdict === "passed" ? "✓" : "✗"),
    ` ${verdictLabel(s.verdict)}`,
  );
}

/** "29 Nov 22:37:01 UTC", as the server writes it (month names in the page's language). */
function formatTime(iso) {
  const when = new Date(iso);
  const lang = document.documentElement.lang || "en";
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat(lang, {
        day: "2-digit",
        month: "short",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
        timeZone: "UTC",
      })
        .formatToParts(when)
        .map((part) => [part.type, part.value]),
    );
    return `${parts.day} ${parts.month} ${parts.hour}:${parts.minute}:${parts.second} UTC`;
  } catch {
    return iso;
  }
}

/** The hints a teacher wrote on this submission's wrong output's group, as the page draws
 * them (lessons/_submission.html output_hint). */
export function outputHints(submission) {
  return (submission.output_hints ?? []).map((h) =>
    el(
      "aside",
      { class: "output-hint", "aria-label": t("output_hint") },
      el(
        "p",
        { class: "label" },
        el("span", { "aria-hidden": "true" }, "💡"),
        " ",
        h.teacher ? t("output_hint_by", { name: h.teacher }) : t("output_hint_anonymous"),
      ),
      el("p", { class: "hint-text" }, h.text),
    ),
  );
}

/** One entry of the attempt history (a <li> holding a <details>). */
export function historyItem(submission, open) {
  const s = submission;
  const summary = el(
    "summary",
    {},
    statusBadge(s),
    " ",
    s.mode === "run" ? el("span", { class: "tag" }, t("try_out_run")) : null,
    s.mode === "run" ? " " : null,
    el("time", { datetime: s.created_at }, formatTime(s.created_at)),
  );
  const comments = s.comments ?? [];
  if (comments.length) {
    summary.append(" ", el("span", { class: "tag comment-tag" }, el("span", { "aria-hidden": "true" }, "💬"), " ", t("teacher_commented")));
  }
  const details = el(
    "details",
    {
      class: `submission status-${s.status} verdict-${s.verdict ?? "none"} mode-${s.mode ?? "grade"}`,
      "data-submission": String(s.id),
      open: open ? true : false,
    },
    summary,
  );
  details.append(...outputHints(s));
  if (s.status === "error" && s.detail) details.append(el("p", { class: "alert" }, s.detail));
  // A teacher's comments beside the attempt, as the page draws them (lessons/_exercise.html).
  for (const c of comments) {
    details.append(
      el(
        "aside",
        { class: "teacher-comment", "aria-label": t("teacher_comment") },
        el(
          "p",
          { class: "label" },
          c.teacher ? t("teacher_wrote_name", { name: c.teacher }) : t("teacher_wrote"),
          " · ",
          el("time", { datetime: c.created_at }, formatTime(c.created_at)),
        ),
        el("p", { class: "comment-text" }, c.text),
      ),
    );
  }
  for (const run of s.runs ?? []) details.append(runResult(run, s.mode));
  const note = hiddenNote(s);
  if (note) details.append(note);
  if (s.code) {
    details.append(
      el("details", { class: "code" }, el("summary", {}, t("show_code")), el("pre", { class: "code" }, el("code", {}, s.code))),
    );
  }
  return el("li", {}, details);
}
