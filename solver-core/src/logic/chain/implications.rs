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

use super::state::{Set, Start};
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

/// One search's facts, each with the facts it rests on.
pub(crate) struct Search {
    /// Nodes: the fact, and where its parents start in `parents` and how many.
    facts: Vec<Fact>,
    first: Vec<u32>,
    count: Vec<u8>,
    parents: Vec<u32>,
    /// The node of each fact reached (the first one), or [`NONE`].
    index: Vec<u32>,
    on: std::collections::VecDeque<u32>,
    off: std::collections::VecDeque<u32>,
    /// The board as the chain has left it: each digit's places, each cell's digits.
    cand: [Set; 9],
    masks: [u16; 81],
    /// Facts a fact makes, each with its hidden parents at `hidden[start..end]`.
    made: Vec<(Fact, u32, u32)>,
    hidden: Vec<u32>,
    seen: Vec<u64>,
    stack: Vec<u32>,
}

impl Search {
    pub(crate) fn new() -> Search {
        Search {
            facts: Vec::with_capacity(512),
            first: Vec::with_capacity(512),
            count: Vec::with_capacity(512),
            parents: Vec::with_capacity(1024),
            index: vec![NONE; FACTS],
            on: Default::default(),
            off: Default::default(),
            cand: [0; 9],
            masks: [0; 81],
            made: Vec::with_capacity(32),
            hidden: Vec::with_capacity(32),
            seen: vec![0; FACTS.div_ceil(64)],
            stack: Vec::with_capacity(256),
        }
    }

    fn reset(&mut self, s: &Start) {
        for &f in &self.facts {
            self.index[usize::from(f)] = NONE;
        }
        self.facts.clear();
        self.first.clear();
        self.count.clear();
        self.parents.clear();
        self.on.clear();
        self.off.clear();
        self.cand = s.cand;
        for (c, m) in self.masks.iter_mut().enumerate() {
            *m = s.digits(c);
        }
    }

    fn node(&mut self, f: Fact, parents: &[u32]) -> u32 {
        self.facts.push(f);
        self.first.push(self.parents.len() as u32);
        self.count.push(parents.len() as u8);
        self.parents.extend_from_slice(parents);
        (self.facts.len() - 1) as u32
    }

    /// A node made by `made[k]` from node `i`: `i`, then the hidden parents.
    fn made_node(&mut self, k: usize, i: u32) -> u32 {
        let (f, a, b) = self.made[k];
        self.facts.push(f);
        self.first.push(self.parents.len() as u32);
        self.count.push((1 + b - a) as u8);
        self.parents.push(i);
        for h in a..b {
            let p = self.hidden[h as usize];
            self.parents.push(p);
        }
        (self.facts.len() - 1) as u32
    }

    /// The node that reached fact `f`, if any.
    pub(crate) fn reached(&self, f: Fact) -> Option<u32> {
        let i = self.index[usize::from(f)];
        (i != NONE).then_some(i)
    }

    /// The search's nodes (fact, where its parents start, how many) and parent lists, less
    /// a contradiction's last node, which no fact's index names (see [`Search::reached`]).
    pub(crate) fn graph(&self) -> (&[Fact], &[u32], &[u8], &[u32]) {
        let mut n = self.facts.len();
        if let Some(&f) = self.facts.last() {
            if self.index[usize::from(f)] != (n - 1) as u32 {
                n -= 1;
            }
        }
        let parents = self
            .first
            .get(n)
            .map_or(self.parents.len(), |&a| a as usize);
        (
            &self.facts[..n],
            &self.first[..n],
            &self.count[..n],
            &self.parents[..parents],
        )
    }

    /// Runs from the assumption `start` until done or a fact is met both ways; then the
    /// nodes of the true and the false one.
    pub(crate) fn run(&mut self, s: &Start, start: Fact, rules: Rules) -> Option<(u32, u32)> {
        self.reset(s);
        let root = self.node(start, &[]);
        self.index[usize::from(start)] = root;
        if parts(start).2 {
            self.on.push_back(root);
        } else {
            self.off.push_back(root);
        }
        loop {
            if let Some(i) = self.on.pop_front() {
                self.weak(s, i, rules);
                for k in 0..self.made.len() {
                    let g = self.made[k].0;
                    if let Some(j) = self.reached(g ^ 1) {
                        let n = self.made_node(k, i);
                        return Some((j, n));
                    }
                    if self.reached(g).is_none() {
                        let n = self.made_node(k, i);
                        self.index[usize::from(g)] = n;
                        self.off.push_back(n);
                    }
                }
                continue;
            }
            let i = self.off.pop_front()?;
            self.strong(s, i, rules);
            if rules.dynamic {
                let (c, d, _) = parts(self.facts[i as usize]);
                self.cand[d] &= !(1 << c);
                self.masks[c] &= !(1 << d);
            }
            for k in 0..self.made.len() {
                let g = self.made[k].0;
                if let Some(j) = self.reached(g ^ 1) {
                    let n = self.made_node(k, i);
                    return Some((n, j));
                }
                if self.reached(g).is_none() {
                    let n = self.made_node(k, i);
                    self.index[usize::from(g)] = n;
                    self.on.push_back(n);
                }
            }
        }
    }

    /// The false facts of true node `i`, into `made`.
    fn weak(&mut self, s: &Start, i: u32, rules: Rules) {
        let (c, d, _) = parts(self.facts[i as usize]);
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
        let places = self.cand[d] & !(1 << c);
        for set in [places & bx, places & row & !bx, places & col & !bx] {
            let mut rest = set;
            while rest != 0 {
                let q = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.made.push((fact(q, d, false), 0, 0));
            }
        }
    }

    /// The true facts of false node `i`, into `made` (each once, the first way found), with
    /// the hidden parents of each way: the earlier false facts that struck the candidates
    /// the way counts on (cell, box, row, column). A static search strikes nothing, so has
    /// none.
    fn strong(&mut self, s: &Start, i: u32, rules: Rules) {
        let (c, d, _) = parts(self.facts[i as usize]);
        self.made.clear();
        self.hidden.clear();
        if rules.cells && self.masks[c].count_ones() == 2 {
            let e = (self.masks[c] & !(1 << d)).trailing_zeros() as usize;
            let a = self.hidden.len() as u32;
            let mut gone = s.digits(c) & !self.masks[c];
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
        let [row, col, bx] = s.tables.house_sets[c];
        for house in [bx, row, col] {
            let others: Set = self.cand[d] & house & !(1 << c);
            if others.count_ones() != 1 {
                continue;
            }
            let g = fact(others.trailing_zeros() as usize, d, true);
            if self.made.iter().any(|&(h, _, _)| h == g) {
                continue;
            }
            let a = self.hidden.len() as u32;
            let mut gone = s.cand[d] & house & !self.cand[d];
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
        self.seen.iter_mut().for_each(|w| *w = 0);
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(i);
        let mut n = 0;
        while let Some(j) = stack.pop() {
            let f = usize::from(self.facts[j as usize]);
            if self.seen[f / 64] >> (f % 64) & 1 != 0 {
                continue;
            }
            self.seen[f / 64] |= 1 << (f % 64);
            n += 1;
            let (a, k) = (
                self.first[j as usize] as usize,
                self.count[j as usize] as usize,
            );
            stack.extend_from_slice(&self.parents[a..a + k]);
        }
        self.stack = stack;
        n
    }

    /// The facts nodes `targets` rest on, written link by link (see [`trail`]).
    pub(crate) fn trail(&self, targets: &[u32]) -> Vec<Link> {
        let targets: Vec<usize> = targets.iter().map(|&i| i as usize).collect();
        trail(
            &targets,
            |i| parts(self.facts[i]),
            |i| {
                let (a, k) = (self.first[i] as usize, self.count[i] as usize);
                self.parents[a..a + k].iter().map(|&p| p as usize).collect()
            },
        )
    }
}
