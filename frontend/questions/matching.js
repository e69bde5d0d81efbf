// A matching question (app/quizzes/kinds/matching.py; its inputs are drawn by
// app/templates/lessons/questions/matching.html).

/** The answer as the API takes it: {left id: right id} for every left item. */
export function answerOf(form) {
  const answer = {};
  for (const select of form.querySelectorAll("select")) answer[select.name.replace(/^match-/, "")] = select.value;
  return answer;
}

/** The correct answer in words, as the server writes it: one "left → right" per pair. */
export function describeCorrect(article, correct) {
  return Object.entries(correct).map(([left, right]) => {
    const select = article.querySelector(`select[name="match-${left}"]`);
    const leftText = article.querySelector(`label[for="${select.id}"]`).textContent;
    const rightText = select.querySelector(`option[value="${right}"]`).textContent;
    return `${leftText} → ${rightText}`;
  });
}

/** The rows matched wrongly (by left id), as the student matched them: "left → right". */
export function describeWrong(article, parts) {
  return parts.flatMap((left) => {
    const select = article.querySelector(`select[name="match-${CSS.escape(String(left))}"]`);
    if (!select) return [];
    const leftText = article.querySelector(`label[for="${select.id}"]`).textContent;
    return [`${leftText} → ${select.selectedOptions[0]?.textContent ?? ""}`];
  });
}
