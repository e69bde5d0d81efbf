// Questions answered in place (the forms post to the server without JavaScript).
import { api, el, HttpError } from "./dom.js";
import { compareTable } from "./feedback.js";
import { t } from "./i18n.js";
import { logInKeepingAnswer, restoreAnswers } from "./pending.js";

/** The module of the article's question kind, frontend/questions/<kind>.js: its
 * `answerOf(form)` and `describeCorrect(article, correctAnswer)`, and, if the kind has
 * more than its form, `setUp(article)` (run once the page is there) and
 * `describeWrong(article, parts)` (the parts of the answer the server found wrong, in
 * words). esbuild bundles every module this pattern can match, so a new kind needs its
 * module there and nothing here. */
function kindOf(article) {
  return import(`./questions/${article.dataset.kind}.js`);
}

/** The words the question's partial hands over (app/templates/lessons/_question.html). */
function wordsOf(article) {
  try {
    return JSON.parse(article.dataset.feedbackWords || "{}");
  } catch {
    return {};
  }
}

function codeList(label, texts) {
  const line = el("p", {}, `${label} `);
  texts.forEach((text, i) => {
    if (i) line.append(", ");
    line.append(el("code", {}, text));
  });
  return line;
}

/** "Show the answer": the form the server draws too, posted by `submitReveal` here. */
function revealForm(article, words) {
  const answerForm = article.querySelector("form.answer-form");
  const token = answerForm.querySelector('input[type="hidden"]')?.cloneNode();
  return el(
    "form",
    { method: "post", action: `${answerForm.getAttribute("action")}/reveal`, class: "reveal-form" },
    token,
    el("button", { type: "submit", class: "secondary" }, words.show_answer ?? "Show the answer"),
  );
}

/** What an answer is told, as app/templates/lessons/_question.html draws it from the same
 * result (app/quizzes/reveal.py): the verdict; for a wrong answer the parts that are wrong,
 * how far it is from a right one (`distance`), then, once revealed, the expected output
 * beside it (`rows`) or else the right answer in words, and before, the tries left; the
 * explanation; "Show the answer" until it is shown. Returns the element to focus after a
 * reveal. */
function drawResult(kind, article, data) {
  const words = wordsOf(article);
  const parts = [
    el(
      "p",
      { class: `verdict ${data.correct ? "right" : "wrong"}` },
      el("span", { "aria-hidden": "true" }, data.correct ? "✓" : "✗"),
      " ",
      data.correct ? t("correct") : t("not_quite"),
    ),
  ];
  let answer = null;
  if (!data.correct) {
    const wrong = data.wrong_parts?.length && kind.describeWrong ? kind.describeWrong(article, data.wrong_parts) : [];
    if (wrong.length) {
      const line = codeList(words.not_right ?? "", wrong);
      line.className = "wrong-parts";
      parts.push(line);
    }
    const distance = data.distance;
    if (distance) {
      const steps = t(distance.steps === 1 ? "distance_step" : "distance_steps", { count: distance.steps });
      parts.push(el("p", { class: "distance" }, `${t("distance_in_place", distance)} ${steps}`));
    }
    if (!data.revealed) {
      const left = words.tries_left?.[String(data.tries_left)];
      if (left) parts.push(el("p", { class: "tries-left" }, left));
    } else if (data.rows) {
      answer = compareTable(data.rows);
      parts.push(answer);
    } else {
      answer = codeList(t("the_answer"), kind.describeCorrect(article, data.correct_answer));
      answer.className = "the-answer";
      parts.push(answer);
    }
  }
  if (data.explanation_html) {
    const explanation = el("p", { class: "explanation" });
    explanation.innerHTML = data.explanation_html; // rendered on the server from the lesson files
    parts.push(explanation);
  }
  if (!data.revealed) parts.push(revealForm(article, words));
  article.querySelector(".feedback").replaceChildren(...parts);
  return answer;
}

function showError(article, error) {
  if (error instanceof HttpError && error.status === 401) {
    logInKeepingAnswer(article); // the answer is kept, and filled in again on the way back
    return;
  }
  const message =
    error instanceof HttpError ? (error.status === 422 ? t("answer_every_part") : error.message) : t("offline");
  article.querySelector(".feedback").replaceChildren(el("p", { class: "alert error", role: "alert" }, message));
}

async function submitAnswer(article, form) {
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const kind = await kindOf(article);
    const data = await api("POST", `/api/questions/${article.dataset.question}/answers`, {
      answer: kind.answerOf(form),
    });
    drawResult(kind, article, data);
  } catch (error) {
    showError(article, error);
  } finally {
    button.disabled = false;
  }
}

async function submitReveal(article, form) {
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const kind = await kindOf(article);
    const data = await api("POST", `/api/questions/${article.dataset.question}/reveal`);
    // The button is gone: the focus goes to what it showed.
    const shown = drawResult(kind, article, data) ?? article.querySelector(".feedback .explanation");
    if (shown) {
      shown.setAttribute("tabindex", "-1");
      shown.focus();
    }
  } catch (error) {
    button.disabled = false;
    showError(article, error);
  }
}

function submitted(event) {
  const form = event.target;
  const article = form.closest("article.question");
  if (!article) return;
  if (form.classList.contains("answer-form")) {
    event.preventDefault();
    submitAnswer(article, form);
  } else if (form.classList.contains("reveal-form")) {
    event.preventDefault();
    submitReveal(article, form);
  }
}

export function setUpAnswers() {
  restoreAnswers(); // before the kinds' scripts draw their widgets from the fields
  document.addEventListener("submit", submitted);
  for (const article of document.querySelectorAll("article.question")) {
    kindOf(article).then((kind) => kind.setUp?.(article));
  }
}
