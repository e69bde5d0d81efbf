// A predict-the-output question (app/quizzes/kinds/predict_output.py; its inputs are drawn
// by app/templates/lessons/questions/predict_output.html).

/** The answer as the API takes it: the text typed, what the code prints. */
export function answerOf(form) {
  return form.querySelector('textarea[name="printed"]').value;
}

/** The correct answer in words, as the server writes it: the output's lines, without the
 * blank lines at its end. */
export function describeCorrect(article, correct) {
  const lines = correct.replace(/\r\n?/g, "\n").split("\n");
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  return lines.length ? lines : ["(no output)"];
}

/** The answer's lines that differ from the output (by index), as typed. */
export function describeWrong(article, parts) {
  const lines = answerOf(article.querySelector("form.answer-form")).replace(/\r\n?/g, "\n").split("\n");
  return parts.filter((i) => Number.isInteger(i) && i < lines.length).map((i) => lines[i]);
}

/** Ctrl+Enter (⌘+Enter) in the answer checks it, as in the code editor. */
export function setUp(article) {
  const textarea = article.querySelector('textarea[name="printed"]');
  textarea?.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      textarea.form.requestSubmit();
    }
  });
}
