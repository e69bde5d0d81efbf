// The interface's words, handed over by the page (base.html) as JSON in the reader's language.
let messages = null;

function load() {
  if (messages === null) {
    const node = document.getElementById("i18n-messages");
    try {
      messages = node ? JSON.parse(node.textContent) : {};
    } catch {
      messages = {};
    }
  }
  return messages;
}

/** The message `key` with its `{name}` placeholders filled from `values`. */
export function t(key, values = {}) {
  const text = load()[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
