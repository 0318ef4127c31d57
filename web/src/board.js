// The 9x9 board: givens, the player's entries and pencil marks, the selection, and what a
// hint or a check marks on it. Cells are `[data-cell="rRcC"]` elements (1-based), for tests.

const SIDE = 9;
const CELLS = SIDE * SIDE;
/** Every digit's bit (bit d - 1 for digit d). */
const ALL = (1 << SIDE) - 1;

const rowOf = (i) => Math.floor(i / SIDE);
const colOf = (i) => i % SIDE;
const boxOf = (i) => Math.floor(rowOf(i) / 3) * 3 + Math.floor(colOf(i) / 3);
/** The 0-based index of a 1-based proto Cell. */
export const indexOf = (cell) => (cell.row - 1) * SIDE + (cell.col - 1);
const sees = (a, b) =>
  a !== b && (rowOf(a) === rowOf(b) || colOf(a) === colOf(b) || boxOf(a) === boxOf(b));
const digitsIn = (mask) => [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((d) => mask & (1 << (d - 1)));

export class Board {
  /** Builds the cells inside `root`; `changed` runs after every edit by the player. */
  constructor(root, changed) {
    this.root = root;
    this.changed = changed;
    this.givens = new Array(CELLS).fill(0);
    this.entries = new Array(CELLS).fill(0);
    this.marks = new Array(CELLS).fill(0);
    this.pencil = false;
    this.selected = 0;
    this.clearHighlights();
    this.cells = [];
    for (let r = 0; r < SIDE; r++) {
      const row = document.createElement("div");
      row.setAttribute("role", "row");
      for (let c = 0; c < SIDE; c++) row.append(this.makeCell(r, c));
      root.append(row);
    }
    root.addEventListener("keydown", (event) => this.key(event));
    this.cells[this.selected].tabIndex = 0;
    this.renderAll();
  }

  makeCell(r, c) {
    const cell = document.createElement("div");
    const i = r * SIDE + c;
    cell.setAttribute("role", "gridcell");
    cell.dataset.cell = `r${r + 1}c${c + 1}`;
    cell.tabIndex = -1;
    cell.classList.toggle("edge-r", c % 3 === 2 && c < SIDE - 1);
    cell.classList.toggle("edge-b", r % 3 === 2 && r < SIDE - 1);
    cell.addEventListener("click", () => this.select(i, true));
    this.cells.push(cell);
    return cell;
  }

  /** Starts a new puzzle from its 81 cells (0 for empty). */
  load(givens) {
    this.givens = Array.from(givens, Number);
    this.restart();
    this.select(this.givens.findIndex((d) => d === 0), true);
  }

  /** Clears every entry and pencil mark. */
  restart() {
    this.entries.fill(0);
    this.marks.fill(0);
    this.clearHighlights();
    this.renderAll();
  }

  /** The grid as the player has it: givens plus entries. */
  grid() {
    return this.givens.map((g, i) => g || this.entries[i]);
  }

  /** Whether a puzzle is loaded. */
  loaded() {
    return this.givens.some((d) => d !== 0);
  }

  /** Empty cells left. */
  emptyCount() {
    return this.grid().filter((d) => d === 0).length;
  }

  /**
   * The player's pencil marks for a Hint or Explain request, or undefined when there are
   * none. An empty cell without marks allows every digit, so marking a few cells narrows
   * only those.
   */
  candidates() {
    const grid = this.grid();
    if (!this.marks.some((m, i) => m && !grid[i])) return undefined;
    return { masks: this.marks.map((m) => BigInt(m || ALL)) };
  }

  setPencil(on) {
    this.pencil = on;
    this.root.classList.toggle("pencil", on);
  }

  select(i, focus) {
    if (i < 0 || i >= CELLS) return;
    this.cells[this.selected].tabIndex = -1;
    this.selected = i;
    this.cells[i].tabIndex = 0;
    if (focus) this.cells[i].focus();
    this.renderAll();
  }

  /** Enters `digit` (0 erases) in the selected cell, as an entry or (`pencil`) a mark. */
  enter(digit, pencil = this.pencil) {
    const i = this.selected;
    if (this.givens[i]) return;
    if (digit === 0) {
      this.entries[i] = 0;
      this.marks[i] = 0;
    } else if (pencil && !this.entries[i]) {
      this.marks[i] ^= 1 << (digit - 1);
    } else {
      this.entries[i] = digit;
      this.dropMarksSeenBy(i, digit);
    }
    this.clearHighlights();
    this.renderAll();
    this.changed();
  }

  /** A digit placed rules it out of the pencil marks of the cells it sees. */
  dropMarksSeenBy(i, digit) {
    for (let j = 0; j < CELLS; j++) if (sees(i, j)) this.marks[j] &= ~(1 << (digit - 1));
  }

  /** Places a step's digits and removes its eliminations from the pencil marks. */
  apply(step) {
    for (const cell of step.placements) {
      const i = indexOf(cell);
      if (!this.givens[i]) {
        this.entries[i] = cell.digit;
        this.dropMarksSeenBy(i, cell.digit);
      }
    }
    for (const cell of step.eliminations) this.marks[indexOf(cell)] &= ~(1 << (cell.digit - 1));
    this.clearHighlights();
    this.renderAll();
    this.changed();
  }

  key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const moves = { ArrowUp: -SIDE, ArrowDown: SIDE, ArrowLeft: -1, ArrowRight: 1 };
    const digit = /^(Digit|Numpad)([0-9])$/.exec(event.code);
    if (event.key in moves) {
      const step = moves[event.key];
      const next = this.selected + step;
      const wraps = Math.abs(step) === 1 && rowOf(next) !== rowOf(this.selected);
      if (!wraps) this.select(next, true);
    } else if (digit) {
      // Shift with a digit pencils it in whatever the mode.
      this.enter(Number(digit[2]), this.pencil || event.shiftKey);
    } else if (event.key === "Backspace" || event.key === "Delete") {
      this.enter(0);
    } else if (event.key === "p" || event.key === "P") {
      this.setPencil(!this.pencil);
      this.changed();
    } else {
      return;
    }
    event.preventDefault();
  }

  clearHighlights() {
    this.hint = { place: new Map(), eliminate: new Map(), support: new Set() };
    this.errors = new Set();
  }

  /** Marks a step's cells: digits to place, candidates to remove, and what it rests on. */
  showStep(step) {
    this.clearHighlights();
    for (const cell of step.support) this.hint.support.add(indexOf(cell));
    for (const cell of step.eliminations) {
      const i = indexOf(cell);
      this.hint.eliminate.set(i, (this.hint.eliminate.get(i) || 0) | (1 << (cell.digit - 1)));
    }
    for (const cell of step.placements) this.hint.place.set(indexOf(cell), cell.digit);
    this.renderAll();
  }

  /** Marks cells (1-based proto Cells) as mistakes. */
  showErrors(cells) {
    this.errors = new Set(cells.map(indexOf));
    this.renderAll();
  }

  renderAll() {
    for (let i = 0; i < CELLS; i++) this.render(i);
  }

  render(i) {
    const el = this.cells[i];
    const given = this.givens[i];
    const digit = given || this.entries[i];
    const chosen = this.grid()[this.selected];
    el.toggleAttribute("data-given", given !== 0);
    el.toggleAttribute("data-selected", i === this.selected);
    el.toggleAttribute("data-peer", sees(i, this.selected));
    el.toggleAttribute("data-same", digit !== 0 && digit === chosen);
    el.toggleAttribute("data-error", this.errors.has(i));
    el.dataset.hint = this.hintRole(i);
    if (digit) {
      el.dataset.digit = digit;
      el.textContent = String(digit);
    } else {
      delete el.dataset.digit;
      el.replaceChildren(this.cellMarks(i));
    }
    el.setAttribute("aria-label", this.describe(i));
  }

  hintRole(i) {
    if (this.hint.place.has(i)) return "place";
    if (this.hint.eliminate.has(i)) return "eliminate";
    return this.hint.support.has(i) ? "support" : "";
  }

  /** An empty cell's inside: a hint's digit to place, or its pencil marks (3x3, small). */
  cellMarks(i) {
    const place = this.hint.place.get(i);
    if (place) {
      const ghost = document.createElement("span");
      ghost.className = "ghost";
      ghost.textContent = String(place);
      return ghost;
    }
    const struck = this.hint.eliminate.get(i) || 0;
    const box = document.createElement("span");
    box.className = "marks";
    for (let d = 1; d <= SIDE; d++) {
      const mark = document.createElement("span");
      const bit = 1 << (d - 1);
      if (struck & bit) mark.className = "struck";
      mark.textContent = (this.marks[i] | struck) & bit ? String(d) : "";
      box.append(mark);
    }
    return box;
  }

  describe(i) {
    const where = `Row ${rowOf(i) + 1}, column ${colOf(i) + 1}`;
    if (this.givens[i]) return `${where}, given ${this.givens[i]}`;
    if (this.entries[i]) return `${where}, ${this.entries[i]}${this.errors.has(i) ? ", wrong" : ""}`;
    const marks = digitsIn(this.marks[i]);
    return marks.length ? `${where}, pencil ${marks.join(" ")}` : `${where}, empty`;
  }
}
