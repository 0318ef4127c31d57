// The page's controls: make a puzzle, hint, check, explain; each a call to the server's
// Puzzles service over gRPC-Web. One call at a time: a new action cancels the last.
import { ConnectError } from "@connectrpc/connect";
import { grid, puzzles } from "./api.js";
import { Board, indexOf } from "./board.js";
import { Verdict } from "../gen/sudoku/v1/puzzles_pb.js";

const $ = (id) => document.getElementById(id);
const LEVELS = ["Any", "Easy", "Medium", "Hard", "Diabolical", "Extreme", "Hardest"];
const SECONDS = 1000;

const board = new Board($("board"), edited);
let current = null;
let shown = null;

/** Says `text` in the status line; `state` (ok, error, solved, busy) colours it. */
function say(text, state = "") {
  $("status").textContent = text;
  $("status").dataset.state = state;
}

/** What a player edit undoes: the hint shown and a check's verdict. */
function edited() {
  shown = null;
  $("apply").hidden = true;
  $("hint-text").replaceChildren();
  $("pencil").setAttribute("aria-pressed", String(board.pencil));
  if ($("status").dataset.state !== "busy") say("");
}

/** Runs `call` with a fresh cancel signal, cancelling the call before; reports failures. */
async function run(label, call) {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  say(label, "busy");
  try {
    await call(controller.signal);
  } catch (err) {
    if (controller.signal.aborted) return;
    const message = err instanceof ConnectError ? err.rawMessage : String(err);
    say(`The server could not answer: ${message}`, "error");
  } finally {
    if (current === controller) current = null;
  }
}

function needPuzzle() {
  if (board.loaded()) return true;
  say("Make a puzzle first.", "error");
  return false;
}

/** The request Hint and Explain take: the grid as it stands, with the pencil marks. */
const hintRequest = () => ({ grid: grid(board.grid()), candidates: board.candidates() });

async function generate() {
  const level = Number($("level").value);
  await run(`Making a ${LEVELS[level].toLowerCase()} puzzle…`, async (signal) => {
    const stream = puzzles.generate({ level, count: 1 }, { signal, timeoutMs: 60 * SECONDS });
    for await (const made of stream) {
      if (signal.aborted) return;
      board.load(made.puzzle.cells);
      clearSteps();
      edited();
      $("info").textContent =
        `${LEVELS[made.level]} · SE ${made.rating.toFixed(1)} · ${made.givens} givens`;
      say("Your move.", "ok");
    }
  });
}

async function hint() {
  if (!needPuzzle()) return;
  await run("Thinking…", async (signal) => {
    const answer = await puzzles.hint(hintRequest(), { signal, timeoutMs: 20 * SECONDS });
    if (answer.solved) return say("Solved! Every digit is right.", "solved");
    if (answer.step) {
      showStep(answer.step);
      $("apply").hidden = false;
    }
    if (answer.wrongCandidates.length) {
      board.showErrors(answer.wrongCandidates);
      return say(wrongMarks(answer.wrongCandidates), "error");
    }
    say(answer.step ? "" : stuck(answer.verdict), answer.step ? "ok" : "error");
  });
}

/** Shows `step` on the board and in words. */
function showStep(step) {
  shown = step;
  board.showStep(step);
  const text = document.createElement("p");
  text.append(...stepWords(step));
  $("hint-text").replaceChildren(text);
}

/** A step as its technique, its rating and its sentence (without the technique again). */
function stepWords(step) {
  const name = document.createElement("strong");
  name.textContent = step.technique;
  const rating = document.createElement("span");
  rating.className = "rating";
  rating.textContent = `SE ${step.rating.toFixed(1)}`;
  const prefix = `${step.technique}: `;
  const said = step.text.toLowerCase().startsWith(prefix.toLowerCase());
  const sentence = said ? step.text.slice(prefix.length) : step.text;
  return [name, " ", rating, document.createElement("br"), sentence];
}

function wrongMarks(cells) {
  const where = cells.map((c) => `${c.digit} in r${c.row}c${c.col}`).join(", ");
  return `Your pencil marks rule out the answer: ${where}. The hint puts them back.`;
}

/** Why no step can be given. */
function stuck(verdict) {
  if (verdict === Verdict.NO_SOLUTION) return "No solution from here: an entry is wrong. Check finds it.";
  if (verdict === Verdict.MULTIPLE) return "More than one solution from here.";
  if (verdict === Verdict.STOPPED) return "That took too long; try again.";
  return "No technique the engine knows applies here.";
}

async function validate() {
  if (!needPuzzle()) return;
  await run("Checking…", async (signal) => {
    const request = { grid: grid(board.grid()), puzzle: grid(board.givens) };
    const answer = await puzzles.validate(request, { signal, timeoutMs: 20 * SECONDS });
    const bad = [...answer.conflicts.flatMap((c) => [c.first, c.second]), ...answer.wrong];
    board.showErrors(bad.filter((cell) => !board.givens[indexOf(cell)]));
    const mistakes = board.errors.size;
    if (answer.valid && answer.complete) return say("Solved! Every digit is right.", "solved");
    if (mistakes) return say(`${mistakes} ${mistakes === 1 ? "entry is" : "entries are"} wrong (marked red).`, "error");
    say(`No mistakes so far; ${board.emptyCount()} cells to go.`, "ok");
  });
}

function clearSteps() {
  $("steps").replaceChildren();
  $("steps-title").hidden = true;
}

async function explain() {
  if (!needPuzzle()) return;
  await run("Working it out…", async (signal) => {
    clearSteps();
    const stream = puzzles.explain(hintRequest(), { signal, timeoutMs: 60 * SECONDS });
    let count = 0;
    for await (const message of stream) {
      if (message.wrongCandidates.length) board.showErrors(message.wrongCandidates);
      if (message.step) {
        $("steps").append(stepItem(message.step));
        $("steps-title").hidden = false;
        count++;
      }
      if (message.verdict !== Verdict.UNSPECIFIED) {
        const done = message.solved
          ? `${count} ${count === 1 ? "step" : "steps"} to the solution. Select one to see it on the board.`
          : stuck(message.verdict);
        say(done, message.solved ? "ok" : "error");
      }
    }
  });
}

/** One step of an explanation, as a list item that shows it on the board when chosen. */
function stepItem(step) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "step";
  button.append(...stepWords(step));
  button.addEventListener("click", () => showStep(step));
  item.append(button);
  return item;
}

function restart() {
  current?.abort();
  board.restart();
  clearSteps();
  edited();
  say(board.loaded() ? "Back to the givens." : "");
}

$("generate").addEventListener("click", generate);
$("hint").addEventListener("click", hint);
$("validate").addEventListener("click", validate);
$("explain").addEventListener("click", explain);
$("restart").addEventListener("click", restart);
$("apply").addEventListener("click", () => shown && board.apply(shown));
$("pencil").addEventListener("click", () => {
  board.setPencil(!board.pencil);
  edited();
});
for (const key of document.querySelectorAll(".pad [data-digit]")) {
  key.addEventListener("click", () => {
    board.enter(Number(key.dataset.digit));
    board.select(board.selected, true);
  });
}
generate();
