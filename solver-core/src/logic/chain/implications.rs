//! An assumption's consequences drawn as Sukaku Explainer draws them, for the chains rated by
//! what a contradiction or a common consequence rests on.
//!
//! Facts wait in two queues, true ones always taken first. A true fact makes false the cell's
//! other digits (with cell links) and the digit's other places in its box, row and column; a
//! false fact makes true the cell's last other digit and the digit's last other place in each
//! of its houses. In a dynamic search each false fact is also struck from the board once
//! followed, so that later facts are judged on the board as the chain has left it, and a fact
//! so judged rests on every earlier fact that struck a candidate it counts on. The first
//! fact met both true and false ends the search.

use std::cell::RefCell;
use std::mem::take;

use super::spare;
use super::state::{BIT, BOX, CELL, COL, ROW, Set, Start, cells};
use super::trail::{Link, trail};

/// A fact: `(cell * 9 + digit) * 2 + on`.
pub(crate) type Fact = u16;

/// The fact "digit index `d` is (`on`) or is not in cell `c`".
pub(crate) fn fact(c: usize, d: usize, on: bool) -> Fact {
    ((c * 9 + d) * 2 + usize::from(on)) as Fact
}

/// Cell, digit index and truth of a fact.
pub(crate) fn parts(f: Fact) -> (usize, usize, bool) {
    let f = usize::from(f);
    (f / 18, f / 2 % 9, f & 1 == 1)
}

const FACTS: usize = 81 * 9 * 2;
const NONE: u32 = u32::MAX;

/// How a search links facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Links inside cells (a cell's digits), besides those of houses.
    pub(crate) cells: bool,
    /// Strikes each false fact from the board as it is followed.
    pub(crate) dynamic: bool,
}

/// A fact reached, with where its parents start in its search's parent list and how many
/// (one list of nodes: a search makes some hundreds, each pushed once; the false facts a
/// true one makes share the entry of their one parent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub(crate) fact: Fact,
    pub(crate) count: u8,
    /// The longest line of parents back to the assumption, itself included, up to 255
    /// (where it stops): facts the node rests on, so at most its ancestor count, and known
    /// without a walk.
    pub(crate) depth: u8,
    pub(crate) first: u32,
}

// The links of a false fact are bits (`ROW`, `COL`, `BOX`, `CELL`): its row, column, box or
// cell left with one other place or digit, which its strong links make true.

/// A node waiting to be followed, with its fact's cell and digit (worked out once).
#[derive(Debug, Clone, Copy)]
struct Waiting {
    node: u32,
    cell: u8,
    digit: u8,
    /// For a false fact made by a true one, the links ([`ROW`], ...) it shares with it:
    /// their one other place or digit is that true fact, so they make nothing new.
    shared: u8,
}

impl Waiting {
    fn new(node: u32, c: usize, d: usize) -> Waiting {
        Waiting::sharing(node, c, d, 0)
    }

    fn sharing(node: u32, c: usize, d: usize, shared: u8) -> Waiting {
        Waiting {
            node,
            cell: c as u8,
            digit: d as u8,
            shared,
        }
    }

    fn at(self) -> (usize, usize) {
        (usize::from(self.cell), usize::from(self.digit))
    }
}

/// One search's facts, each with the facts it rests on.
pub(crate) struct Search {
    nodes: Vec<Node>,
    parents: Vec<u32>,
    /// The node of each fact reached (the first one), or [`NONE`].
    index: Vec<u32>,
    /// The facts reached, as cells by truth and digit: a true fact's many false ones are
    /// told new or opposed a set at a time.
    shown: [[Set; 9]; 2],
    /// Nodes waiting to be followed, true and false ones, from `on.1` and `off.1` on (each
    /// node joins one queue once, so a list and a cursor serve as the queue).
    on: (Vec<Waiting>, usize),
    off: (Vec<Waiting>, usize),
    /// The board as the chain has left it: each digit's places, each cell's digits.
    cand: [Set; 9],
    masks: [u16; 81],
    /// How many places each digit has in each house of that board.
    places: [[u8; 27]; 9],
    /// Facts a fact makes, each with its hidden parents at `hidden[start..end]`.
    made: Vec<(Fact, u32, u32)>,
    hidden: Vec<u32>,
    seen: Vec<u64>,
    stack: Vec<u32>,
}

/// A dropped [`Search`]'s buffers (its index all [`NONE`] again): nodes, parents, index,
/// the two queues, made, hidden, seen, stack.
type Buffers = (
    Vec<Node>,
    Vec<u32>,
    Vec<u32>,
    [Vec<Waiting>; 2],
    Vec<(Fact, u32, u32)>,
    Vec<u32>,
    Vec<u64>,
    Vec<u32>,
);

thread_local! {
    /// Buffers of dropped searches, for the next ones: every chain step makes a search or
    /// two, and making the buffers costs as much as a short search.
    static SPARE: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Search {
    fn drop(&mut self) {
        for n in &self.nodes {
            self.index[usize::from(n.fact)] = NONE;
        }
        self.nodes.clear();
        spare::give(
            &SPARE,
            (
                take(&mut self.nodes),
                take(&mut self.parents),
                take(&mut self.index),
                [take(&mut self.on.0), take(&mut self.off.0)],
                take(&mut self.made),
                take(&mut self.hidden),
                take(&mut self.seen),
                take(&mut self.stack),
            ),
        );
    }
}

impl Search {
    /// A search with the buffers of a dropped one when the thread has one.
    pub(crate) fn new() -> Search {
        let (nodes, parents, index, [on, off], made, hidden, seen, stack) = spare::take(&SPARE)
            .unwrap_or_else(|| {
                (
                    Vec::with_capacity(512),
                    Vec::with_capacity(1024),
                    vec![NONE; FACTS],
                    [Vec::with_capacity(512), Vec::with_capacity(512)],
                    Vec::with_capacity(32),
                    Vec::with_capacity(32),
                    vec![0; FACTS.div_ceil(64)],
                    Vec::with_capacity(256),
                )
            });
        Search {
            nodes,
            parents,
            index,
            shown: [[0; 9]; 2],
            on: (on, 0),
            off: (off, 0),
            cand: [0; 9],
            masks: [0; 81],
            places: [[0; 27]; 9],
            made,
            hidden,
            seen,
            stack,
        }
    }

    fn reset(&mut self, s: &Start) {
        for n in &self.nodes {
            self.index[usize::from(n.fact)] = NONE;
        }
        self.nodes.clear();
        self.parents.clear();
        self.shown = [[0; 9]; 2];
        self.on.0.clear();
        self.on.1 = 0;
        self.off.0.clear();
        self.off.1 = 0;
        self.cand = s.cand;
        self.places = s.places;
        for (c, m) in self.masks.iter_mut().enumerate() {
            *m = s.digits(c);
        }
    }

    /// The assumption's node (the first).
    fn root(&mut self, f: Fact) -> u32 {
        self.nodes.push(Node {
            fact: f,
            count: 0,
            depth: 1,
            first: 0,
        });
        0
    }

    /// A node made by `made[k]` from node `i`: `i`, then the hidden parents.
    fn made_node(&mut self, k: usize, i: u32) -> u32 {
        let (f, a, b) = self.made[k];
        let first = self.parents.len() as u32;
        self.parents.push(i);
        let mut deepest = self.nodes[i as usize].depth;
        for h in a..b {
            let p = self.hidden[h as usize];
            self.parents.push(p);
            deepest = deepest.max(self.nodes[p as usize].depth);
        }
        self.nodes.push(Node {
            fact: f,
            count: (1 + b - a) as u8,
            depth: deepest.saturating_add(1),
            first,
        });
        (self.nodes.len() - 1) as u32
    }

    /// The node that reached fact `f`, if any.
    pub(crate) fn reached(&self, f: Fact) -> Option<u32> {
        let i = self.index[usize::from(f)];
        (i != NONE).then_some(i)
    }

    /// The search's nodes and parent lists, less a contradiction's last node, which no
    /// fact's index names (see [`Search::reached`]).
    pub(crate) fn graph(&self) -> (&[Node], &[u32]) {
        let mut n = self.nodes.len();
        if let Some(last) = self.nodes.last()
            && self.index[usize::from(last.fact)] != (n - 1) as u32
        {
            n -= 1;
        }
        let parents = self
            .nodes
            .get(n)
            .map_or(self.parents.len(), |node| node.first as usize);
        (&self.nodes[..n], &self.parents[..parents])
    }

    /// Runs from the assumption `start` until done or a fact is met both ways; then the
    /// nodes of the true and the false one.
    pub(crate) fn run(&mut self, s: &Start, start: Fact, rules: Rules) -> Option<(u32, u32)> {
        self.reset(s);
        let root = self.root(start);
        let (c, d) = self.mark(start, root);
        if parts(start).2 {
            self.on.0.push(Waiting::new(root, c, d));
        } else {
            self.off.0.push(Waiting::new(root, c, d));
        }
        loop {
            if let Some(&w) = self.on.0.get(self.on.1) {
                self.on.1 += 1;
                let i = w.node;
                if self.follow_unopposed(s, i, w.at(), rules) {
                    continue;
                }
                self.weak(s, w.at(), rules);
                for k in 0..self.made.len() {
                    let g = self.made[k].0;
                    if let Some(j) = self.reached(g ^ 1) {
                        let n = self.made_node(k, i);
                        return Some((j, n));
                    }
                    if self.reached(g).is_none() {
                        let n = self.made_node(k, i);
                        let (c, d) = self.mark(g, n);
                        self.off.0.push(Waiting::new(n, c, d));
                    }
                }
                continue;
            }
            let &w = self.off.0.get(self.off.1)?;
            self.off.1 += 1;
            let i = w.node;
            let (c, d) = w.at();
            let links = if rules.dynamic {
                self.strike(s, (c, d))
            } else {
                // The board stays as it starts: its links, worked out once.
                s.links(c, d)
            };
            let links = links & !w.shared & if rules.cells { !0 } else { !CELL };
            // Most false facts have no link left that could make anything new.
            if links == 0 {
                continue;
            }
            self.strong(s, (c, d), links);
            for k in 0..self.made.len() {
                let g = self.made[k].0;
                if let Some(j) = self.reached(g ^ 1) {
                    let n = self.made_node(k, i);
                    return Some((n, j));
                }
                if self.reached(g).is_none() {
                    let n = self.made_node(k, i);
                    let (c, d) = self.mark(g, n);
                    self.on.0.push(Waiting::new(n, c, d));
                }
            }
        }
    }

    /// Records node `n` as the one that reached fact `f`; the fact's cell and digit.
    #[inline]
    fn mark(&mut self, f: Fact, n: u32) -> (usize, usize) {
        self.index[usize::from(f)] = n;
        let (c, d, on) = parts(f);
        self.shown[usize::from(on)][d] |= BIT[c];
        (c, d)
    }

    /// Follows true node `i` when none of the false facts it makes ([`Search::weak`]) is
    /// shown true already, as is most often the case: each new one becomes a node, in that
    /// order, waiting to be followed. Whether it did (else nothing changed).
    fn follow_unopposed(
        &mut self,
        s: &Start,
        i: u32,
        (c, d): (usize, usize),
        rules: Rules,
    ) -> bool {
        let cell = if rules.cells {
            self.masks[c] & !(1 << d)
        } else {
            0
        };
        let [row, col, bx] = s.tables.house_sets[c];
        let places = self.cand[d] & s.tables.peers[c];
        if places & self.shown[1][d] != 0 {
            return false;
        }
        let mut m = cell;
        while m != 0 {
            let e = m.trailing_zeros() as usize;
            m &= m - 1;
            if has(self.shown[1][e], c) {
                return false;
            }
        }
        let depth = self.nodes[i as usize].depth.saturating_add(1);
        // Every fact made here has the one parent `i`: its nodes share one parent entry.
        let first = self.parents.len() as u32;
        self.parents.push(i);
        let mut m = cell;
        while m != 0 {
            let e = m.trailing_zeros() as usize;
            m &= m - 1;
            if !has(self.shown[0][e], c) {
                self.shown[0][e] |= BIT[c];
                self.made_off(c, e, (first, depth), CELL);
            }
        }
        let fresh = places & !self.shown[0][d];
        self.shown[0][d] |= fresh;
        // A place in the box may share its row or column with the true fact as well.
        for q in cells(fresh & bx) {
            let line = (u8::from(has(row, q)) * ROW) | (u8::from(has(col, q)) * COL);
            self.made_off(q, d, (first, depth), BOX | line);
        }
        for (set, shared) in [(fresh & row & !bx, ROW), (fresh & col & !bx, COL)] {
            for q in cells(set) {
                self.made_off(q, d, (first, depth), shared);
            }
        }
        true
    }

    /// A node for the new false fact (`c`, `d`) made by a true node, its parent list at
    /// `first`, `depth` deep, waiting to be followed, sharing links `shared` with it (the
    /// caller marks it shown).
    #[inline]
    fn made_off(&mut self, c: usize, d: usize, (first, depth): (u32, u8), shared: u8) {
        let n = self.nodes.len() as u32;
        let f = fact(c, d, false);
        self.nodes.push(Node {
            fact: f,
            count: 1,
            depth,
            first,
        });
        self.index[usize::from(f)] = n;
        self.off.0.push(Waiting::sharing(n, c, d, shared));
    }

    /// The false facts of the true fact (`c`, `d`), into `made`.
    fn weak(&mut self, s: &Start, (c, d): (usize, usize), rules: Rules) {
        self.made.clear();
        if rules.cells {
            let mut m = self.masks[c] & !(1 << d);
            while m != 0 {
                self.made
                    .push((fact(c, m.trailing_zeros() as usize, false), 0, 0));
                m &= m - 1;
            }
        }
        let [row, col, bx] = s.tables.house_sets[c];
        let places = self.cand[d] & !BIT[c];
        for set in [places & bx, places & row & !bx, places & col & !bx] {
            let mut rest = set;
            while rest != 0 {
                let q = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.made.push((fact(q, d, false), 0, 0));
            }
        }
    }

    /// The true facts of the false fact (`c`, `d`), into `made` (each once, the first way found), with
    /// the hidden parents of each way: the earlier false facts that struck the candidates
    /// the way counts on (cell, box, row, column). A static search strikes nothing, so has
    /// none; a dynamic one has struck (`c`, `d`) itself already. Only `links` are followed.
    fn strong(&mut self, s: &Start, (c, d): (usize, usize), links: u8) {
        self.made.clear();
        self.hidden.clear();
        if links & CELL != 0 {
            let e = (self.masks[c] & !(1 << d)).trailing_zeros() as usize;
            if self.settled(c, e) {
                return self.strong_houses(s, c, d, links);
            }
            let a = self.hidden.len() as u32;
            let mut gone = s.digits(c) & !self.masks[c] & !(1 << d);
            while gone != 0 {
                let g = gone.trailing_zeros() as usize;
                gone &= gone - 1;
                if let Some(p) = self.reached(fact(c, g, false)) {
                    self.hidden.push(p);
                }
            }
            self.made
                .push((fact(c, e, true), a, self.hidden.len() as u32));
        }
        self.strong_houses(s, c, d, links);
    }

    /// Strikes the false fact (`c`, `d`) from the board; its links (see [`ROW`]).
    #[inline]
    fn strike(&mut self, s: &Start, (c, d): (usize, usize)) -> u8 {
        self.cand[d] &= !BIT[c];
        let rest = self.masks[c] & !(1 << d);
        self.masks[c] = rest;
        let places = &mut self.places[d];
        let mut links = u8::from(rest.count_ones() == 1) * CELL;
        for (h, bit) in s.tables.cell_houses[c].into_iter().zip([ROW, COL, BOX]) {
            let p = &mut places[usize::from(h)];
            *p -= 1;
            links |= u8::from(*p == 1) * bit;
        }
        links
    }

    /// Whether the true fact (`c`, `d`) is reached and its opposite is not: made again, it
    /// would change nothing (and a fact met both ways ends the search before it is made).
    #[inline]
    fn settled(&self, c: usize, d: usize) -> bool {
        has(self.shown[1][d], c) && !has(self.shown[0][d], c)
    }

    /// The house links of [`Search::strong`] (those of `links`), into `made` after its
    /// cell link.
    fn strong_houses(&mut self, s: &Start, c: usize, d: usize, links: u8) {
        if links & (ROW | COL | BOX) == 0 {
            return;
        }
        let [row, col, bx] = s.tables.cell_houses[c].map(usize::from);
        // Many leave each other place shown true already: nothing new follows.
        let [row_set, col_set, bx_set] = s.tables.house_sets[c];
        let pair = |bit: u8, set: Set| if links & bit != 0 { set } else { 0 };
        let pairs = pair(BOX, bx_set) | pair(ROW, row_set) | pair(COL, col_set);
        let settled = self.shown[1][d] & !self.shown[0][d];
        if self.cand[d] & pairs & !BIT[c] & !settled == 0 {
            return;
        }
        for (h, bit) in [(bx, BOX), (row, ROW), (col, COL)] {
            if links & bit == 0 {
                continue;
            }
            let house = s.tables.houses[h];
            let others: Set = self.cand[d] & house & !BIT[c];
            let q = others.trailing_zeros() as usize;
            let g = fact(q, d, true);
            if self.settled(q, d) || self.made.iter().any(|&(h, _, _)| h == g) {
                continue;
            }
            let a = self.hidden.len() as u32;
            let mut gone = s.cand[d] & house & !self.cand[d] & !BIT[c];
            while gone != 0 {
                let q = gone.trailing_zeros() as usize;
                gone &= gone - 1;
                if let Some(p) = self.reached(fact(q, d, false)) {
                    self.hidden.push(p);
                }
            }
            self.made.push((g, a, self.hidden.len() as u32));
        }
    }

    /// How many different facts node `i` rests on, itself included (SE's ancestor count).
    pub(crate) fn ancestors(&mut self, i: u32) -> usize {
        self.ancestors_within(i, usize::MAX).unwrap_or(usize::MAX)
    }

    /// [`Search::ancestors`] if `most` or fewer.
    pub(crate) fn ancestors_within(&mut self, i: u32, most: usize) -> Option<usize> {
        ancestors_within(
            &self.nodes,
            &self.parents,
            &mut self.seen,
            &mut self.stack,
            i,
            most,
        )
    }

    /// The facts reached, as cells by truth and digit (those of [`Search::graph`]).
    pub(crate) fn shown(&self) -> &[[Set; 9]; 2] {
        &self.shown
    }

    /// The facts nodes `targets` rest on, written link by link (see [`trail`]).
    pub(crate) fn trail(&self, targets: &[u32]) -> Vec<Link> {
        let targets: Vec<usize> = targets.iter().map(|&i| i as usize).collect();
        trail(
            &targets,
            |i| parts(self.nodes[i].fact),
            |i| {
                let (a, k) = (
                    self.nodes[i].first as usize,
                    usize::from(self.nodes[i].count),
                );
                self.parents[a..a + k].iter().map(|&p| p as usize).collect()
            },
        )
    }
}

/// Whether cell `c` is in `set`, read from the set's 64-bit half that holds it (a 128-bit
/// shift takes several instructions).
#[inline]
fn has(set: Set, c: usize) -> bool {
    let half = if c < 64 {
        set as u64
    } else {
        (set >> 64) as u64
    };
    half >> (c & 63) & 1 != 0
}

/// How many different facts node `i` of a graph (`nodes` with their `parents`) rests on,
/// itself included, if `most` or fewer (found without walking them all when more);
/// `seen` (a bit per fact) and `stack` are scratch.
pub(crate) fn ancestors_within(
    nodes: &[Node],
    parents: &[u32],
    seen: &mut [u64],
    stack: &mut Vec<u32>,
    i: u32,
    most: usize,
) -> Option<usize> {
    seen.iter_mut().for_each(|w| *w = 0);
    stack.clear();
    stack.push(i);
    let mut n = 0;
    while let Some(j) = stack.pop() {
        let node = nodes[j as usize];
        let f = usize::from(node.fact);
        if seen[f / 64] >> (f % 64) & 1 != 0 {
            continue;
        }
        seen[f / 64] |= 1 << (f % 64);
        n += 1;
        if n > most {
            return None;
        }
        let (a, k) = (node.first as usize, usize::from(node.count));
        stack.extend_from_slice(&parents[a..a + k]);
    }
    Some(n)
}
