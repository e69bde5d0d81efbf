// A fill-in question (app/quizzes/kinds/fill_in.py; its inputs are drawn by
// app/templates/lessons/questions/fill_in.html).

/** The answer as the API takes it: one string per blank, in order. */
export function answerOf(form) {
  return [...form.querySelectorAll('input[name="blank"]')].map((input) => input.value);
}

/** The correct answer in words, as the server writes it: the template with each blank's
 * answer in brackets, "x = x.[to](device)". */
export function describeCorrect(article, correct) {
  let blank = 0;
  const text = [...article.querySelector("pre.fill-in code").childNodes]
    .map((node) => (node.nodeName === "INPUT" ? `[${correct[blank++] ?? ""}]` : node.textContent))
    .join("");
  return [text];
}

/** The wrong blanks (by index), as the student filled them. */
export function describeWrong(article, parts) {
  const inputs = [...article.querySelectorAll('input[name="blank"]')];
  return parts.filter((i) => Number.isInteger(i) && inputs[i]).map((i) => inputs[i].value.trim());
}
