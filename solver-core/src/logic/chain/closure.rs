//! Static forcing chains inside a nested chain's branch: the facts one assumption implies
//! through static links on the branch's board (a true digit removes its peers and its cell's
//! other digits; a false digit makes true the other digit of a bivalue cell and the other
//! place of a digit with two places in a house), with the board left as it is.
//!
//! A branch at SE's nesting level 2 removes each candidate whose assumption leads back to its
//! own absence (forcing X-, Y- and XY-chains, and the cycles, which such chains cover) and
//! sets each whose absence leads back to itself; at level 3 an assumption that leads to any
//! fact both true and false is refuted as well (static contradiction forcing chains).

use super::state::{State, cells, tables};

/// What refutes an assumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refute {
    /// Only the assumption's own opposite (forcing chains).
    Own,
    /// Any fact both true and false (multiple forcing chains' contradictions).
    Any,
}

/// The changes one pass of static chains makes on a board, found on the board as it was.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Candidates shown false, (cell, digit index), in the order found.
    pub(crate) removed: Vec<(usize, usize)>,
    /// Candidates shown true.
    pub(crate) set: Vec<(usize, usize)>,
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
        for e in (0..9).filter(|&e| e != d && masks[c] >> e & 1 != 0) {
            visit(c, e, false);
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

/// Whether assuming `start` on `s` leads by static links to what `refute` asks for; `queue`
/// is scratch space. (The definition [`pass`] computes for every candidate at once.)
#[cfg(test)]
pub(crate) fn refutes(
    s: &State,
    masks: &[u16; 81],
    start: (usize, usize, bool),
    refute: Refute,
    queue: &mut Vec<(usize, usize, bool)>,
) -> bool {
    // Shown facts by sign and digit, and a queue of facts to follow.
    let mut shown = [[0u128; 9]; 2];
    queue.clear();
    let (c0, d0, on0) = start;
    shown[usize::from(on0)][d0] |= 1 << c0;
    queue.push(start);
    let mut next = 0;
    while next < queue.len() {
        let fact = queue[next];
        next += 1;
        let mut hit = false;
        consequences(s, masks, fact, |c, d, on| {
            if hit || shown[usize::from(on)][d] >> c & 1 != 0 {
                return;
            }
            let clash = shown[usize::from(!on)][d] >> c & 1 != 0;
            if clash && (refute == Refute::Any || (c, d, !on) == start) {
                hit = true;
                return;
            }
            shown[usize::from(on)][d] |= 1 << c;
            queue.push((c, d, on));
        });
        if hit {
            return true;
        }
    }
    false
}

/// One pass of static chains over every candidate of `s`: each candidate refuted true is
/// removed, else each refuted false is set (what [`refutes`] finds for each, found at once
/// from the static links' transitive closure).
pub(crate) fn pass(s: &State, refute: Refute) -> Changes {
    let masks = masks(s);
    let graph = Graph::new(s, &masks);
    let reach = graph.reach();
    let mut out = Changes::default();
    for (i, &(c, d)) in graph.candidates.iter().enumerate() {
        if reach.refutes(2 * i + 1, refute) {
            out.removed.push((c, d));
        } else if reach.refutes(2 * i, refute) {
            out.set.push((c, d));
        }
    }
    out
}

/// The static links of a board: node `2 * i + on` is candidate `i` true (`on` = 1) or false.
struct Graph {
    /// The candidates, cell-major.
    candidates: Vec<(usize, usize)>,
    /// Where each node's links start in `to` (one more entry than nodes).
    first: Vec<u32>,
    /// The nodes each node links to.
    to: Vec<u16>,
}

impl Graph {
    fn new(s: &State, masks: &[u16; 81]) -> Graph {
        let mut index = [u16::MAX; 81 * 9];
        let mut candidates = Vec::with_capacity(324);
        for c in cells(s.open()) {
            for d in (0..9).filter(|&d| masks[c] >> d & 1 != 0) {
                index[c * 9 + d] = candidates.len() as u16;
                candidates.push((c, d));
            }
        }
        let mut first = Vec::with_capacity(2 * candidates.len() + 1);
        let mut to = Vec::with_capacity(16 * candidates.len());
        first.push(0);
        for &(c, d) in &candidates {
            for on in [false, true] {
                consequences(s, masks, (c, d, on), |c, d, on| {
                    to.push(2 * index[c * 9 + d] + u16::from(on));
                });
                first.push(to.len() as u32);
            }
        }
        Graph {
            candidates,
            first,
            to,
        }
    }

    fn links(&self, v: usize) -> &[u16] {
        &self.to[self.first[v] as usize..self.first[v + 1] as usize]
    }

    /// The strongly connected components, numbered so that links lead only to the same or a
    /// lower number (Tarjan's algorithm, without recursion), and their nodes in that order.
    fn components(&self) -> (Vec<u32>, Vec<u16>) {
        const UNSEEN: u32 = u32::MAX;
        let n = self.first.len() - 1;
        let (mut order, mut low) = (vec![UNSEEN; n], vec![0u32; n]);
        let mut comp = vec![UNSEEN; n];
        let (mut stack, mut members) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut frames: Vec<(usize, usize)> = Vec::new();
        let (mut counter, mut count) = (0u32, 0u32);
        for root in 0..n {
            if order[root] != UNSEEN {
                continue;
            }
            order[root] = counter;
            low[root] = counter;
            counter += 1;
            stack.push(root);
            frames.push((root, 0));
            while let Some(&mut (v, ref mut pos)) = frames.last_mut() {
                if let Some(&w) = self.links(v).get(*pos) {
                    *pos += 1;
                    let w = usize::from(w);
                    if order[w] == UNSEEN && self.first[w] == self.first[w + 1] {
                        // A fact that implies nothing is a component of its own at once.
                        order[w] = counter;
                        counter += 1;
                        comp[w] = count;
                        members.push(w as u16);
                        count += 1;
                    } else if order[w] == UNSEEN {
                        order[w] = counter;
                        low[w] = counter;
                        counter += 1;
                        stack.push(w);
                        frames.push((w, 0));
                    } else if comp[w] == UNSEEN {
                        low[v] = low[v].min(order[w]);
                    }
                    continue;
                }
                frames.pop();
                if let Some(&(u, _)) = frames.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == order[v] {
                    while let Some(x) = stack.pop() {
                        comp[x] = count;
                        members.push(x as u16);
                        if x == v {
                            break;
                        }
                    }
                    count += 1;
                }
            }
        }
        (comp, members)
    }

    /// Each node's reachable nodes (itself included), as bits.
    fn reach(&self) -> Reach {
        let (comp, members) = self.components();
        let n = comp.len();
        let words = n.div_ceil(64);
        let count = comp.iter().map(|&k| k as usize + 1).max().unwrap_or(0);
        let mut bits = vec![0u64; count * words];
        let mut at = 0;
        while at < members.len() {
            let k = comp[usize::from(members[at])] as usize;
            let (done, rest) = bits.split_at_mut(k * words);
            let own = &mut rest[..words];
            while at < members.len() && comp[usize::from(members[at])] as usize == k {
                let v = usize::from(members[at]);
                own[v / 64] |= 1 << (v % 64);
                for &w in self.links(v) {
                    let w = usize::from(w);
                    if self.first[w] == self.first[w + 1] {
                        // A fact that implies nothing reaches only itself.
                        own[w / 64] |= 1 << (w % 64);
                        continue;
                    }
                    let j = comp[w] as usize;
                    if j != k {
                        let theirs = &done[j * words..(j + 1) * words];
                        own.iter_mut().zip(theirs).for_each(|(a, b)| *a |= b);
                    }
                }
                at += 1;
            }
        }
        Reach { comp, words, bits }
    }
}

/// What each node of a [`Graph`] reaches.
struct Reach {
    comp: Vec<u32>,
    words: usize,
    bits: Vec<u64>,
}

impl Reach {
    /// Whether assuming node `v` leads to what `refute` asks for (see [`refutes`]).
    fn refutes(&self, v: usize, refute: Refute) -> bool {
        let k = self.comp[v] as usize;
        let bits = &self.bits[k * self.words..(k + 1) * self.words];
        let opposite = v ^ 1;
        match refute {
            Refute::Own => bits[opposite / 64] >> (opposite % 64) & 1 != 0,
            // Node pairs share a word: a fact and its opposite are bits 2i and 2i + 1.
            Refute::Any => bits
                .iter()
                .any(|&w| w & (w >> 1) & 0x5555_5555_5555_5555 != 0),
        }
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
        let q = &mut Vec::new();
        assert!(refutes(&s, &m, (4 * 9 + 4, 2, true), Refute::Own, q));
        assert!(!refutes(&s, &m, (80, 2, true), Refute::Any, q));
        let changes = pass(&s, Refute::Own);
        assert!(changes.removed.contains(&(4 * 9 + 4, 2)), "{changes:?}");
        assert!(changes.set.is_empty(), "{changes:?}");
    }

    /// [`pass`] as its definition: one search per assumption.
    fn pass_by_search(s: &State, refute: Refute) -> Changes {
        let masks = masks(s);
        let (mut out, q) = (Changes::default(), &mut Vec::new());
        for c in cells(s.open()) {
            for d in (0..9).filter(|&d| masks[c] >> d & 1 != 0) {
                if refutes(s, &masks, (c, d, true), refute, q) {
                    out.removed.push((c, d));
                } else if refutes(s, &masks, (c, d, false), refute, q) {
                    out.set.push((c, d));
                }
            }
        }
        out
    }

    #[test]
    fn a_pass_finds_what_one_search_per_assumption_finds() {
        // Boards thinned pseudo-randomly, so that many cells are bivalue and many digits
        // have two places in a house.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..40 {
            let mut b = empty(3, 3);
            for r in 0..9 {
                for c in 0..9 {
                    for d in 1..=9 {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        if seed % 8 < 5 {
                            remove(&mut b, d, &[(r, c)]);
                        }
                    }
                }
            }
            let s = State::from_board(&b);
            for refute in [Refute::Own, Refute::Any] {
                let (fast, slow) = (pass(&s, refute), pass_by_search(&s, refute));
                assert_eq!(fast.removed, slow.removed);
                assert_eq!(fast.set, slow.set);
            }
        }
    }
}
