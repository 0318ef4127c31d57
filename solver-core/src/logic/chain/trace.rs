//! Traced propagation: the implications of one assumption, each with the facts it follows
//! from, so that a chain can be measured (its node count sets the rating) and told.
//!
//! A fact is "digit d is / is not in cell c". Modes follow SE's chain families: X (one digit,
//! strong links in houses), Y (strong links in bivalue cells), XY (both; static forcing
//! chains), dynamic (strong links judged on the board the chain has already changed) and
//! dynamic+ (locked candidates applied inside the chain too).

use std::cell::RefCell;

use super::spare;
use super::state::{NO_CELL, Set, Start, cells};
use super::trail::{Link, trail};

/// Which links a chain may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Single digit: strong links of houses only.
    X,
    /// Bivalue cells only.
    Y,
    /// Single digit, strong links of houses judged on the board as the chain changes it.
    Nishio,
    /// Dynamic, with pointing and claiming inside the chain.
    Plus,
}

/// One fact of a trace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// The cell, 0..81.
    pub(crate) cell: u8,
    /// The digit index, 0..9.
    pub(crate) digit: u8,
    /// Whether the digit is shown to be in the cell (else shown not to be).
    pub(crate) on: bool,
    /// The node's parent when it has one (every static fact), else where its parents start
    /// in the trace's parent list: most facts have one parent, kept here rather than pushed
    /// to the list. The list fits 16 bits: at most 1,458 facts of at most nine parents.
    link: u16,
    /// How many parents the node has.
    parents: u16,
    /// The longest run of parents back to the assumption, the node included: a lower bound
    /// of its ancestors that costs nothing to keep (searches skip facts it already rules out).
    pub(crate) depth: u16,
}

/// An index slot with no node.
const NONE: u16 = u16::MAX;

/// Every implication of one assumption, with parents.
#[derive(Clone)]
pub(crate) struct Trace {
    pub(crate) nodes: Vec<Node>,
    parents: Vec<u16>,
    index: Vec<u16>,
    /// Cells where each digit was shown true.
    pub(crate) on: [Set; 9],
    /// Cells where each digit was shown false.
    pub(crate) off: [Set; 9],
    /// The digits shown false in each cell ([`Trace::off`] by cell): a dynamic chain asks
    /// after every false fact whether its cell has one digit left.
    gone: [u16; 81],
    /// The facts that contradict each other, when the assumption is false.
    pub(crate) contradiction: Option<Nodes>,
    /// Nodes a contradiction counts beyond its facts: an emptied cell or house stands for the
    /// last candidate's being both true and false, one fact more in SE's count.
    pub(crate) extra: usize,
    /// Whether to go on past a contradiction (unary chains look for one particular fact).
    go_on: bool,
    /// Whether propagation stops: a contradiction, not gone on past (asked for every fact
    /// added, so kept rather than worked out).
    stop: bool,
    /// The first node left unfollowed at a depth limit ([`trace_static_within`]).
    pub(crate) cut: Option<usize>,
    /// Each digit's `off` when [`locked`] last looked at it: with no place of it shown false
    /// since, it finds nothing new.
    locked_at: [Set; 9],
}

/// Words of a set of facts or of trace nodes (a trace holds each fact at most once).
pub(crate) const FACT_WORDS: usize = (81 * 9 * 2usize).div_ceil(64);

/// A set of facts, bit [`key`] each, or of a trace's nodes.
pub(crate) type Facts = [u64; FACT_WORDS];

/// The index slot of a fact.
fn key(c: usize, d: usize, on: bool) -> usize {
    (c * 9 + d) * 2 + usize::from(on)
}

/// A dropped trace's buffers: nodes, parents and index (its fact sets are not worth keeping:
/// a new trace starts them empty).
type Buffers = (Vec<Node>, Vec<u16>, Vec<u16>);

thread_local! {
    /// Buffers of dropped traces that the next searches reuse: a search makes hundreds of
    /// traces per step, and allocating them cost as much as tracing.
    static SPARE: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Trace {
    fn drop(&mut self) {
        if self.index.is_empty() {
            return;
        }
        // Only the buffers move (the trace itself is large, most of it fact sets).
        let mut buffers = (
            std::mem::take(&mut self.nodes),
            std::mem::take(&mut self.parents),
            std::mem::take(&mut self.index),
        );
        buffers.0.clear();
        buffers.1.clear();
        spare::give(&SPARE, buffers);
    }
}

impl Trace {
    /// An empty trace, with the buffers of a dropped one when the thread has one.
    pub(crate) fn new() -> Trace {
        // Stale index slots are harmless: see [`Trace::clear`].
        let (nodes, parents, index) = spare::take(&SPARE).unwrap_or_else(|| {
            (
                Vec::with_capacity(256),
                Vec::with_capacity(512),
                vec![NONE; 81 * 9 * 2],
            )
        });
        // One literal, so that the trace is made where it goes rather than copied there.
        Trace {
            nodes,
            parents,
            index,
            on: [0; 9],
            off: [0; 9],
            gone: [0; 81],
            contradiction: None,
            go_on: false,
            stop: false,
            extra: 0,
            cut: None,
            locked_at: [Set::MAX; 9],
        }
    }

    /// Empties the trace, keeping its buffers. The index keeps its stale slots: a slot is
    /// read only where the fact's bit in `on` or `off` says it was written for this trace.
    pub(crate) fn clear(&mut self) {
        self.nodes.clear();
        self.parents.clear();
        self.on = [0; 9];
        self.off = [0; 9];
        self.gone = [0; 81];
        self.contradiction = None;
        self.extra = 0;
        self.go_on = false;
        self.stop = false;
        self.cut = None;
        self.locked_at = [Set::MAX; 9];
    }

    /// The node of a fact, if derived.
    #[inline]
    pub(crate) fn find(&self, c: usize, d: usize, on: bool) -> Option<u16> {
        self.holds(c, d, on).then(|| self.index[key(c, d, on)])
    }

    /// Whether the trace holds a fact (its bit, which says the fact's index slot is valid).
    #[inline]
    fn holds(&self, c: usize, d: usize, on: bool) -> bool {
        let facts = if on { &self.on } else { &self.off };
        facts[d] >> c & 1 != 0
    }

    /// Parents of a node.
    fn parents_of(&self, i: u16) -> &[u16] {
        let n = &self.nodes[i as usize];
        if n.parents == 1 {
            return std::slice::from_ref(&n.link);
        }
        let start = n.link as usize;
        &self.parents[start..start + n.parents as usize]
    }

    /// Adds a fact (once) with its parents; a fact whose opposite holds is a contradiction.
    fn add(&mut self, c: usize, d: usize, on: bool, parents: &[u16]) {
        if self.holds(c, d, on) || self.stopped() {
            return;
        }
        let start = self.parents.len();
        let mut depth = 0;
        // One at a time: a dynamic fact has at most nine, too few for a copy call.
        for &p in parents {
            depth = depth.max(self.nodes[usize::from(p)].depth);
            self.parents.push(p);
        }
        self.push_node((c, d, on), start, depth);
    }

    /// [`Trace::add`] for a fact whose parents are the facts at `keys` (every one held), read
    /// straight from the index: the dynamic facts, most of them with several parents.
    #[inline(always)]
    fn add_keyed(&mut self, (c, d, on): (usize, usize, bool), keys: impl Iterator<Item = usize>) {
        if self.holds(c, d, on) || self.stopped() {
            return;
        }
        let start = self.parents.len();
        let mut depth = 0;
        for k in keys {
            let p = self.index[k];
            depth = depth.max(self.nodes[usize::from(p)].depth);
            self.parents.push(p);
        }
        self.push_node((c, d, on), start, depth);
    }

    /// Pushes the node of a fact whose parents are `self.parents[start..]`, the deepest at
    /// `depth`: a lone parent moves into the node (see [`Node::link`]).
    #[inline(always)]
    fn push_node(&mut self, (c, d, on): (usize, usize, bool), start: usize, depth: u16) {
        let count = self.parents.len() - start;
        let link = match (count, self.parents.last()) {
            (1, Some(&p)) => {
                self.parents.pop();
                p
            }
            _ => start as u16,
        };
        self.nodes.push(Node {
            cell: c as u8,
            digit: d as u8,
            on,
            link,
            parents: 0,
            depth: 1 + depth,
        });
        self.settle(c, d, on, count);
    }

    /// [`Trace::add`] for a fact with one parent (its node and depth, which the caller has
    /// at hand), the links of every static chain (no slice to copy).
    #[inline(always)]
    fn add_one(&mut self, c: usize, d: usize, on: bool, (parent, depth): (u16, u16)) {
        // The hot path of every trace: the fact's own and opposite sets say whether it is
        // new and whether it clashes, without the index.
        let bit: Set = 1 << c;
        let (mine, theirs) = if on {
            (self.on[d], self.off[d])
        } else {
            (self.off[d], self.on[d])
        };
        if mine & bit != 0 || self.stopped() {
            return;
        }
        let i = self.nodes.len() as u16;
        self.nodes.push(Node {
            cell: c as u8,
            digit: d as u8,
            on,
            link: parent,
            parents: 1,
            depth: 1 + depth,
        });
        self.index[key(c, d, on)] = i;
        if on {
            self.on[d] |= bit;
        } else {
            self.off[d] |= bit;
            self.gone[c] |= 1 << d;
        }
        if theirs & bit != 0 {
            let j = self.index[key(c, d, !on)];
            self.clash(Nodes::of([j, i].into_iter()));
        }
    }

    /// [`Trace::add_one`] for the removal of digit index `d` from each of `places` (none shown
    /// false yet), lowest first, in one pass: a true fact's peers, most of every trace.
    #[inline(always)]
    fn add_offs(&mut self, d: usize, places: Set, (parent, depth): (u16, u16)) {
        if places == 0 || self.stopped() {
            return;
        }
        let depth = 1 + depth;
        // Only the first clash is recorded, and one that does not go on stops at it.
        let clashes = if self.contradiction.is_none() {
            places & self.on[d]
        } else {
            0
        };
        let take = if clashes != 0 && !self.go_on {
            places & ((2 << clashes.trailing_zeros()) - 1)
        } else {
            places
        };
        for c in cells(take) {
            self.index[key(c, d, false)] = self.nodes.len() as u16;
            self.nodes.push(Node {
                cell: c as u8,
                digit: d as u8,
                on: false,
                link: parent,
                parents: 1,
                depth,
            });
            self.gone[c] |= 1 << d;
        }
        self.off[d] |= take;
        if clashes != 0 {
            let q = clashes.trailing_zeros() as usize;
            let (j, i) = (self.index[key(q, d, true)], self.index[key(q, d, false)]);
            self.clash(Nodes::of([j, i].into_iter()));
        }
    }

    /// Indexes the node just pushed with its `parents`; a fact whose opposite holds is a
    /// contradiction.
    #[inline]
    fn settle(&mut self, c: usize, d: usize, on: bool, parents: usize) {
        let i = (self.nodes.len() - 1) as u16;
        self.nodes[usize::from(i)].parents = parents as u16;
        self.index[key(c, d, on)] = i;
        if on {
            self.on[d] |= 1 << c;
        } else {
            self.off[d] |= 1 << c;
            self.gone[c] |= 1 << d;
        }
        if let Some(j) = self.find(c, d, !on) {
            self.clash(Nodes::of([j, i].into_iter()));
        }
    }

    /// Records the first contradiction.
    fn clash(&mut self, nodes: Nodes) {
        self.contradiction.get_or_insert(nodes);
        self.stop = !self.go_on;
    }

    /// Records a cell or house left empty by `offs`.
    fn empty(&mut self, offs: Nodes) {
        if self.contradiction.is_none() {
            self.extra = 2;
        }
        self.clash(offs);
    }

    /// The number of facts a contradiction rests on, in SE's count.
    pub(crate) fn clash_size(&self) -> usize {
        self.contradiction
            .as_ref()
            .map_or(0, |c| self.ancestors(c) + self.extra)
    }

    /// Whether propagation stops here.
    fn stopped(&self) -> bool {
        self.stop
    }

    /// The number of facts the given nodes rest on, themselves included.
    pub(crate) fn ancestors(&self, targets: &[u16]) -> usize {
        let mut count = 0;
        self.sweep(targets, |_| count += 1);
        count
    }

    /// Calls `visit` once on each node the targets rest on, themselves included, last first.
    pub(crate) fn sweep(&self, targets: &[u16], mut visit: impl FnMut(&Node)) {
        // Parents come before their children, so one sweep down from the last target marks
        // every ancestor (no stack, and the marks live on the stack).
        let mut seen: Facts = [0; FACT_WORDS];
        let Some(&top) = targets.iter().max() else {
            return;
        };
        for &i in targets {
            seen[usize::from(i) / 64] |= 1 << (i % 64);
        }
        let mut w = usize::from(top) / 64;
        loop {
            while seen[w] != 0 {
                let b = 63 - seen[w].leading_zeros() as usize;
                seen[w] &= !(1 << b);
                let i = (w * 64 + b) as u16;
                visit(&self.nodes[usize::from(i)]);
                for &p in self.parents_of(i) {
                    seen[usize::from(p) / 64] |= 1 << (p % 64);
                }
            }
            if w == 0 {
                return;
            }
            w -= 1;
        }
    }

    /// The facts nodes `targets` rest on, written link by link (see [`trail`]).
    pub(crate) fn trail(&self, targets: &[u16]) -> Vec<Link> {
        let targets: Vec<usize> = targets.iter().map(|&i| usize::from(i)).collect();
        trail(
            &targets,
            |i| {
                let n = &self.nodes[i];
                (usize::from(n.cell), usize::from(n.digit), n.on)
            },
            |i| {
                self.parents_of(i as u16)
                    .iter()
                    .map(|&p| usize::from(p))
                    .collect()
            },
        )
    }
}

/// The implications of an assumption into a trace that is cleared first, so that searches that look at one
/// trace at a time reuse its buffers.
pub(crate) fn trace_into(
    t: &mut Trace,
    start: &Start,
    fact: (usize, usize, bool),
    mode: Mode,
    go_on: bool,
) {
    run(t, start, fact, mode, go_on, u16::MAX);
}

/// The propagation of [`trace_into`], following only facts of depth below `limit`.
fn run(
    t: &mut Trace,
    start: &Start,
    (c, d, on): (usize, usize, bool),
    mode: Mode,
    go_on: bool,
    limit: u16,
) {
    t.clear();
    t.go_on = go_on;
    t.add(c, d, on, &[]);
    follow(t, start, mode, 0, limit);
}

/// Follows the trace's facts from node `from` on, up to depth `limit` (excluded).
fn follow(t: &mut Trace, start: &Start, mode: Mode, from: usize, limit: u16) {
    // One copy of the loop per mode, each with its mode a constant: the tests of the mode
    // that every fact made are then gone.
    match mode {
        Mode::X => follow_as(t, start, Mode::X, from, limit),
        Mode::Y => follow_as(t, start, Mode::Y, from, limit),
        Mode::Nishio => follow_as(t, start, Mode::Nishio, from, limit),
        Mode::Plus => follow_as(t, start, Mode::Plus, from, limit),
    }
}

/// [`follow`], inlined into each of its mode's arms.
#[inline(always)]
fn follow_as(t: &mut Trace, start: &Start, mode: Mode, from: usize, limit: u16) {
    let mut i = from;
    loop {
        while i < t.nodes.len() && !t.stopped() {
            let n = t.nodes[i];
            // Only static traces are given a depth limit (see `trace_static_within`).
            if matches!(mode, Mode::X | Mode::Y) && n.depth >= limit {
                t.cut = Some(i);
                return;
            }
            if n.on {
                follow_on(t, start, i as u16, n, mode);
            } else {
                follow_off(t, start, i as u16, n, mode);
            }
            i += 1;
        }
        if t.stopped() || mode != Mode::Plus || !locked(t, start) {
            return;
        }
    }
}

/// A true fact removes the cell's other digits and the digit from the cell's peers.
#[inline(always)]
fn follow_on(t: &mut Trace, start: &Start, i: u16, n: Node, mode: Mode) {
    let (c, d) = (n.cell as usize, n.digit as usize);
    if !matches!(mode, Mode::X | Mode::Nishio) {
        let mut others = start.digits(c) & !(1 << d);
        while others != 0 {
            let e = others.trailing_zeros() as usize;
            others &= others - 1;
            t.add_one(c, e, false, (i, n.depth));
        }
    }
    // Peers already shown false would be skipped by `add`; leaving them out saves the calls.
    t.add_offs(
        d,
        start.cand[d] & start.tables.peers[c] & !t.off[d],
        (i, n.depth),
    );
}

/// A false fact may leave one digit in its cell or one place for its digit in a house.
#[inline(always)]
fn follow_off(t: &mut Trace, start: &Start, i: u16, n: Node, mode: Mode) {
    let (c, d) = (n.cell as usize, n.digit as usize);
    if matches!(mode, Mode::Nishio | Mode::Plus) {
        if mode != Mode::Nishio {
            dynamic_cell(t, start, c);
        }
        // The digit's places left: the facts the houses add are true ones, which leave
        // them as they are.
        let places = start.cand[d] & !t.off[d];
        for house in start.tables.house_sets[c] {
            dynamic_house(t, start, house, d, places);
        }
        return;
    }
    // Static links: the other candidate of a bivalue cell, the other place of a bilocal
    // digit, whatever else the chain has shown (SE's implication graph).
    let all = start.digits(c);
    if mode != Mode::X && all.count_ones() == 2 {
        t.add_one(
            c,
            (all & !(1 << d)).trailing_zeros() as usize,
            true,
            (i, n.depth),
        );
    }
    if mode == Mode::Y {
        return;
    }
    for p in start.bilocal(c, d) {
        if p != NO_CELL {
            t.add_one(usize::from(p), d, true, (i, n.depth));
        }
    }
}

/// On the board the chain has changed: a cell with one digit left holds it; with none, the
/// assumption is false.
#[inline(always)]
fn dynamic_cell(t: &mut Trace, start: &Start, c: usize) {
    let all = start.digits(c);
    // Only candidates are ever shown false.
    let gone = t.gone[c];
    let left = all & !gone;
    // Two digits or more left, or the last one already known: nothing new follows (the
    // common case, so nothing is allocated).
    if left & left.wrapping_sub(1) != 0
        || (left != 0 && t.find(c, left.trailing_zeros() as usize, true).is_some())
    {
        return;
    }
    cell_fact(t, c, gone, left);
}

/// [`dynamic_cell`] where cell `c` has one digit `left` (or none), the others `gone`: out of
/// line, as the quick test before it runs far more often.
#[inline(never)]
fn cell_fact(t: &mut Trace, c: usize, gone: u16, left: u16) {
    // Every digit of `gone` is shown false, so each has its node.
    let mut rest = gone;
    let keys = std::iter::from_fn(move || {
        let e = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        (e < 9).then(|| key(c, e, false))
    });
    if left == 0 {
        let offs = Nodes::of(keys.map(|k| t.index[k]));
        t.empty(offs);
    } else {
        t.add_keyed((c, left.trailing_zeros() as usize, true), keys);
    }
}

/// On the board the chain has changed (digit index `d` left in `places`): a digit with one
/// place left in `house` goes there; with none, the assumption is false.
#[inline(always)]
fn dynamic_house(t: &mut Trace, start: &Start, house: Set, d: usize, places: Set) {
    let left = places & house;
    // Two places or more left, or the last one already known: nothing new follows (the
    // common case, so nothing is allocated).
    if left & left.wrapping_sub(1) != 0 || t.on[d] & left != 0 {
        return;
    }
    house_fact(t, start.cand[d] & house, left, d);
}

/// [`dynamic_house`] where the house has one place `left` for digit index `d` (or none):
/// out of line, as the quick test before it runs some twenty times as often.
#[inline(never)]
fn house_fact(t: &mut Trace, all: Set, left: Set, d: usize) {
    // Every place but `left` is shown false, so each has its node.
    let keys = cells(all & t.off[d]).map(move |q| key(q, d, false));
    if left == 0 {
        let offs = Nodes::of(keys.map(|k| t.index[k]));
        t.empty(offs);
    } else {
        t.add_keyed((left.trailing_zeros() as usize, d, true), keys);
    }
}

/// The nodes a dynamic fact or a contradiction rests on: at most nine (a cell's digits, a
/// house's places), on the stack (a list each cost an allocation).
#[derive(Clone, Copy)]
pub(crate) struct Nodes {
    list: [u16; 9],
    len: usize,
}

impl Nodes {
    fn of(nodes: impl Iterator<Item = u16>) -> Nodes {
        let mut out = Nodes {
            list: [0; 9],
            len: 0,
        };
        for i in nodes {
            out.list[out.len] = i;
            out.len += 1;
        }
        out
    }
}

impl std::ops::Deref for Nodes {
    type Target = [u16];

    fn deref(&self) -> &[u16] {
        &self.list[..self.len]
    }
}

/// Pointing and claiming on the board as the chain left it; whether a fact was added.
fn locked(t: &mut Trace, start: &Start) -> bool {
    let tb = start.tables;
    let before = t.nodes.len();
    for d in 0..9 {
        if t.locked_at[d] == t.off[d] {
            continue;
        }
        t.locked_at[d] = t.off[d];
        let cand = start.cand[d] & !t.off[d];
        for &(bx, ln) in &tb.crossings {
            for (from, to) in [(bx, ln), (ln, bx)] {
                let p = cand & from;
                let gone = cand & to & !from;
                if p == 0 || p & !to != 0 || gone == 0 {
                    continue;
                }
                // The pattern rests on the digit's removal from the rest of `from`.
                let offs = Nodes::of(
                    cells(start.cand[d] & from & !to & t.off[d])
                        .filter_map(|q| t.find(q, d, false)),
                );
                for q in cells(gone) {
                    t.add(q, d, false, &offs);
                }
            }
        }
    }
    t.nodes.len() > before
}
