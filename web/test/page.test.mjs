// The page in a real headless Chromium against a real sudoku-server on loopback: it loads, a
// generated puzzle appears in the 81 cells, pencil marks go in small, a hint marks cells whose
// digits agree with the solution, the explanation lists steps, a wrong entry is caught, and the
// grid filled with the puzzle's solution (from Solve, called here over gRPC-Web) validates as
// solved. Bounded in time; stops the server and the browser itself.
//
// Usage: node test/page.test.mjs SUDOKU_SERVER_BINARY [SCREENSHOT_DIR]
// (after build.sh; Chromium from $CHROMIUM, default /usr/bin/chromium).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { chromium } from "playwright-core";
import { Outcome, Sudoku } from "../gen/sudoku/v1/sudoku_pb.js";

const [binary, shots] = process.argv.slice(2);
if (!binary) throw new Error("usage: node test/page.test.mjs SUDOKU_SERVER_BINARY [SCREENSHOT_DIR]");
const LIMIT_MS = 180_000;
const WAIT_MS = 60_000;
// The machine's network may be closed: nothing but loopback, and no background fetches.
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Polls until `url` answers, or fails after `ms`. */
async function answering(url, ms) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > end) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every row, column and box of `cells` (81) holds 1..9 once. */
function assertSudokuRules(cells) {
  const houses = [];
  for (let k = 0; k < 9; k++) {
    houses.push([...Array(9).keys()].map((j) => cells[k * 9 + j]));
    houses.push([...Array(9).keys()].map((j) => cells[j * 9 + k]));
    const [r, c] = [Math.floor(k / 3) * 3, (k % 3) * 3];
    houses.push([...Array(9).keys()].map((j) => cells[(r + Math.floor(j / 3)) * 9 + c + (j % 3)]));
  }
  for (const house of houses) assert.deepEqual([...house].sort(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
}

/** The unique solution of `givens`, from the server's Solve over gRPC-Web, checked here. */
async function solve(base, givens) {
  const sudoku = createClient(Sudoku, createGrpcWebTransport({ baseUrl: base }));
  const puzzle = { boxRows: 3, boxCols: 3, cells: givens };
  const answer = await sudoku.solve({ id: "page-test", puzzle, options: { maxSolutions: 2 } });
  assert.equal(answer.outcome, Outcome.UNIQUE, "a generated puzzle has one solution");
  const solution = answer.solution.cells;
  assert.equal(solution.length, 81);
  givens.forEach((g, i) => g && assert.equal(solution[i], g, `keeps the given at ${i}`));
  assertSudokuRules(solution);
  return solution;
}

const idOf = (i) => `r${Math.floor(i / 9) + 1}c${(i % 9) + 1}`;
const cellAt = (i) => `[data-cell="${idOf(i)}"]`;

/** The givens on the page (0 for the other cells), after checking the 81 cells are there. */
async function readGivens(page) {
  const cells = await page.$$eval("[data-cell]", (els) =>
    els.map((el) => ({ id: el.dataset.cell, given: el.hasAttribute("data-given"), digit: el.dataset.digit })),
  );
  assert.equal(cells.length, 81, "81 cells");
  cells.forEach((cell, i) => assert.equal(cell.id, idOf(i), "row-major"));
  return cells.map((cell) => {
    if (!cell.given) return 0;
    assert.match(cell.digit ?? "", /^[1-9]$/, `given ${cell.id} shows a digit`);
    return Number(cell.digit);
  });
}

async function waitStatus(page, state, text) {
  await page.waitForSelector(`#status[data-state="${state}"]`, { timeout: WAIT_MS });
  if (text) assert.match(await page.textContent("#status"), text);
}

/** Clicks cell `i` and types `digit` (with Shift: a pencil mark). */
async function type(page, i, digit, shift = false) {
  await page.click(cellAt(i));
  await page.keyboard.press(`${shift ? "Shift+" : ""}Digit${digit}`);
}

async function play(page, base, shot) {
  await page.goto(base);
  assert.equal(await page.title(), "Sudoku");
  // An easy one: its hint is a single, a placement on the board.
  await page.selectOption("#level", "1");
  await page.click("#generate");
  await waitStatus(page, "ok", /Your move/);
  assert.match(await page.textContent("#info"), /^Easy · SE \d+\.\d · \d+ givens$/);
  const givens = await readGivens(page);
  const count = givens.filter(Boolean).length;
  assert.ok(count >= 17 && count < 81, `${count} givens`);
  const solution = await solve(base, givens);
  const empty = givens.flatMap((g, i) => (g ? [] : [i]));

  // Pencil marks: small, in the cell, without a digit (the answer among them, so the hint
  // takes them as they are).
  const [first] = empty;
  const other = (solution[first] % 9) + 1;
  for (const d of [solution[first], other]) await type(page, first, d, true);
  const marks = await page.textContent(`${cellAt(first)} .marks`);
  assert.equal(marks, [solution[first], other].sort().join(""));
  assert.equal(await page.getAttribute(cellAt(first), "data-digit"), null);

  // A hint marks cells; the digits it places are the solution's.
  await page.click("#hint");
  await page.waitForSelector('[data-hint="place"]', { timeout: WAIT_MS });
  const placed = await page.$$eval('[data-hint="place"]', (els) =>
    els.map((el) => [el.dataset.cell, el.textContent]),
  );
  for (const [id, digit] of placed) {
    const [, r, c] = /^r(\d)c(\d)$/.exec(id).map(Number);
    assert.equal(Number(digit), solution[(r - 1) * 9 + c - 1], `hint at ${id}`);
  }
  assert.notEqual((await page.textContent("#hint-text")).trim(), "");

  // The explanation: a list of steps to the solution.
  await page.click("#explain");
  await waitStatus(page, "ok", /steps? to the solution/);
  const steps = await page.$$eval("#steps li", (items) => items.map((li) => li.textContent));
  assert.ok(steps.length > 0 && steps.every((text) => text.trim()), "steps listed");
  if (shot) await page.screenshot({ path: join(shot, "page-hint.png"), fullPage: true });

  // A wrong entry is caught and marked.
  await type(page, first, other);
  await page.click("#validate");
  await waitStatus(page, "error", /1 entry is wrong/);
  assert.ok(await page.$(`${cellAt(first)}[data-error]`), "the wrong entry is marked");

  // The solution, typed in, is solved.
  for (const i of empty) await type(page, i, solution[i]);
  const shown = await page.$$eval("[data-cell]", (els) => els.map((el) => Number(el.dataset.digit)));
  assert.deepEqual(shown, solution, "the board shows what was typed");
  await page.click("#validate");
  await waitStatus(page, "solved", /Solved/);
  if (shot) await page.screenshot({ path: join(shot, "page-solved.png"), fullPage: true });
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = ["--listen", `127.0.0.1:${port}`, "--metrics-listen", "off"];
  const server = spawn(binary, args, { stdio: ["ignore", "inherit", "inherit"] });
  const profile = mkdtempSync(join(tmpdir(), "sudoku-page-"));
  let context;
  const limit = setTimeout(() => {
    console.error(`page test: over ${LIMIT_MS} ms, stopping`);
    server.kill("SIGKILL");
    process.exit(1);
  }, LIMIT_MS);
  try {
    await answering(`${base}/`, 30_000);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1100, height: 820 },
      timeout: 60_000,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = [];
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    page.on("pageerror", (err) => problems.push(`page: ${err.message}`));
    page.on("request", (r) => r.url().startsWith(`${base}/`) || problems.push(`went to ${r.url()}`));
    await play(page, base, shots);
    assert.deepEqual(problems, [], "no errors, no CSP refusals, nothing but this origin");
    console.log("page test: passed");
  } finally {
    clearTimeout(limit);
    await context?.close();
    server.kill("SIGTERM");
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();
