//! Static forcing chains inside a nested chain's branch: the facts one assumption implies
//! through static links on the branch's board (a true digit removes its peers and its cell's
//! other digits; a false digit makes true the other digit of a bivalue cell and the other
//! place of a digit with two places in a house), with the board left as it is.
//!
//! A branch at SE's nesting level 2 removes each candidate whose assumption leads back to its
//! own absence (forcing X-, Y- and XY-chains, and the cycles, which such chains cover) and
//! sets each whose absence leads back to itself. At level 3, when those find nothing, it
//! applies static multiple forcing chains: a fact that every digit of a cell with three or
//! more digits leads to, or every place of a digit in a house whose first place is such a
//! cell (the cells and houses SE's static multiple chains start from), holds.

use std::cell::Cell;

use super::state::{BIT, Set, State, cells, tables};

/// Which static chains a branch applies once nothing simpler moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Statics {
    /// Forcing chains: an assumption that leads to its own opposite is refuted.
    Forcing,
    /// Forcing chains, else cell and region forcing chains.
    Multiple,
}

/// Where a multiple forcing chain starts: each digit of a cell, or each place of a digit
/// (index) in a house.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Source {
    /// Every digit of the cell.
    Cell(usize),
    /// Every place of the digit index in the house (given as its cells).
    Region(Set, usize),
}

impl Source {
    /// The assumptions the chains start from: (cell, digit index), all true.
    pub(crate) fn starts(self, s: &State) -> Vec<(usize, usize)> {
        match self {
            Source::Cell(c) => (0..9).filter(|&d| s.has(c, d)).map(|d| (c, d)).collect(),
            Source::Region(house, d) => cells(s.cand[d] & house).map(|c| (c, d)).collect(),
        }
    }
}

/// The changes one pass of static chains makes on a board, found on the board as it was.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Candidates shown false, (cell, digit index), in the order found.
    pub(crate) removed: Vec<(usize, usize)>,
    /// Candidates shown true.
    pub(crate) set: Vec<(usize, usize)>,
    /// From multiple forcing chains: each fact (cell, digit index, true) that all of a
    /// source's chains lead to, with that source (every source, when several lead to it).
    pub(crate) common: Vec<((usize, usize, bool), Source)>,
}

/// Each cell's digits on `s`, worked out once per pass.
pub(crate) fn masks(s: &State) -> [u16; 81] {
    let mut m = [0u16; 81];
    for (d, &set) in s.cand.iter().enumerate() {
        for c in cells(set) {
            m[c] |= 1 << d;
        }
    }
    m
}

/// Calls `visit` for each fact `(c, d, on)` implied directly by one: the other digits of its
/// cell and its digit in its peers for a true one, the strong-link partners for a false one.
pub(crate) fn consequences(
    s: &State,
    masks: &[u16; 81],
    (c, d, on): (usize, usize, bool),
    mut visit: impl FnMut(usize, usize, bool),
) {
    let t = tables();
    if on {
        let mut m = masks[c] & !(1 << d);
        while m != 0 {
            visit(c, m.trailing_zeros() as usize, false);
            m &= m - 1;
        }
        for q in cells(s.cand[d] & t.peers[c]) {
            visit(q, d, false);
        }
        return;
    }
    let m = masks[c] & !(1 << d);
    if masks[c] >> d & 1 != 0 && m.count_ones() == 1 {
        visit(c, m.trailing_zeros() as usize, true);
    }
    for h in t.house_sets[c] {
        let places = s.cand[d] & h;
        if places >> c & 1 != 0 && places.count_ones() == 2 {
            visit((places & !(1 << c)).trailing_zeros() as usize, d, true);
        }
    }
}

/// The facts assuming `start` on `s` leads to by static links, by sign and digit; whether it
/// leads to its own opposite. (The definitions [`pass`] computes for every candidate at once.)
#[cfg(test)]
pub(crate) fn search(
    s: &State,
    masks: &[u16; 81],
    start: (usize, usize, bool),
) -> ([[u128; 9]; 2], bool) {
    // Shown facts by sign and digit, and a queue of facts to follow.
    let mut shown = [[0u128; 9]; 2];
    let mut queue = vec![start];
    let (c0, d0, on0) = start;
    shown[usize::from(on0)][d0] |= 1 << c0;
    let (mut next, mut hit) = (0, false);
    while next < queue.len() {
        let fact = queue[next];
        next += 1;
        consequences(s, masks, fact, |c, d, on| {
            if shown[usize::from(on)][d] >> c & 1 != 0 {
                return;
            }
            hit |= (c, d, !on) == start;
            shown[usize::from(on)][d] |= 1 << c;
            queue.push((c, d, on));
        });
    }
    (shown, hit)
}

/// One pass of static chains over every candidate of `s`: each candidate refuted true is
/// removed, else each refuted false is set (what [`search`] finds for each, found at once
/// from the static links' transitive closure); with [`Statics::Multiple`], when that finds
/// nothing, what [`multiple`] finds.
pub(crate) fn pass(s: &State, statics: Statics) -> Changes {
    let masks = masks(s);
    let graph = Graph::new(s, &masks);
    let reach = graph.reach();
    let reaches = Reaches { graph, reach };
    let mut out = reaches.refuted();
    if statics == Statics::Multiple && out.removed.is_empty() && out.set.is_empty() {
        let Reaches { graph, reach } = &reaches;
        out.common = common(s, &masks, graph, reach);
        let (mut gone, mut placed) = ([0 as Set; 9], [0 as Set; 9]);
        for &((c, d, on), _) in &out.common {
            if on && placed[d] >> c & 1 == 0 {
                placed[d] |= 1 << c;
                out.set.push((c, d));
            } else if !on && gone[d] >> c & 1 == 0 {
                gone[d] |= 1 << c;
                out.removed.push((c, d));
            }
        }
    }
    out
}

/// The sources of multiple forcing chains on `s`, in SE's order: each cell with three or more
/// digits, then each house where that cell is the first place of a digit with two or more.
pub(crate) fn sources(s: &State, masks: &[u16; 81]) -> Vec<Source> {
    let t = tables();
    let mut out = Vec::new();
    for c in cells(s.open()).filter(|&c| masks[c].count_ones() > 2) {
        out.push(Source::Cell(c));
        for d in (0..9).filter(|&d| masks[c] >> d & 1 != 0) {
            // Box, row, column, as SE takes a cell's houses.
            let [row, col, bx] = t.house_sets[c];
            for house in [bx, row, col] {
                let places = s.cand[d] & house;
                if places.count_ones() >= 2 && places.trailing_zeros() as usize == c {
                    out.push(Source::Region(house, d));
                }
            }
        }
    }
    out
}

/// Every fact that all chains of a multiple forcing chain source lead to, with the source.
fn common(
    s: &State,
    masks: &[u16; 81],
    graph: &Graph,
    reach: &Reach,
) -> Vec<((usize, usize, bool), Source)> {
    let mut out = Vec::new();
    let mut all = vec![0u64; reach.words];
    for source in sources(s, masks) {
        all.iter_mut().for_each(|w| *w = u64::MAX);
        let mut and = |c: usize, d: usize| {
            let node = 2 * usize::from(graph.index[c * 9 + d]) + 1;
            all.iter_mut()
                .zip(reach.of(node))
                .for_each(|(a, b)| *a &= b);
        };
        match source {
            Source::Cell(c) => (0..9)
                .filter(|&d| masks[c] >> d & 1 != 0)
                .for_each(|d| and(c, d)),
            Source::Region(house, d) => cells(s.cand[d] & house).for_each(|c| and(c, d)),
        }
        for (k, &word) in all.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let v = k * 64 + w.trailing_zeros() as usize;
                w &= w - 1;
                let (c, d) = graph.candidates[v / 2];
                out.push(((c, d, v & 1 == 1), source));
            }
        }
    }
    out
}

/// What every fact of a board reaches by static links, to tell without a search whether
/// several assumptions can lead to a common fact (a static search from each reaches at
/// most what the closure says, less when it stops at a contradiction).
pub(crate) struct Reaches {
    graph: Graph,
    reach: Reach,
}

impl Reaches {
    /// The closure of the static links of `s`.
    pub(crate) fn new(s: &State) -> Reaches {
        let graph = Graph::new(s, &masks(s));
        let reach = graph.reach();
        Reaches { graph, reach }
    }

    /// The candidates refuted true (removed), else refuted false (set): what [`pass`]
    /// finds with forcing chains.
    pub(crate) fn refuted(&self) -> Changes {
        let mut out = Changes::default();
        for (i, &(c, d)) in self.graph.candidates.iter().enumerate() {
            if self.reach.refutes(2 * i + 1) {
                out.removed.push((c, d));
            } else if self.reach.refutes(2 * i) {
                out.set.push((c, d));
            }
        }
        out
    }

    /// For each candidate (by `cell * 9 + digit`), the digits (bit `e`) of the candidates
    /// refuted true whose truth leads both to its truth and to its absence, where its truth
    /// lies on a loop of links (0 elsewhere). A loop through a candidate's truth removes a
    /// candidate of digit `e` only so: the removed one is refuted true, its truth leads into
    /// the loop's contrapositive, which passes through the candidate's absence and leads on
    /// to the removed one's absence (whose contrapositive leads from its truth to the
    /// candidate's truth).
    pub(crate) fn loop_starts(&self) -> Vec<u16> {
        let (words, n) = (self.reach.words, self.graph.candidates.len());
        let mut size = vec![0u32; n * 2];
        for &k in &self.reach.comp {
            size[k as usize] += 1;
        }
        // Per digit, the candidates (bit `2 * i`) whose truth and absence a candidate of
        // that digit refuted true both lead to.
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let mut from = vec![0u64; 9 * words];
        for (i, &(_, d)) in self.graph.candidates.iter().enumerate() {
            if self.reach.refutes(2 * i + 1) {
                let into = &mut from[d * words..(d + 1) * words];
                into.iter_mut()
                    .zip(self.reach.of(2 * i + 1))
                    .for_each(|(a, &b)| *a |= b & (b >> 1) & EVEN);
            }
        }
        let mut out = vec![0u16; 81 * 9];
        for (i, &(c, d)) in self.graph.candidates.iter().enumerate() {
            if size[self.reach.comp[2 * i + 1] as usize] < 2 {
                continue;
            }
            let absent = 2 * i;
            for e in 0..9 {
                if from[e * words + absent / 64] >> (absent % 64) & 1 != 0 {
                    out[c * 9 + d] |= 1 << e;
                }
            }
        }
        out
    }

    /// Whether the true facts `starts` (cell, digit index; candidates of the board) all
    /// reach some one fact.
    pub(crate) fn share(&self, starts: impl IntoIterator<Item = (usize, usize)>) -> bool {
        let mut all = [u64::MAX; 1 + 2 * 81 * 9 / 64];
        let all = &mut all[..self.reach.words];
        for (c, d) in starts {
            let node = 2 * usize::from(self.graph.index[c * 9 + d]) + 1;
            all.iter_mut()
                .zip(self.reach.of(node))
                .for_each(|(a, b)| *a &= b);
        }
        all.iter().any(|&w| w != 0)
    }
}

/// The closure read by fact, `(cell * 9 + digit) * 2 + on`, as the static chain searches
/// ask it: which facts lie on a loop together, which lead to a given one.
pub(crate) struct ByFact<'a> {
    bits: &'a [u64],
    /// Per fact: its node, its component, where its row starts in `bits` ([`NO_ROW`] for
    /// an absence that implies nothing). A fact that is not a candidate keeps what an earlier
    /// board left: no search reads it.
    node: Vec<u16>,
    comp: Vec<u32>,
    row: Vec<u32>,
}

/// A node as a word of [`Reach::bits`] and a bit in it.
#[derive(Clone, Copy)]
pub(crate) struct Bit(usize, u64);

/// [`ByFact`]'s tables: each fact's node, component and row.
type FactTables = (Vec<u16>, Vec<u32>, Vec<u32>);

thread_local! {
    /// [`ByFact`]'s tables, kept from board to board.
    static BY_FACT: Cell<Option<FactTables>> = const { Cell::new(None) };
}

impl Drop for ByFact<'_> {
    fn drop(&mut self) {
        let tables = (
            std::mem::take(&mut self.node),
            std::mem::take(&mut self.comp),
            std::mem::take(&mut self.row),
        );
        let _ = BY_FACT.try_with(|kept| kept.set(Some(tables)));
    }
}

impl ByFact<'_> {
    /// The node of fact `f` (a candidate of the board), as a bit of reach rows.
    pub(crate) fn bit(&self, f: u16) -> Bit {
        let v = usize::from(self.node[usize::from(f)]);
        Bit(v / 64, 1 << (v % 64))
    }

    /// Whether fact `f` leads to the node `to` by static links (or is it).
    pub(crate) fn leads(&self, f: u16, to: Bit) -> bool {
        let f = usize::from(f);
        match self.row[f] {
            NO_ROW => self.node[f] as usize / 64 == to.0 && 1 << (self.node[f] % 64) == to.1,
            r => self.bits[r as usize + to.0] & to.1 != 0,
        }
    }

    /// The component of fact `f`: two facts lie on a common loop of links only if they share it.
    pub(crate) fn component(&self, f: u16) -> u32 {
        self.comp[usize::from(f)]
    }
}

impl Reaches {
    /// The closure, read by fact.
    pub(crate) fn by_fact(&self) -> ByFact<'_> {
        let (graph, reach) = (&self.graph, &self.reach);
        // The entries of facts that are not candidates are left as an earlier board left
        // them (no search reads them): filling them would cost as much as the rest.
        let (mut node, mut comp, mut row) = BY_FACT
            .try_with(Cell::take)
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                let n = 81 * 9 * 2;
                (vec![u16::MAX; n], vec![u32::MAX; n], vec![NO_ROW; n])
            });
        for (i, &(c, d)) in graph.candidates.iter().enumerate() {
            for on in 0..2 {
                let (f, v) = ((c * 9 + d) * 2 + on, 2 * i + on);
                node[f] = v as u16;
                comp[f] = reach.comp[v];
                let r = reach.row[reach.comp[v] as usize];
                row[f] = if r == NO_ROW {
                    NO_ROW
                } else {
                    r * reach.words as u32
                };
            }
        }
        ByFact {
            bits: &reach.bits,
            node,
            comp,
            row,
        }
    }
}

/// The static links of a board: node `2 * i + on` is candidate `i` true (`on` = 1) or false.
struct Graph {
    /// The candidates, cell-major.
    candidates: Vec<(usize, usize)>,
    /// Each candidate's place in `candidates`, by `cell * 9 + digit`.
    index: [u16; 81 * 9],
    /// Where each node's links start in `to` (one more entry than nodes).
    first: Vec<u32>,
    /// The nodes each node links to, but for absences that imply nothing.
    to: Vec<u16>,
    /// Per digit, the cells where its absence implies something (see [`live_offs`]).
    live_off: [Set; 9],
    /// Per cell, the digits whose absence there implies something.
    live_digits: [u16; 81],
    /// The board's candidates, by digit.
    cand: [Set; 9],
    /// Each cell's digits.
    masks: [u16; 81],
}

/// Per digit, the cells where its absence implies something (bivalue cells, and places of a
/// digit with two in a house).
fn live_offs(s: &State, masks: &[u16; 81]) -> [Set; 9] {
    let t = tables();
    let mut live_off = [0 as Set; 9];
    for (d, live) in live_off.iter_mut().enumerate() {
        for &h in &t.houses {
            let places = s.cand[d] & h;
            if places.count_ones() == 2 {
                *live |= places;
            }
        }
    }
    for c in cells(s.open()).filter(|&c| masks[c].count_ones() == 2) {
        let mut m = masks[c];
        while m != 0 {
            live_off[m.trailing_zeros() as usize] |= BIT[c];
            m &= m - 1;
        }
    }
    live_off
}

impl Graph {
    fn new(s: &State, masks: &[u16; 81]) -> Graph {
        let mut index = [u16::MAX; 81 * 9];
        let mut candidates = Vec::with_capacity(324);
        for c in cells(s.open()) {
            let mut m = masks[c];
            while m != 0 {
                let d = m.trailing_zeros() as usize;
                index[c * 9 + d] = candidates.len() as u16;
                candidates.push((c, d));
                m &= m - 1;
            }
        }
        let t = tables();
        let live_off = live_offs(s, masks);
        // Per cell, the digits whose absence there implies something.
        let mut live_digits = [0u16; 81];
        for (e, &live) in live_off.iter().enumerate() {
            for q in cells(live) {
                live_digits[q] |= 1 << e;
            }
        }
        let n = candidates.len();
        let (mut first, mut to) = (Vec::with_capacity(2 * n + 1), Vec::with_capacity(8 * n));
        first.push(0);
        // What [`consequences`] lists for the candidates of the board, in its order, less
        // the absences that imply nothing: those only add themselves to what a node
        // reaches, which [`Graph::dead_offs`] lists instead, so that the search for
        // components and the closure skip them.
        let node = |q: usize, e: usize, on: u16| 2 * index[q * 9 + e] + on;
        for &(c, d) in &candidates {
            if live_off[d] & BIT[c] != 0 {
                let m = masks[c];
                if m.count_ones() == 2 {
                    to.push(node(c, (m & !(1 << d)).trailing_zeros() as usize, 1));
                }
                for h in t.house_sets[c] {
                    let places = s.cand[d] & h;
                    if places.count_ones() == 2 {
                        to.push(node((places & !BIT[c]).trailing_zeros() as usize, d, 1));
                    }
                }
            }
            first.push(to.len() as u32);
            let mut m = masks[c] & !(1 << d) & live_digits[c];
            while m != 0 {
                to.push(node(c, m.trailing_zeros() as usize, 0));
                m &= m - 1;
            }
            for q in cells(s.cand[d] & t.peers[c] & live_off[d]) {
                to.push(node(q, d, 0));
            }
            first.push(to.len() as u32);
        }
        Graph {
            candidates,
            index,
            first,
            to,
            live_off,
            live_digits,
            cand: s.cand,
            masks: *masks,
        }
    }

    /// The nodes `v` links to, but for absences that imply nothing.
    fn links(&self, v: usize) -> &[u16] {
        &self.to[self.first[v] as usize..self.first[v + 1] as usize]
    }

    /// Calls `visit` for each absence that node `v` links to and that implies nothing.
    fn dead_offs(&self, v: usize, mut visit: impl FnMut(usize)) {
        if v & 1 == 0 {
            return;
        }
        let (c, d) = self.candidates[v / 2];
        let mut m = self.masks[c] & !(1 << d) & !self.live_digits[c];
        while m != 0 {
            visit(2 * usize::from(self.index[c * 9 + m.trailing_zeros() as usize]));
            m &= m - 1;
        }
        let peers = self.cand[d] & tables().peers[c] & !self.live_off[d];
        for q in cells(peers) {
            visit(2 * usize::from(self.index[q * 9 + d]));
        }
    }

    /// Each node's reachable nodes (itself included), as bits: the strongly connected
    /// components, found by Tarjan's algorithm (without recursion) and numbered so that
    /// links lead only to the same or a lower number, each given its row as it completes,
    /// from the rows of the components it links to, all complete by then.
    fn reach(&self) -> Reach {
        const UNSEEN: u32 = u32::MAX;
        let n = self.first.len() - 1;
        let words = n.div_ceil(64);
        let (mut order, mut low) = (vec![UNSEEN; n], vec![0u32; n]);
        let mut comp = vec![UNSEEN; n];
        // Each component's row, and the rows.
        let mut row: Vec<u32> = Vec::with_capacity(n);
        let mut bits: Vec<u64> = Vec::with_capacity(n / 2 * words);
        let mut stack: Vec<u16> = Vec::with_capacity(n);
        // Each node on the way down, with where its next link and its last lie in `to`.
        let mut frames: Vec<(usize, usize, usize)> = Vec::with_capacity(n);
        let span = |v: usize| (self.first[v] as usize, self.first[v + 1] as usize);
        let mut counter = 0u32;
        for root in 0..n {
            if order[root] != UNSEEN {
                continue;
            }
            order[root] = counter;
            counter += 1;
            if self.first[root] == self.first[root + 1] && root & 1 == 0 {
                // An absence that implies nothing is a component alone, below all that link
                // to it (none is done yet: it would have been met), and reaches only itself:
                // it has no row.
                comp[root] = row.len() as u32;
                row.push(NO_ROW);
                continue;
            }
            low[root] = order[root];
            stack.push(root as u16);
            let (from, to) = span(root);
            frames.push((root, from, to));
            while let Some(&mut (v, ref mut pos, end)) = frames.last_mut() {
                if *pos < end {
                    let w = usize::from(self.to[*pos]);
                    *pos += 1;
                    if order[w] == UNSEEN {
                        order[w] = counter;
                        low[w] = counter;
                        counter += 1;
                        stack.push(w as u16);
                        let (from, to) = span(w);
                        frames.push((w, from, to));
                    } else if comp[w] == UNSEEN {
                        low[v] = low[v].min(order[w]);
                    }
                    continue;
                }
                frames.pop();
                if let Some(&(u, _, _)) = frames.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == order[v] {
                    let from = stack
                        .iter()
                        .rposition(|&x| usize::from(x) == v)
                        .expect("a node is on the stack until its component is complete");
                    self.complete(&stack[from..], &mut comp, &mut row, &mut bits, words);
                    stack.truncate(from);
                }
            }
        }
        Reach {
            comp,
            row,
            words,
            bits,
        }
    }

    /// Numbers the component of nodes `members`, complete, and gives it its row in `bits`
    /// but for an absence alone that implies nothing.
    fn complete(
        &self,
        members: &[u16],
        comp: &mut [u32],
        row: &mut Vec<u32>,
        bits: &mut Vec<u64>,
        words: usize,
    ) {
        let k = row.len() as u32;
        for &x in members {
            comp[usize::from(x)] = k;
        }
        let x = usize::from(members[0]);
        if members.len() == 1 && x & 1 == 0 && self.links(x).is_empty() {
            row.push(NO_ROW);
            return;
        }
        let rows = bits.len() / words;
        row.push(rows as u32);
        bits.resize(bits.len() + words, 0);
        let (done, own) = bits.split_at_mut(rows * words);
        for &v in members {
            let v = usize::from(v);
            own[v / 64] |= 1 << (v % 64);
            self.dead_offs(v, |w| own[w / 64] |= 1 << (w % 64));
            for &w in self.links(v) {
                let w = usize::from(w);
                let j = comp[w];
                // A node already reached came with a row holding all it reaches.
                if j != k && own[w / 64] >> (w % 64) & 1 == 0 {
                    // Links lead only to nodes with rows.
                    let r = row[j as usize] as usize;
                    let theirs = &done[r * words..(r + 1) * words];
                    own.iter_mut().zip(theirs).for_each(|(a, b)| *a |= b);
                }
            }
        }
    }
}

/// No row in [`Reach::bits`].
const NO_ROW: u32 = u32::MAX;

/// What each node of a [`Graph`] reaches.
struct Reach {
    /// Each node's component.
    comp: Vec<u32>,
    /// Each component's row in `bits`, [`NO_ROW`] for an absence that implies nothing.
    row: Vec<u32>,
    words: usize,
    bits: Vec<u64>,
}

impl Reach {
    /// The nodes node `v` (a truth, or an absence that implies something) reaches, as bits.
    #[inline]
    fn of(&self, v: usize) -> &[u64] {
        let r = self.row[self.comp[v] as usize] as usize;
        &self.bits[r * self.words..(r + 1) * self.words]
    }

    /// Whether assuming node `v` leads to its own opposite (see [`search`]).
    #[inline]
    fn refutes(&self, v: usize) -> bool {
        let opposite = v ^ 1;
        self.row[self.comp[v] as usize] != NO_ROW
            && self.of(v)[opposite / 64] >> (opposite % 64) & 1 != 0
    }
}

/// Applies a pass's changes: a candidate set true leaves its cell's other digits out (the
/// singles that follow place it, or find the cell empty); whether anything changed.
pub(crate) fn apply(s: &mut State, changes: &Changes) -> bool {
    let mut progress = false;
    for &(c, d) in &changes.removed {
        if s.has(c, d) {
            s.eliminate(c, d);
            progress = true;
        }
    }
    for &(c, d) in &changes.set {
        for e in (0..9).filter(|&e| e != d) {
            if s.has(c, e) {
                s.eliminate(c, e);
                progress = true;
            }
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::Candidates;
    use crate::logic::board::testing::{empty, remove};

    #[test]
    fn the_digit_an_xy_wing_removes_is_refuted_by_its_own_opposite() {
        // Pivot r1c1 {1,2}, pincers r1c5 {1,3} and r5c1 {2,3}: r5c5=3 leads through the
        // three cells to r5c1=3, which removes it.
        let mut b = empty(3, 3);
        let keep = |b: &mut Candidates, (r, c): (usize, usize), digits: [u8; 2]| {
            for d in (1..=9).filter(|d| !digits.contains(d)) {
                remove(b, d, &[(r, c)]);
            }
        };
        keep(&mut b, (0, 0), [1, 2]);
        keep(&mut b, (0, 4), [1, 3]);
        keep(&mut b, (4, 0), [2, 3]);
        let s = State::from_board(&b);
        let m = masks(&s);
        assert!(search(&s, &m, (4 * 9 + 4, 2, true)).1);
        assert!(!search(&s, &m, (80, 2, true)).1);
        let changes = pass(&s, Statics::Forcing);
        assert!(changes.removed.contains(&(4 * 9 + 4, 2)), "{changes:?}");
        assert!(changes.set.is_empty(), "{changes:?}");
    }

    /// Boards thinned pseudo-randomly, so that many cells are bivalue and many digits have
    /// two places in a house; `keep` of 8 candidates stay.
    fn thinned(count: usize, keep: u64) -> Vec<State> {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut out = Vec::new();
        for _ in 0..count {
            let mut b = empty(3, 3);
            for r in 0..9 {
                for c in 0..9 {
                    for d in 1..=9 {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        if seed % 8 >= keep {
                            remove(&mut b, d, &[(r, c)]);
                        }
                    }
                }
            }
            out.push(State::from_board(&b));
        }
        out
    }

    #[test]
    fn a_pass_finds_what_one_search_per_assumption_finds() {
        for s in thinned(40, 3) {
            let m = masks(&s);
            let changes = pass(&s, Statics::Forcing);
            let (mut removed, mut set) = (Vec::new(), Vec::new());
            for (c, d) in s.candidates() {
                if search(&s, &m, (c, d, true)).1 {
                    removed.push((c, d));
                } else if search(&s, &m, (c, d, false)).1 {
                    set.push((c, d));
                }
            }
            assert_eq!(changes.removed, removed);
            assert_eq!(changes.set, set);
        }
    }

    #[test]
    fn multiple_chains_find_what_every_chain_of_a_source_leads_to() {
        let (mut boards, mut found) = (0, 0);
        for s in thinned(60, 4) {
            let m = masks(&s);
            let graph = Graph::new(&s, &m);
            let fast = common(&s, &m, &graph, &graph.reach());
            // One search per start, and the facts all of a source's searches reach.
            let mut slow = Vec::new();
            for source in sources(&s, &m) {
                let mut all = [[!0u128; 9]; 2];
                for (c, d) in source.starts(&s) {
                    let (shown, _) = search(&s, &m, (c, d, true));
                    for on in 0..2 {
                        for e in 0..9 {
                            all[on][e] &= shown[on][e];
                        }
                    }
                }
                for (c, e) in s.candidates() {
                    for on in [false, true] {
                        if all[usize::from(on)][e] >> c & 1 != 0 {
                            slow.push(((c, e, on), source));
                        }
                    }
                }
            }
            let key = |x: &((usize, usize, bool), Source)| {
                let ((c, d, on), source) = *x;
                (format!("{source:?}"), c, d, on)
            };
            let (mut fast, mut slow) = (fast, slow);
            fast.sort_by_key(key);
            slow.sort_by_key(key);
            assert_eq!(fast, slow);
            boards += 1;
            found += usize::from(!fast.is_empty());
        }
        assert!(
            found * 4 >= boards,
            "only {found} of {boards} boards have any"
        );
    }
}
