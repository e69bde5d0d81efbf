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
