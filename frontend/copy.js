// Copy buttons: `<button data-copy="#target" data-copied="Link copied" hidden>` copies the
// text of #target (a link: its address). The button stays hidden where nothing can be copied
// (no script, no clipboard); the text is on the page to select either way.
export function setUpCopyButtons(root = document) {
  if (!navigator.clipboard) return;
  for (const button of root.querySelectorAll("button[data-copy]")) {
    const target = document.querySelector(button.dataset.copy);
    if (!target) continue;
    const status = button.parentElement.querySelector(".copy-status");
    button.hidden = false;
    button.addEventListener("click", async () => {
      const text = target.href ?? target.textContent.trim();
      try {
        await navigator.clipboard.writeText(text);
        if (status) status.textContent = button.dataset.copied ?? "";
      } catch {
        // Refused (permissions): select the text so that Ctrl+C copies it.
        const range = document.createRange();
        range.selectNodeContents(target);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      }
    });
  }
}
