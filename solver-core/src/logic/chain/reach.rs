//! The reach of a static (X, Y, XY) trace: which facts it holds and at what depth, found a
//! whole depth at a time on per-digit cell sets.
//!
//! A static trace is a breadth-first walk of a fixed implication graph (the start's strong
//! and weak links) in which every fact has one parent, so a fact's depth is its distance from
//! the assumption plus one and the facts it rests on are exactly its depth. Ratings, cycle
//! and contradiction tests need only that; the exact [`Trace`] (parents, for sentences and
//! support) is made only for the few facts that get reported.

use std::cell::{OnceCell, RefCell};

use super::spare;
use super::state::{FULL, Set, Start, cells};
use super::trace::{Mode, Trace, trace_with};

/// The slot of digit index `d`'s true (`on`) or false facts in a [`Facts`] list.
#[inline]
pub(crate) fn slot(d: usize, on: bool) -> usize {
    d * 2 + usize::from(on)
}

/// Cell sets of facts, one per digit and kind, at [`slot`].
pub(crate) type Facts = [Set; 18];

/// Where an entry of [`Reach::entries`] keeps its slot, above the 81 cells.
const SLOT_AT: u32 = 96;

/// The facts of the depth being made and of the one after it, taking turns.
type Next = [Facts; 2];

/// A dropped reach's lists and buffers.
type Buffers = (Vec<Set>, Vec<u32>, Box<Next>);

thread_local! {
    /// Lists of dropped reaches for the next ones: the static forcing chains keep two
    /// reaches per candidate, and allocating them cost more than making them.
    static SPARE: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

/// The facts a static trace of one assumption holds, by depth.
pub(crate) struct Reach {
    /// The assumption: cell, digit index, true or false.
    root: (usize, usize, bool),
    mode: Mode,
    /// The facts first reached at each depth, a cell set per digit and kind of fact with
    /// its [`slot`] above [`SLOT_AT`] (most depths touch few digits).
    entries: Vec<Set>,
    /// Where each depth's entries start, and where the last one ends: depth `k + 1` is
    /// `bounds[k]..bounds[k + 1]`.
    bounds: Vec<u32>,
    /// Every fact reached.
    all: Facts,
    /// The facts of the depth being made and of the one after it, taking turns, both empty
    /// between searches: kept rather than made afresh for each search, whose zeroing cost
    /// as much as a depth, and boxed (and passed on to the next reach when dropped) so that
    /// the static forcing chains, which keep a reach per candidate, move a pointer rather
    /// than the buffers. `None` only once dropped.
    next: Option<Box<Next>>,
    /// Whether facts at the depth limit were left unfollowed ([`Trace::cut`]).
    pub(crate) cut: bool,
    /// Whether some fact is reached with its opposite, worked out once the facts are in:
    /// the cycle and multiple-chain tests ask it of every reach, several times.
    clashes: bool,
    /// The exact trace, made when a support is first asked for.
    exact: OnceCell<Box<Trace>>,
}

impl Drop for Reach {
    fn drop(&mut self) {
        let Some(next) = self.next.take() else {
            return;
        };
        let mut buffers = (
            std::mem::take(&mut self.entries),
            std::mem::take(&mut self.bounds),
            next,
        );
        buffers.0.clear();
        buffers.1.clear();
        spare::give(&SPARE, buffers);
    }
}

impl Reach {
    /// An empty reach, to [`Reach::run`], with the lists of a dropped one when the thread
    /// has one.
    pub(crate) fn new() -> Reach {
        let (entries, bounds, next) = spare::take(&SPARE).unwrap_or_else(|| {
            let next = Box::new([[0; 18]; 2]);
            (Vec::with_capacity(64), Vec::with_capacity(16), next)
        });
        Reach {
            root: (0, 0, false),
            mode: Mode::Xy,
            entries,
            bounds,
            all: [0; 18],
            next: Some(next),
            cut: false,
            clashes: false,
            exact: OnceCell::new(),
        }
    }

    /// The reach of assuming `root` (cell, digit index, true or false) at static `mode`,
    /// following no fact of depth `limit` or more (as [`super::trace::trace_static_within`]).
    pub(crate) fn run(&mut self, s: &Start, root: (usize, usize, bool), mode: Mode, limit: u16) {
        self.start(root, mode);
        self.spread(s, limit);
    }

    /// Resets the reach to its assumption alone.
    fn start(&mut self, root: (usize, usize, bool), mode: Mode) {
        debug_assert!(matches!(mode, Mode::X | Mode::Y | Mode::Xy));
        let (c, d, on) = root;
        (self.root, self.mode) = (root, mode);
        let k = slot(d, on);
        self.all = [0; 18];
        self.all[k] = 1 << c;
        self.entries.clear();
        self.bounds.clear();
        self.entries.push(1 << c | (k as Set) << SLOT_AT);
        self.bounds.extend([0, 1]);
        self.cut = false;
        self.clashes = false;
        self.exact = OnceCell::new();
    }

    /// The whole reach of assuming `root` at static `mode`, made from the whole reaches at
    /// `mode` of the facts it implies in one link (`parts`) rather than spread afresh: its
    /// facts past the assumption are theirs, each one depth deeper, at the shallowest depth
    /// any of them reaches it (a shortest path from the assumption goes through one of them).
    /// Worth it where the assumption has few such facts: a false one's strong partners.
    pub(crate) fn merge(&mut self, root: (usize, usize, bool), mode: Mode, parts: &[&Reach]) {
        debug_assert!(parts.iter().all(|p| !p.cut && p.mode == mode));
        self.start(root, mode);
        if let &[part] = parts {
            self.shift(part);
            self.clashes = self.opposites_met();
            return;
        }
        let mut now: Facts = [0; 18];
        for depth in 0.. {
            let mut touched = 0u32;
            for p in parts.iter().filter(|p| depth < p.deepest()) {
                let level = p.bounds[depth] as usize..p.bounds[depth + 1] as usize;
                for &e in &p.entries[level] {
                    let k = (e >> SLOT_AT) as usize;
                    now[k] |= e & FULL;
                    touched |= 1 << k;
                }
            }
            let start = self.entries.len();
            while touched != 0 {
                let k = touched.trailing_zeros() as usize;
                touched &= touched - 1;
                let new = now[k] & !self.all[k];
                now[k] = 0;
                if new != 0 {
                    self.all[k] |= new;
                    self.entries.push(new | (k as Set) << SLOT_AT);
                }
            }
            // A depth with nothing new ends the walk, as it ends a spread: whatever the
            // parts reach deeper follows from facts already reached, so was reached too.
            if self.entries.len() == start {
                break;
            }
            self.bounds.push(self.entries.len() as u32);
        }
        self.clashes = self.opposites_met();
    }

    /// [`Reach::merge`] from one part: its depths one deeper, without the assumption (the
    /// only fact it holds that is reached already).
    fn shift(&mut self, part: &Reach) {
        let (c, d, on) = self.root;
        let k = slot(d, on);
        let root = 1 << c | (k as Set) << SLOT_AT;
        for level in part.bounds.windows(2) {
            let start = self.entries.len();
            for &e in &part.entries[level[0] as usize..level[1] as usize] {
                // The assumption, reached first here, is the one fact taken out.
                let e = if e >> SLOT_AT == root >> SLOT_AT {
                    e & !(1 << c)
                } else {
                    e
                };
                if e & FULL != 0 {
                    self.entries.push(e);
                }
            }
            if self.entries.len() == start {
                break;
            }
            self.bounds.push(self.entries.len() as u32);
        }
        for (mine, theirs) in self.all.iter_mut().zip(&part.all) {
            *mine |= theirs;
        }
    }

    /// Adds the next depths until none is new or the last one is at `limit`.
    fn spread(&mut self, s: &Start, limit: u16) {
        // One copy of the loop per mode, its mode a constant: the tests of the mode that
        // every fact made are then gone.
        match self.mode {
            Mode::X => self.spread_as(s, limit, Mode::X),
            Mode::Y => self.spread_as(s, limit, Mode::Y),
            _ => self.spread_as(s, limit, Mode::Xy),
        }
    }

    /// [`Reach::spread`], inlined into each of its mode's arms.
    ///
    /// Each depth's new facts are followed as they are found, into the other buffer of
    /// [`Reach::next`], rather than read back from the entries: only the depth the search
    /// starts from is read back.
    #[inline(always)]
    fn spread_as(&mut self, s: &Start, limit: u16, mode: Mode) {
        if self.deepest() >= usize::from(limit) {
            self.cut = true;
            return;
        }
        let mut next = self.next.take().expect("a live reach's buffers");
        let mut from = 0;
        let front = self.bounds[self.bounds.len() - 2] as usize..self.entries.len();
        let mut touched = 0u32;
        for i in front {
            touched |= expand(s, mode, self.entries[i], &mut next[from]);
        }
        loop {
            let start = self.entries.len();
            // Facts of the depth being added are followed only below the limit, so that
            // both buffers are empty when the search stops.
            let follow = self.deepest() + 1 < usize::from(limit);
            let (now, later) = pair(&mut next, from);
            touched = self.add(s, mode, touched, [now, later], follow);
            if self.entries.len() == start {
                break;
            }
            self.bounds.push(self.entries.len() as u32);
            if !follow {
                self.cut = true;
                break;
            }
            from ^= 1;
        }
        self.next = Some(next);
        self.clashes = self.opposites_met();
    }

    /// Moves the facts of `now` (slots `touched`, bit [`slot`] each) not yet reached to the
    /// entries, as the next depth, and empties it; when `follow`, adds what follows from
    /// them to `later`, whose touched slots it returns.
    #[inline(always)]
    fn add(
        &mut self,
        s: &Start,
        mode: Mode,
        mut touched: u32,
        [now, later]: [&mut Facts; 2],
        follow: bool,
    ) -> u32 {
        let mut after = 0u32;
        while touched != 0 {
            let k = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            // Already candidates: see `expand`.
            let new = now[k] & !self.all[k];
            now[k] = 0;
            if new != 0 {
                self.all[k] |= new;
                let entry = new | (k as Set) << SLOT_AT;
                self.entries.push(entry);
                if follow {
                    after |= expand(s, mode, entry, later);
                }
            }
        }
        after
    }

    /// The cells where digit index `d` is shown true (`on`) or false.
    #[inline]
    pub(crate) fn facts(&self, d: usize, on: bool) -> Set {
        self.all[slot(d, on)]
    }

    /// Whether some fact is reached with its opposite (the trace's contradiction).
    pub(crate) fn clash(&self) -> bool {
        self.clashes
    }

    /// [`Reach::clash`], worked out from the facts.
    fn opposites_met(&self) -> bool {
        // Each digit's pair of slots, folded without a test per digit: most reaches have
        // no clash, so every digit is looked at anyway.
        let both = self
            .all
            .chunks_exact(2)
            .fold(0, |a, pair| a | pair[0] & pair[1]);
        both != 0
    }

    /// The depth of a fact (1 for the assumption), if reached: the number of facts it rests
    /// on, itself included.
    pub(crate) fn depth(&self, c: usize, d: usize, on: bool) -> Option<usize> {
        let k = slot(d, on);
        if self.all[k] >> c & 1 == 0 {
            return None;
        }
        let i = self
            .entries
            .iter()
            .position(|&e| (e >> SLOT_AT) as usize == k && e >> c & 1 != 0)?;
        Some(self.bounds.partition_point(|&b| b as usize <= i))
    }

    /// The deepest depth reached.
    pub(crate) fn deepest(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The exact trace of the whole reach (parents included), made once.
    pub(crate) fn exact(&self, s: &Start) -> &Trace {
        self.exact
            .get_or_init(|| Box::new(trace_with(s, self.root, self.mode, true)))
    }
}

/// Buffer `from` (0 or 1) of `next` and the other one, borrowed together.
#[inline(always)]
fn pair(next: &mut Next, from: usize) -> (&mut Facts, &mut Facts) {
    let [a, b] = next;
    if from == 0 { (a, b) } else { (b, a) }
}

/// For each set of digit indices (bit `d`), the bits of their false facts' [`slot`]s: a
/// cell's other digits are marked touched at once rather than one by one.
const FALSE_SLOTS: [u32; 512] = {
    let mut table = [0; 512];
    let mut digits = 0;
    while digits < 512 {
        let mut d = 0;
        while d < 9 {
            if digits >> d & 1 != 0 {
                table[digits] |= 1 << (d * 2);
            }
            d += 1;
        }
        digits += 1;
    }
    table
};

/// Adds to `next` the facts that follow in one link of `mode` from the facts of `entry`,
/// some maybe known already; the slots it touched (bit [`slot`] each).
#[inline(always)]
fn expand(s: &Start, mode: Mode, entry: Set, next: &mut Facts) -> u32 {
    let k = (entry >> SLOT_AT) as usize;
    let set = entry & FULL;
    let d = k / 2;
    let mut touched = 0u32;
    if k & 1 != 0 {
        // A true fact removes its digit from the cell's peers, and (but in X-chains) the
        // cell's other digits. The peers are gathered in a register and kept to the digit's
        // candidates once per entry, so that every fact `next` holds is a candidate and
        // `Reach::add` need not mask the facts of every slot it takes.
        touched |= 1 << slot(d, false);
        let mut peers = 0;
        for c in cells(set) {
            peers |= s.tables.peers[c];
            if mode != Mode::X {
                let (bit, mut others): (Set, u16) = (1 << c, s.digits(c) & !(1 << d));
                touched |= FALSE_SLOTS[usize::from(others)];
                while others != 0 {
                    let e = others.trailing_zeros() as usize;
                    others &= others - 1;
                    next[slot(e, false)] |= bit;
                }
            }
        }
        next[slot(d, false)] |= peers & s.cand[d];
        return touched;
    }
    // A false fact sets the other digit of a bivalue cell (but in X-chains) and its digit's
    // other place in a house where it has two (but in Y-chains).
    if mode != Mode::X {
        for c in cells(set & s.bivalue) {
            let e = (s.digits(c) & !(1 << d)).trailing_zeros() as usize;
            next[slot(e, true)] |= 1 << c;
            touched |= 1 << slot(e, true);
        }
    }
    if mode != Mode::Y {
        let linked = set & s.linked[d];
        if linked != 0 {
            for c in cells(linked) {
                next[slot(d, true)] |= s.partners(c, d);
            }
            touched |= 1 << slot(d, true);
        }
    }
    touched
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::state::State;
    use super::super::trace::{Trace, trace_into};
    use super::*;
    use crate::Grid;
    use crate::logic::board::Candidates;

    /// Puzzles of the rated file (SE 8.0, 8.0, 7.0), whose first chain steps are static.
    const PUZZLES: [&str; 3] = [
        ".....5.3..5....7.87.3....95..9.63.7..6.5.1.8..2.97.3..51....9.39.2....1..3.1.....",
        "...6...2....9453..4.....8...245..1...8.....9...1..246...9.....8..2891....3...7...",
        "....8..69.....47...4...3..2.5..1...3.96...85.3...6..9.2..1...4...14.....97..5....",
    ];

    /// Each puzzle's board, then the same with a few candidates placed (wrongly or not: the
    /// links are what matters), as a solve leaves it further on.
    pub(crate) fn boards() -> Vec<Start> {
        let mut out = Vec::new();
        for p in PUZZLES {
            let grid: Grid = p.parse().expect("a valid puzzle");
            let mut state = State::from_board(&Candidates::from_grid(&grid));
            out.push(Start::new(state));
            for (k, (c, d)) in state.candidates().into_iter().enumerate() {
                if k % 17 == 3 && state.has(c, d) {
                    state.place(c, d);
                }
            }
            out.push(Start::new(state));
        }
        out
    }

    /// Asserts that a reach holds the trace's facts at the trace's depths, each resting on
    /// as many facts as its depth.
    fn agree(r: &Reach, t: &Trace, what: &str) {
        for d in 0..9 {
            assert_eq!(r.facts(d, true), t.on[d], "{what}: true facts of {d}");
            assert_eq!(r.facts(d, false), t.off[d], "{what}: false facts of {d}");
        }
        for (i, n) in t.nodes.iter().enumerate() {
            let (c, d) = (usize::from(n.cell), usize::from(n.digit));
            let depth = usize::from(n.depth);
            assert_eq!(r.depth(c, d, n.on), Some(depth), "{what}: node {i}");
            assert_eq!(
                t.ancestors(&[i as u16]),
                depth,
                "{what}: node {i} rests on a path"
            );
        }
        assert_eq!(
            r.clash(),
            t.contradiction.is_some(),
            "{what}: contradiction"
        );
        assert_eq!(r.cut, t.cut.is_some(), "{what}: cut");
    }

    #[test]
    fn reaches_hold_the_exact_traces_facts_at_their_depths() {
        let (mut r, mut t) = (Reach::new(), Trace::new());
        let mut deepest = 0;
        for s in boards() {
            for (c, d) in s.candidates() {
                for mode in [Mode::X, Mode::Y, Mode::Xy] {
                    for on in [true, false] {
                        let what = format!("r{}c{} {d} {on} {mode:?}", c / 9, c % 9);
                        r.run(&s, (c, d, on), mode, u16::MAX);
                        trace_into(&mut t, &s, (c, d, on), mode, true);
                        agree(&r, &t, &what);
                        deepest = deepest.max(r.deepest());
                    }
                }
            }
        }
        // The boards make chains long enough for the limits to cut them.
        assert!(deepest > 6, "deepest reach {deepest}");
    }

    #[test]
    fn a_false_assumptions_reach_merged_from_its_partners_is_the_one_spread() {
        let (mut spread, mut merged) = (Reach::new(), Reach::new());
        let mut several = 0;
        for s in boards() {
            for mode in [Mode::X, Mode::Y, Mode::Xy] {
                for (c, d) in s.candidates() {
                    let mut sets: Vec<(usize, usize)> = Vec::new();
                    let digits = s.digits(c);
                    if mode != Mode::X && digits.count_ones() == 2 {
                        sets.push((c, (digits & !(1 << d)).trailing_zeros() as usize));
                    }
                    if mode != Mode::Y {
                        sets.extend(cells(s.partners(c, d)).map(|p| (p, d)));
                    }
                    let parts: Vec<Reach> = sets
                        .iter()
                        .map(|&(p, e)| {
                            let mut r = Reach::new();
                            r.run(&s, (p, e, true), mode, u16::MAX);
                            r
                        })
                        .collect();
                    several += usize::from(parts.len() > 1);
                    merged.merge((c, d, false), mode, &parts.iter().collect::<Vec<_>>());
                    spread.run(&s, (c, d, false), mode, u16::MAX);
                    let what = format!("r{}c{} {d} {mode:?}", c / 9, c % 9);
                    assert_eq!(merged.all, spread.all, "{what}");
                    assert_eq!(merged.entries, spread.entries, "{what}");
                    assert_eq!(merged.bounds, spread.bounds, "{what}");
                    assert!(!merged.cut, "{what}");
                }
            }
        }
        assert!(several > 0);
    }

    #[test]
    fn false_slots_mark_each_digits_false_slot() {
        for (digits, &slots) in FALSE_SLOTS.iter().enumerate() {
            let want = (0..9)
                .filter(|&d| digits >> d & 1 != 0)
                .fold(0u32, |m, d| m | 1 << slot(d, false));
            assert_eq!(slots, want, "{digits:09b}");
        }
    }

    #[test]
    fn a_whole_xy_reach_with_a_contradiction_reaches_its_opposite() {
        // The static links are their own contrapositives: x and its opposite both reached
        // means the assumption's opposite is too (what the static forcing chains rely on).
        let mut r = Reach::new();
        let mut clashes = 0;
        for s in boards() {
            for (c, d) in s.candidates() {
                for on in [true, false] {
                    r.run(&s, (c, d, on), Mode::Xy, u16::MAX);
                    if r.clash() {
                        clashes += 1;
                        assert!(
                            r.depth(c, d, !on).is_some(),
                            "r{}c{} {d} {on}",
                            c / 9,
                            c % 9
                        );
                    }
                }
            }
        }
        assert!(clashes > 0);
    }
}
