// A multiple-choice question (app/quizzes/kinds/multiple_choice.py; its inputs are drawn by
// app/templates/lessons/questions/multiple_choice.html).

/** The answer as the API takes it: one option index, or a list of them for checkboxes. */
export function answerOf(form) {
  const boxes = [...form.querySelectorAll('input[name="answer"]')];
  const picked = boxes.filter((box) => box.checked).map((box) => Number(box.value));
  if (boxes[0] && boxes[0].type === "checkbox") return picked;
  return picked.length === 1 ? picked[0] : null;
}

function labelled(article, indices) {
  const labels = [...article.querySelectorAll("label.option span")].map((span) => span.textContent);
  return indices.map((i) => {
    const letter = i < 26 ? String.fromCharCode(65 + i) : String(i + 1);
    return `${letter}. ${labels[i]}`;
  });
}

/** The correct answer in words, as the server writes it: "B. the option's text". */
export function describeCorrect(article, correct) {
  return labelled(article, Array.isArray(correct) ? correct : [correct]);
}

/** The options chosen wrongly (by index), in the same words. */
export function describeWrong(article, parts) {
  return labelled(article, parts);
}
