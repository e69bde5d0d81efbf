// CodeMirror 6 over the exercise's <textarea>: the textarea stays in the form (hidden) and
// always holds the editor's text, so the plain form post keeps working.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python, pythonLanguage } from "@codemirror/lang-python";
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { highlightCode, tagHighlighter, tags } from "@lezer/highlight";

// Syntax classes, coloured by app/static/highlight.css: the editor and every read-only block
// of Python that highlightPython colours (the sample solution) look alike.
const highlighter = tagHighlighter([
  { tag: tags.keyword, class: "tok-keyword" },
  { tag: [tags.string, tags.special(tags.string)], class: "tok-string" },
  { tag: tags.comment, class: "tok-comment" },
  { tag: [tags.number, tags.bool, tags.null], class: "tok-number" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], class: "tok-function" },
  { tag: [tags.definition(tags.variableName), tags.className], class: "tok-definition" },
  { tag: tags.operator, class: "tok-operator" },
  { tag: tags.invalid, class: "tok-invalid" },
]);

/** Colours the Python in `code` (a <code> element, read-only) as the editor colours it. */
export function highlightPython(code) {
  const text = code.textContent;
  const parts = [];
  highlightCode(
    text,
    pythonLanguage.parser.parse(text),
    highlighter,
    (piece, classes) => {
      if (!classes) return parts.push(piece);
      const span = document.createElement("span");
      span.className = classes;
      span.textContent = piece;
      parts.push(span);
    },
    () => parts.push("\n"),
  );
  code.replaceChildren(...parts);
}

const theme = EditorView.theme({
  "&": { fontSize: "0.95rem", border: "1px solid #8a94a3", borderRadius: "6px", background: "#fff" },
  "&.cm-focused": { outline: "3px solid #1d4ed8", outlineOffset: "2px" },
  ".cm-scroller": { fontFamily: 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace', minHeight: "14rem", lineHeight: "1.5" },
  ".cm-content": { padding: "0.5rem 0" },
  ".cm-gutters": { background: "#f5f7fa", color: "#4b5563", borderRight: "1px solid #d7dce2" },
  ".cm-activeLine": { background: "#f1f5ff" },
  ".cm-activeLineGutter": { background: "#e5edfb", color: "#1b1f24" },
  "&.cm-focused .cm-matchingBracket": { background: "#d7f0dd", outline: "1px solid #13653a" },
  "&.cm-focused .cm-nonmatchingBracket": { background: "#fdecec", outline: "1px solid #a4161a" },
});

/**
 * Replace `textarea` with an editor. `onSubmit` runs on Ctrl/Cmd+Enter; `onChange` gets
 * the text after each edit. Returns {view, getCode, setCode}.
 */
// CodeMirror puts its styles in a <style> element; the page's Content-Security-Policy
// admits it by this answer's nonce (and no other inline style).
const cspNonce = document.querySelector('meta[name="csp-nonce"]')?.content ?? "";

export function createEditor(textarea, { labelId, helpId, onSubmit, onChange }) {
  const sync = EditorView.updateListener.of((update) => {
    if (!update.docChanged) return;
    const code = update.state.doc.toString();
    textarea.value = code;
    onChange?.(code);
  });
  const submitKeys = keymap.of([
    {
      key: "Mod-Enter",
      preventDefault: true,
      run: () => {
        onSubmit?.();
        return true;
      },
    },
  ]);
  const view = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        EditorState.allowMultipleSelections.of(false),
        indentOnInput(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        bracketMatching(),
        highlightActiveLine(),
        python(),
        syntaxHighlighting(highlighter),
        submitKeys,
        // Tab indents; Escape then Tab (or Ctrl+M / Shift+Alt+M to toggle) moves focus on.
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.lineWrapping,
        theme,
        EditorView.cspNonce.of(cspNonce),
        sync,
        EditorView.contentAttributes.of({
          "aria-labelledby": labelId,
          "aria-describedby": helpId,
          spellcheck: "false",
          autocapitalize: "off",
          autocorrect: "off",
          translate: "no",
        }),
      ],
    }),
  });
  textarea.hidden = true;
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  textarea.after(view.dom);

  const setCode = (code) => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
  };
  return { view, getCode: () => view.state.doc.toString(), setCode };
}
