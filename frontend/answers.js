// Questions answered in place (the forms post to the server without JavaScript).
import { api, el, HttpError } from "./dom.js";
import { t } from "./i18n.js";

function answerOf(article, form) {
  const kind = article.dataset.kind;
  if (kind === "multiple_choice") {
    const boxes = [...form.querySelectorAll('input[name="answer"]')];
    const picked = boxes.filter((b) => b.checked).map((b) => Number(b.value));
    if (boxes[0] && boxes[0].type === "checkbox") return picked;
    return picked.length === 1 ? picked[0] : null;
  }
  if (kind === "fill_in") return [...form.querySelectorAll('input[name="blank"]')].map((i) => i.value);
  const answer = {};
  for (const select of form.querySelectorAll("select")) answer[select.name.replace(/^match-/, "")] = select.value;
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
  if (!article || !form.classList.contains("answer-form")) return;
  event.preventDefault();
  const feedback = article.querySelector(".feedback");
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const data = await api("POST", `/api/questions/${article.dataset.question}/answers`, {
      answer: answerOf(article, form),
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
    if (!data.correct) {
      const line = el("p", {}, `${t("the_answer")} `);
      describeCorrect(article, data.correct_answer).forEach((text, i) => {
        if (i) line.append(", ");
        line.append(el("code", {}, text));
      });
      parts.push(line);
    }
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
}
