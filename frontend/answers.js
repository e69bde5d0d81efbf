// Questions answered in place (the forms post to the server without JavaScript).
import { api, el, HttpError } from "./dom.js";
import { compareTable } from "./feedback.js";
import { t } from "./i18n.js";

/** The module of the article's question kind, frontend/questions/<kind>.js: its
 * `answerOf(form)` and `describeCorrect(article, correctAnswer)`, and, if the kind has
 * more than its form, `setUp(article)` (run once the page is there). esbuild bundles every
 * module this pattern can match, so a new kind needs its module there and nothing here. */
function kindOf(article) {
  return import(`./questions/${article.dataset.kind}.js`);
}

/** What a wrong answer is told, as app/templates/lessons/_question.html draws it: how far it
 * is from a right one (`distance`), then the expected output beside it (`rows`) or else the
 * right answer in words. */
function wrongAnswerParts(kind, article, data) {
  const parts = [];
  const distance = data.distance;
  if (distance) {
    const steps = t(distance.steps === 1 ? "distance_step" : "distance_steps", { count: distance.steps });
    parts.push(el("p", { class: "distance" }, `${t("distance_in_place", distance)} ${steps}`));
  }
  if (data.rows) {
    parts.push(compareTable(data.rows));
    return parts;
  }
  const line = el("p", {}, `${t("the_answer")} `);
  kind.describeCorrect(article, data.correct_answer).forEach((text, i) => {
    if (i) line.append(", ");
    line.append(el("code", {}, text));
  });
  parts.push(line);
  return parts;
}

async function submitAnswer(event) {
  const form = event.target;
  const article = form.closest("article.question");
  if (!article || !form.classList.contains("answer-form")) return;
  event.preventDefault();
  const feedback = article.querySelector(".feedback");
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const kind = await kindOf(article);
    const data = await api("POST", `/api/questions/${article.dataset.question}/answers`, {
      answer: kind.answerOf(form),
    });
    const parts = [
      el(
        "p",
        { class: `verdict ${data.correct ? "right" : "wrong"}` },
        el("span", { "aria-hidden": "true" }, data.correct ? "✓" : "✗"),
        " ",
        data.correct ? t("correct") : t("not_quite"),
      ),
    ];
    if (!data.correct) parts.push(...wrongAnswerParts(kind, article, data));
    const explanation = el("p", { class: "explanation" });
    explanation.innerHTML = data.explanation_html; // rendered on the server from the lesson files
    parts.push(explanation);
    feedback.replaceChildren(...parts);
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
      return;
    }
    const message =
      error instanceof HttpError ? (error.status === 422 ? t("answer_every_part") : error.message) : t("offline");
    feedback.replaceChildren(el("p", { class: "alert error", role: "alert" }, message));
  } finally {
    button.disabled = false;
  }
}

export function setUpAnswers() {
  document.addEventListener("submit", submitAnswer);
  for (const article of document.querySelectorAll("article.question")) {
    kindOf(article).then((kind) => kind.setUp?.(article));
  }
}
