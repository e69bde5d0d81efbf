// An answer given while logged out survives the trip to the log-in (or sign-up) page and
// back: its form's fields are kept in this tab's sessionStorage, keyed by the question, and
// put back when the lesson page shows that question again. Nothing leaves the browser.
import { el } from "./dom.js";
import { t } from "./i18n.js";

const PREFIX = "tensorcamp.pending-answer.";

/** The fields a student fills in, in page order (not the CSRF token or the buttons). */
function fieldsOf(form) {
  return [...form.elements].filter(
    (field) => field.name && !["hidden", "submit", "button"].includes(field.type) && field.tagName !== "BUTTON",
  );
}

/** Keep what the question's form holds; false if there is none or the browser refuses. */
function keepAnswer(article) {
  const form = article.querySelector("form.answer-form");
  if (!form) return false;
  const fields = fieldsOf(form).map((field) => ({
    name: field.name,
    value: field.value,
    checked: field.type === "checkbox" || field.type === "radio" ? field.checked : undefined,
  }));
  try {
    sessionStorage.setItem(PREFIX + article.dataset.question, JSON.stringify(fields));
    return true;
  } catch {
    return false; // storage switched off or full: the log-in still happens, the answer is lost
  }
}

/** Where to log in from `article`, coming back to the question with the answer pending. */
function loginUrl(article) {
  const back = `${window.location.pathname}#${article.id}`;
  return `/login?${new URLSearchParams({ next: back, why: "answer" })}`;
}

/** Logged out while answering: to the log-in page (which offers signing up), saying why,
 * and back to this question afterwards with the answer filled in again. */
export function logInKeepingAnswer(article) {
  keepAnswer(article);
  window.location.assign(loginUrl(article));
}

/** Put kept answers back into their questions' forms (before the kinds' scripts draw their
 * widgets from those fields), say so beside each, and forget them. */
export function restoreAnswers() {
  for (const article of document.querySelectorAll("article.question")) {
    const key = PREFIX + article.dataset.question;
    let kept = null;
    try {
      kept = JSON.parse(sessionStorage.getItem(key) ?? "null");
      sessionStorage.removeItem(key);
    } catch {
      kept = null;
    }
    const form = article.querySelector("form.answer-form");
    if (!Array.isArray(kept) || !form) continue;
    const fields = fieldsOf(form);
    if (fields.length !== kept.length || fields.some((field, i) => field.name !== kept[i].name)) continue;
    fields.forEach((field, i) => {
      if (kept[i].checked !== undefined) field.checked = kept[i].checked;
      else field.value = kept[i].value;
      field.dispatchEvent(new Event("input", { bubbles: true }));
      field.dispatchEvent(new Event("change", { bubbles: true }));
    });
    article.querySelector(".feedback")?.replaceChildren(el("p", { class: "alert pending-answer", role: "status" }, t("answer_restored")));
    if (window.location.hash === `#${article.id}`) form.querySelector('button[type="submit"]')?.focus({ preventScroll: true });
  }
}
