// An ordering (Parsons) question (app/quizzes/kinds/ordering.py; its inputs are drawn by
// app/templates/lessons/questions/ordering.html). Without this script the student gives each
// line a place (and an indent) in a table of selects; with it, the lines are two lists, "to
// choose from" and "your program", worked by drag and drop or by keyboard alone, each change
// said through a live region. The selects stay the one record of the answer: the script
// keeps them in step, and `answerOf` reads them either way.
import { el } from "../dom.js";

const INDENT = "    ";
const INDENT_PX = 28; // dragging a line this far right indents it one level

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

function rowsOf(root) {
  return [...root.querySelectorAll(".ordering tr[data-line]")].map((row) => {
    const code = row.querySelector("code");
    return {
      id: row.dataset.line,
      code: code.textContent,
      // The indentation shown where the student does not set it.
      fixed: Number(/indent-(\d+)/.exec(code.className)?.[1] ?? 0),
      position: row.querySelector('select[data-role="position"]'),
      indent: row.querySelector('select[data-role="indent"]'),
    };
  });
}

/** The answer as the API takes it: the lines given a place, in order, each with its indent
 * level (`[{"id", "indent"}]`). */
export function answerOf(form) {
  return rowsOf(form)
    .filter((row) => row.position.value)
    .sort((a, b) => Number(a.position.value) - Number(b.position.value))
    .map((row) => ({ id: row.id, indent: row.indent ? Number(row.indent.value) : 0 }));
}

/** The correct answer in words, as the server writes it: one line of code per line of the
 * program, indented by four spaces a level. */
export function describeCorrect(article, correct) {
  const code = Object.fromEntries(rowsOf(article).map((row) => [row.id, row.code]));
  return correct.map((placed) => `${INDENT.repeat(placed.indent)}${code[placed.id] ?? `(line ${placed.id})`}`);
}

/** The two lists in place of the table. */
export function setUp(article) {
  const box = article.querySelector(".ordering");
  if (!box || box.classList.contains("enhanced")) return;
  new Parsons(article, box);
}

class Parsons {
  constructor(article, box) {
    this.words = JSON.parse(box.dataset.words);
    this.graded = box.dataset.indent === "true";
    this.rows = new Map(rowsOf(article).map((row) => [row.id, row]));
    const qid = article.dataset.question;
    const helpId = `ph-${qid}`;
    const help = this.graded ? `${this.words.help} ${this.words.help_indent}` : this.words.help;
    this.pool = el("ul", { class: "parsons-list parsons-pool", "aria-labelledby": `pp-${qid}` });
    this.program = el("ol", { class: "parsons-list parsons-program", "aria-labelledby": `pg-${qid}` });
    this.live = el("p", { class: "visually-hidden", role: "status", "aria-live": "polite" });
    this.helpId = helpId;

    const placed = [...this.rows.values()]
      .filter((row) => row.position.value)
      .sort((a, b) => Number(a.position.value) - Number(b.position.value));
    for (const row of placed) this.program.append(this.item(row, row.indent ? Number(row.indent.value) : null));
    for (const row of this.rows.values()) {
      if (!row.position.value) this.pool.append(this.item(row, row.indent ? 0 : null));
    }
    for (const list of [this.pool, this.program]) this.listenForDrops(list);

    box.append(
      el(
        "div",
        { class: "parsons" },
        el("p", { class: "hint", id: helpId }, help),
        el(
          "div",
          { class: "parsons-areas" },
          el("div", { class: "parsons-area" }, el("h4", { id: `pp-${qid}` }, this.words.pool), this.pool),
          el("div", { class: "parsons-area" }, el("h4", { id: `pg-${qid}` }, this.words.program), this.program),
        ),
        this.live,
      ),
    );
    box.classList.add("enhanced");
    this.refresh();
  }

  /** One line as a list item; `indent` is the student's where they set it. */
  item(row, indent) {
    const level = row.indent ? indent ?? 0 : row.fixed;
    const li = el(
      "li",
      { class: "parsons-line", tabindex: "-1", draggable: "true", "data-line": row.id, "aria-describedby": this.helpId },
      el("span", { class: "visually-hidden where" }),
      el("code", { class: `indent-${level}` }, row.code),
      el("span", { class: "parsons-buttons" }),
    );
    li.dataset.indent = String(level);
    li.addEventListener("keydown", (event) => this.onKey(event, li));
    li.addEventListener("focus", () => this.makeCurrent(li));
    li.addEventListener("dragstart", (event) => {
      this.dragged = li;
      this.dragX = event.clientX;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", row.code);
      li.classList.add("dragging");
    });
    li.addEventListener("dragend", () => {
      li.classList.remove("dragging");
      this.dragged = null;
      this.clearMarks();
    });
    return li;
  }

  buttonsFor(li) {
    const inProgram = li.parentElement === this.program;
    const button = (label, symbol, action) => {
      const b = el("button", { type: "button", class: "parsons-button", tabindex: "-1", "aria-label": label, title: label }, symbol);
      b.addEventListener("click", action);
      return b;
    };
    if (!inProgram) return [button(this.words.add, "+", () => this.add(li))];
    const buttons = [
      button(this.words.up, "↑", () => this.move(li, -1)),
      button(this.words.down, "↓", () => this.move(li, 1)),
    ];
    if (this.graded) {
      buttons.push(button(this.words.outdent, "⇤", () => this.indent(li, -1)));
      buttons.push(button(this.words.indent, "⇥", () => this.indent(li, 1)));
    }
    buttons.push(button(this.words.remove, "×", () => this.remove(li)));
    return buttons;
  }

  lines(list) {
    return [...list.querySelectorAll(":scope > li.parsons-line")];
  }

  code(li) {
    return li.querySelector("code").textContent.trim();
  }

  say(text) {
    // A change of text is what a screen reader announces: the same words twice in a row are
    // made different by a trailing non-breaking space.
    this.live.textContent = this.live.textContent === text ? `${text}\u00a0` : text;
  }

  onKey(event, li) {
    const inProgram = li.parentElement === this.program;
    const list = li.parentElement;
    const siblings = this.lines(list);
    const index = siblings.indexOf(li);
    const key = event.key;
    let handled = true;
    if ((key === "ArrowUp" || key === "ArrowDown") && event.altKey) {
      if (inProgram) this.move(li, key === "ArrowUp" ? -1 : 1);
    } else if (key === "ArrowUp" || key === "ArrowDown") {
      siblings[index + (key === "ArrowUp" ? -1 : 1)]?.focus();
    } else if (key === "Home" || key === "End") {
      siblings[key === "Home" ? 0 : siblings.length - 1]?.focus();
    } else if ((key === "ArrowRight" || key === "ArrowLeft") && inProgram && this.graded) {
      this.indent(li, key === "ArrowRight" ? 1 : -1);
    } else if (key === "Enter" || key === " ") {
      if (inProgram) this.remove(li);
      else this.add(li);
    } else if ((key === "Delete" || key === "Backspace") && inProgram) {
      this.remove(li);
    } else {
      handled = false;
    }
    if (handled) event.preventDefault();
  }

  /** From the pool to the end of the program; focus stays in the pool, on the next line. */
  add(li, before = null) {
    const next = this.neighbour(li);
    this.program.insertBefore(li, before);
    this.refresh();
    const count = this.lines(this.program).length;
    const position = this.lines(this.program).indexOf(li) + 1;
    this.say(fill(this.words.said_added, { line: this.code(li), position, count }));
    (next ?? li).focus();
  }

  remove(li, before = null) {
    const next = this.neighbour(li);
    this.pool.insertBefore(li, before);
    this.refresh();
    this.say(fill(this.words.said_removed, { line: this.code(li) }));
    (next ?? li).focus();
  }

  /** The line that takes `li`'s place in its list when it leaves. */
  neighbour(li) {
    const siblings = this.lines(li.parentElement);
    const index = siblings.indexOf(li);
    return siblings[index + 1] ?? siblings[index - 1] ?? null;
  }

  move(li, by) {
    const siblings = this.lines(this.program);
    const index = siblings.indexOf(li);
    const target = index + by;
    if (target < 0 || target >= siblings.length) {
      this.say(fill(this.words.said_edge, { line: this.code(li) }));
      return;
    }
    if (by < 0) this.program.insertBefore(li, siblings[target]);
    else this.program.insertBefore(li, siblings[target].nextSibling);
    this.refresh();
    li.focus();
    this.say(fill(this.words.said_moved, { line: this.code(li), position: target + 1, count: siblings.length }));
  }

  indent(li, by) {
    const level = Number(li.dataset.indent) + by;
    const max = this.rows.get(li.dataset.line).indent.options.length - 1;
    if (level < 0 || level > max) {
      this.say(fill(this.words.said_edge, { line: this.code(li) }));
      return;
    }
    this.setIndent(li, level);
    this.refresh();
    li.focus();
    this.say(fill(this.words.said_indent, { line: this.code(li), level }));
  }

  setIndent(li, level) {
    li.dataset.indent = String(level);
    li.querySelector("code").className = `indent-${level}`;
  }

  makeCurrent(li) {
    for (const other of this.lines(li.parentElement)) other.tabIndex = other === li ? 0 : -1;
  }

  /** The selects, the words said of each line, the buttons and the one tab stop per list,
   * after any change. */
  refresh() {
    const program = this.lines(this.program);
    program.forEach((li, index) => {
      const row = this.rows.get(li.dataset.line);
      row.position.value = String(index + 1);
      if (row.indent) row.indent.value = li.dataset.indent;
      let where = fill(this.words.position, { position: index + 1, count: program.length });
      if (this.graded) where += `, ${fill(this.words.level, { level: li.dataset.indent })}`;
      li.querySelector(".where").textContent = `${where}: `;
    });
    for (const li of this.lines(this.pool)) {
      const row = this.rows.get(li.dataset.line);
      row.position.value = "";
      if (row.indent) {
        row.indent.value = "0";
        this.setIndent(li, 0);
      }
      li.querySelector(".where").textContent = "";
    }
    for (const li of [...program, ...this.lines(this.pool)]) {
      li.querySelector(".parsons-buttons").replaceChildren(...this.buttonsFor(li));
    }
    for (const [list, emptyText] of [
      [this.program, this.words.empty],
      [this.pool, this.words.all_used],
    ]) {
      const items = this.lines(list);
      list.querySelector(":scope > li.parsons-empty")?.remove();
      if (!items.length) list.append(el("li", { class: "parsons-empty" }, emptyText));
      if (!items.some((li) => li.tabIndex === 0) && items.length) items[0].tabIndex = 0;
      const current = items.filter((li) => li.tabIndex === 0);
      current.slice(1).forEach((li) => {
        li.tabIndex = -1;
      });
    }
  }

  // Drag and drop: a line is dropped before the line under the pointer (or at the end);
  // dragged right or left over the program, it is indented or outdented as it goes.

  listenForDrops(list) {
    list.addEventListener("dragover", (event) => {
      if (!this.dragged) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      this.clearMarks();
      const before = this.lineAfter(list, event.clientY);
      if (before) before.classList.add("drop-before");
      else list.classList.add("drop-at-end");
    });
    list.addEventListener("dragleave", (event) => {
      if (!list.contains(event.relatedTarget)) this.clearMarks();
    });
    list.addEventListener("drop", (event) => {
      const li = this.dragged;
      if (!li) return;
      event.preventDefault();
      this.clearMarks();
      const before = this.lineAfter(list, event.clientY);
      if (before === li) return;
      if (list === this.program && this.graded) {
        const max = this.rows.get(li.dataset.line).indent.options.length - 1;
        const level = Number(li.dataset.indent) + Math.round((event.clientX - this.dragX) / INDENT_PX);
        this.setIndent(li, Math.max(0, Math.min(max, level)));
      }
      if (list === this.program && li.parentElement !== this.program) {
        this.add(li, before);
      } else if (list === this.pool && li.parentElement !== this.pool) {
        this.remove(li, before);
      } else {
        list.insertBefore(li, before);
        this.refresh();
        const lines = this.lines(list);
        if (list === this.program) {
          this.say(fill(this.words.said_moved, { line: this.code(li), position: lines.indexOf(li) + 1, count: lines.length }));
        }
        li.focus();
      }
    });
  }

  lineAfter(list, y) {
    return (
      this.lines(list).find((li) => {
        if (li === this.dragged) return false;
        const box = li.getBoundingClientRect();
        return y < box.top + box.height / 2;
      }) ?? null
    );
  }

  clearMarks() {
    for (const node of document.querySelectorAll(".drop-before, .drop-at-end")) {
      node.classList.remove("drop-before", "drop-at-end");
    }
  }
}
