//! Bidirectional cycles (continuous nice loops) of one kind of link: a candidate and its
//! absence both lead, around the loop, to the same removal.

use super::super::wording;
use super::deduction::{Deduction, fact};
use super::rating;
use super::reach::{Reach, slot};
use super::state::{Set, Start, cells};
use super::trace::{FACT_WORDS, Facts, Mode, Trace};

/// SE's name and base rating of a cycle of `mode` (X, Y or XY).
pub(crate) fn kind(mode: Mode) -> (&'static str, u16) {
    match mode {
        Mode::X => ("Bidirectional X-cycle", rating::CYCLE),
        Mode::Y => ("Bidirectional Y-cycle", rating::CYCLE),
        _ => ("Bidirectional cycle", rating::FORCING_XY),
    }
}

/// A cycle's removal: the candidate whose two traces lead to it, and the removed candidate.
#[derive(Debug, Clone, Copy)]
struct Removal {
    mode: Mode,
    start: (usize, usize),
    removed: (usize, usize),
}

/// The lowest-rated cycles found so far: their rating, removals in the order found and
/// support. They are told (sentence, lists) only at the end, as most are displaced by lower
/// ones.
#[derive(Debug, Default)]
pub(crate) struct Cycles {
    /// The rating of the removals kept.
    pub(crate) tenths: Option<u16>,
    found: Vec<Removal>,
    /// The candidates the removals kept rest on, cells per digit index.
    support: [Set; 9],
}

impl Cycles {
    /// Keeps `found` (removals rated `tenths`, resting on `support`) as offering each
    /// deduction in turn would: a lower rating replaces the removals kept, an equal one
    /// joins them.
    fn offer(&mut self, tenths: u16, found: impl Iterator<Item = Removal>, support: [Set; 9]) {
        match self.tenths {
            Some(t) if t < tenths => return,
            Some(t) if t == tenths => {}
            _ => {
                self.found.clear();
                self.support = [0; 9];
                self.tenths = Some(tenths);
            }
        }
        self.found.extend(found);
        for (mine, theirs) in self.support.iter_mut().zip(support) {
            *mine |= theirs;
        }
    }

    /// The deduction of the removals kept, the one offering them in turn would have made:
    /// the first one's name and sentence, every change and support merged.
    pub(crate) fn deduction(&self, s: &Start) -> Option<Deduction> {
        let tenths = self.tenths?;
        let first = self.found.first()?;
        let (name, _) = kind(first.mode);
        let (q, e) = first.removed;
        let mut out = Deduction::setting(name, tenths, q, e, false);
        out.say(|| sentence(s, first));
        out.eliminations = self
            .found
            .iter()
            .map(|r| (r.removed.0 as u16, r.removed.1 as u8 + 1))
            .collect();
        out.eliminations.sort_unstable();
        out.eliminations.dedup();
        // Sorted as the merged lists are: by cell, then digit.
        out.rest_on(|| {
            let mut support = Vec::new();
            for c in 0..81 {
                for (d, cells) in self.support.iter().enumerate() {
                    if cells >> c & 1 != 0 {
                        support.push((c as u16, d as u8 + 1));
                    }
                }
            }
            support
        });
        // Merging counts the first deduction's one change as its own.
        if self.found.len() > 1 {
            out.own = Some(1);
        }
        Some(out)
    }
}

/// Offers the cycle through candidate (`c`, `d`) to `best`, from the traces of the
/// candidate assumed true and false (whole, or to the depth [`may_close`] gave when it said
/// they may hold one: deeper removals rate higher); none rated above `bar`, the lowest
/// rating found so far, which such a cycle could not displace.
pub(crate) fn offer(
    s: &Start,
    [on, off]: [&Trace; 2],
    mode: Mode,
    start: (usize, usize),
    (best, bar): (&mut Cycles, Option<u16>),
) {
    let bar = best.tenths.into_iter().chain(bar).min();
    let Some((tenths, list)) = lowest(s, [on, off], kind(mode).1, bar) else {
        return;
    };
    if best.tenths.is_some_and(|t| t < tenths) {
        return;
    }
    let mut support = [0; 9];
    // Support that goes unread is not gathered (see `Deduction::rest_on`).
    if wording::read(tenths) {
        for &(q, e) in &list {
            for t in [on, off] {
                if let Some(i) = t.find(q, e, false) {
                    t.sweep(&[i], |n| support[usize::from(n.digit)] |= 1 << n.cell);
                }
            }
        }
    }
    let found = list.into_iter().map(|removed| Removal {
        mode,
        start,
        removed,
    });
    best.offer(tenths, found, support);
}

/// Whether the whole reaches of a candidate assumed true and false hold a cycle that
/// [`offer`] would offer to `best`: no contradiction (a forcing chain's business), a loop
/// that closes, and a removal both reach rated no higher than the bar (the traces' depths
/// bound the count from below). If so, the depth of the facts [`offer`] may read: the exact
/// traces need go no deeper.
pub(crate) fn may_close(
    s: &Start,
    [on, off]: [&Reach; 2],
    mode: Mode,
    (best, bar): (Option<u16>, Option<u16>),
) -> Option<usize> {
    let bar = best.into_iter().chain(bar).min();
    // Most candidates' reaches remove nothing in common: told at once, before the loop.
    let common = |e: usize| s.cand[e] & on.facts(e, false) & off.facts(e, false) != 0;
    if on.clash() || off.clash() || !(0..9).any(common) || !closes(s, on, mode) {
        return None;
    }
    has_removal(s, [on, off], mode, bar)
}

/// Whether the reaches, cut at some depth, leave room for a cycle rated `bar` or lower: no
/// contradiction among their facts, and a removal both reach that shallow. When not, the
/// whole reaches offer no such cycle either.
pub(crate) fn may_offer(s: &Start, [on, off]: [&Reach; 2], mode: Mode, bar: u16) -> bool {
    !on.clash() && !off.clash() && has_removal(s, [on, off], mode, Some(bar)).is_some()
}

/// The depth to which both reaches remove some candidate, the deeper one rating as a cycle
/// of `mode` no higher than `bar`, if any does: past it, every removal rates higher.
///
/// A removal that rates above the bar ([`floor`], or the facts of both branches less
/// those they share) is never told: the bar is the lowest cycle kept, which it could not
/// join, or the lowest chain, which would displace it.
fn has_removal(s: &Start, [on, off]: [&Reach; 2], mode: Mode, bar: Option<u16>) -> Option<usize> {
    let most = on.deepest().max(off.deepest());
    let depth = bar.map_or(most, |bar| {
        let base = kind(mode).1;
        // Ratings grow with the depth: the depths that fit run from 1 to some bound.
        (1..=most)
            .take_while(|&n| floor(base, n) <= bar)
            .last()
            .unwrap_or(0)
    });
    let (a, b) = (on.within(depth), off.within(depth));
    let common: [Set; 9] =
        std::array::from_fn(|e| s.cand[e] & a[slot(e, false)] & b[slot(e, false)]);
    if common.iter().all(|&m| m == 0) {
        return None;
    }
    let Some(bar) = bar else {
        return Some(depth);
    };
    // A removal rests on the facts of both branches' paths to it, each as many as its depth
    // there, less those both hold: facts both reaches hold that shallow at most.
    let shared: usize = a
        .iter()
        .zip(b.iter())
        .map(|(x, y)| (x & y).count_ones() as usize)
        .sum();
    let (Some(x), Some(y)) = (on.first_false(&common), off.first_false(&common)) else {
        return None;
    };
    let least = (x + y).saturating_sub(shared).max(x.max(y) + 1);
    let base = kind(mode).1;
    (rating::rate(base, least.saturating_sub(short(base))) <= bar).then_some(depth)
}

/// The lowest rating of a cycle on `base` whose removal is at depth `depth` in its deeper
/// branch: the removal rests on those facts and on the other branch's assumption at least,
/// which the deeper branch does not hold (it would clash).
pub(crate) fn floor(base: u16, depth: usize) -> u16 {
    rating::rate(base, (depth + 1).saturating_sub(short(base)))
}

/// Facts a cycle on `base` counts fewer: single-kind loops count two facts fewer
/// (calibrated on the rated file: SE counts their links, while mixed loops match the facts
/// of both branches).
pub(crate) fn short(base: u16) -> usize {
    if base == rating::CYCLE { 2 } else { 0 }
}

/// The depth of the removal of digit index `e` from `q` in the branch where it is deeper.
fn deepest(branches: [&Trace; 2], q: usize, e: usize) -> usize {
    branches
        .iter()
        .filter_map(|t| t.find(q, e, false).map(|i| t.nodes[usize::from(i)].depth))
        .max()
        .map_or(0, usize::from)
}

/// Whether the chain from the start comes back to it: a later true fact that removes a
/// strong partner of the start (its cell's other digit, or the digit's other place in a
/// house), which would set the start again.
pub(crate) fn closes(s: &Start, on: &Reach, mode: Mode) -> bool {
    let t = super::state::tables();
    let (c, d, _) = on.root();
    // At most four partners: the cell's other digit and one place in each of its houses.
    let mut partners = [(0, 0); 4];
    let mut count = 0;
    let cell = s.digits(c);
    if mode != Mode::X && cell.count_ones() == 2 {
        partners[count] = (c, (cell & !(1 << d)).trailing_zeros() as usize);
        count += 1;
    }
    if mode != Mode::Y {
        for h in t.cell_houses[c] {
            let places = s.cand[d] & t.houses[h as usize];
            if places.count_ones() == 2 {
                partners[count] = ((places & !(1 << c)).trailing_zeros() as usize, d);
                count += 1;
            }
        }
    }
    // The true facts after the start.
    let later = |e: usize| on.facts(e, true) & !(Set::from(e == d) << c);
    partners[..count].iter().any(|&(w, f)| {
        later(f) & t.peers[w] != 0
            || (mode != Mode::X && (0..9).any(|e| e != f && later(e) >> w & 1 != 0))
    })
}

/// The lowest rating of the removals both branches reach, rated by the facts of the two
/// branches together, and those removals in order (cells by digit); none rated above `bar`.
fn lowest(
    s: &Start,
    branches: [&Trace; 2],
    base: u16,
    bar: Option<u16>,
) -> Option<(u16, Vec<(usize, usize)>)> {
    let mut best: Option<u16> = None;
    let mut list = Vec::new();
    let short = short(base);
    for e in 0..9 {
        for q in cells(s.cand[e] & branches[0].off[e] & branches[1].off[e]) {
            // [`floor`] bounds the rating from below.
            let low = floor(base, deepest(branches, q, e));
            let limit = best.into_iter().chain(bar).min();
            if limit.is_some_and(|l| low > l) {
                continue;
            }
            let tenths = rating::rate(base, union(branches, q, e).saturating_sub(short));
            if best.is_some_and(|b| b < tenths) {
                continue;
            }
            if best.is_none_or(|b| tenths < b) {
                list.clear();
                best = Some(tenths);
            }
            list.push((q, e));
        }
    }
    best.map(|b| (b, list))
}

/// The number of distinct facts the removal of digit index `e` from `q` rests on, over both
/// branches.
fn union(branches: [&Trace; 2], q: usize, e: usize) -> usize {
    let mut seen: Facts = [0; FACT_WORDS];
    for t in branches {
        if let Some(i) = t.find(q, e, false) {
            t.mark_facts(i, &mut seen);
        }
    }
    seen.iter().map(|w| w.count_ones() as usize).sum()
}

/// A cycle's sentence: both ways from its start lead to the removal, each chain written
/// link by link.
fn sentence(s: &Start, r: &Removal) -> String {
    let (name, _) = kind(r.mode);
    let ((c, d), (q, e)) = (r.start, r.removed);
    let chains: Vec<String> = [true, false]
        .into_iter()
        .filter_map(|on| {
            let t = super::trace::trace_with(s, (c, d, on), r.mode, true);
            t.find(q, e, false)
                .map(|i| super::deduction::path(&t.path(i)))
        })
        .collect();
    format!(
        "{name}: both {} and {} lead around a loop to {}: {}",
        fact(c, d, true),
        fact(c, d, false),
        fact(q, e, false),
        chains.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::super::deduction;
    use super::super::reach::tests::boards;
    use super::super::trace::{trace_static_within, trace_with};
    use super::*;

    /// The deduction offering each kept removal in turn makes, as cycles were told before
    /// they were kept: a setting each, with its sentence when first, merged.
    fn offered_in_turn(s: &Start, cycles: &Cycles) -> Option<Deduction> {
        let tenths = cycles.tenths?;
        let mut best = None;
        for (k, r) in cycles.found.iter().enumerate() {
            let ((c, d), (q, e)) = (r.start, r.removed);
            let (name, _) = kind(r.mode);
            let mut found = Deduction::setting(name, tenths, q, e, false);
            for on in [true, false] {
                let t = trace_with(s, (c, d, on), r.mode, true);
                if let Some(i) = t.find(q, e, false) {
                    found.support.extend(deduction::support(&t, &[i]));
                }
            }
            found.support.sort_unstable();
            found.support.dedup();
            if k == 0 {
                found.text = sentence(s, r);
            }
            found.offer(&mut best);
        }
        best
    }

    #[test]
    fn a_bar_passes_over_no_cycle_rated_within_it() {
        let mut kept = 0;
        let (mut on, mut off) = (Reach::new(), Reach::new());
        for s in boards() {
            for mode in [Mode::X, Mode::Y, Mode::Xy] {
                let base = kind(mode).1;
                for (c, d) in s.candidates() {
                    on.run(&s, (c, d, true), mode, u16::MAX);
                    off.run(&s, (c, d, false), mode, u16::MAX);
                    if may_close(&s, [&on, &off], mode, (None, None)).is_none() {
                        continue;
                    }
                    let whole = [true, false].map(|b| trace_with(&s, (c, d, b), mode, true));
                    let Some((tenths, _)) = lowest(&s, [&whole[0], &whole[1]], base, None) else {
                        continue;
                    };
                    for bar in tenths..tenths + 4 {
                        let depth = may_close(&s, [&on, &off], mode, (None, Some(bar)))
                            .expect("a cycle within the bar");
                        let cut = [true, false].map(|b| {
                            let mut t = Trace::new();
                            trace_static_within(&mut t, &s, (c, d, b), mode, depth as u16);
                            t
                        });
                        let found = lowest(&s, [&cut[0], &cut[1]], base, Some(bar));
                        assert_eq!(found.map(|f| f.0), Some(tenths), "r{}c{} {d}", c / 9, c % 9);
                        kept += 1;
                    }
                }
            }
        }
        assert!(kept > 0);
    }

    #[test]
    fn kept_cycles_are_told_as_offering_each_in_turn_would() {
        let mut told = 0;
        for s in boards() {
            for mode in [Mode::X, Mode::Y, Mode::Xy] {
                let mut cycles = Cycles::default();
                let (mut on, mut off) = (Reach::new(), Reach::new());
                for (c, d) in s.candidates() {
                    on.run(&s, (c, d, true), mode, u16::MAX);
                    off.run(&s, (c, d, false), mode, u16::MAX);
                    if may_close(&s, [&on, &off], mode, (cycles.tenths, None)).is_none() {
                        continue;
                    }
                    let traces = [true, false].map(|b| trace_with(&s, (c, d, b), mode, true));
                    offer(
                        &s,
                        [&traces[0], &traces[1]],
                        mode,
                        (c, d),
                        (&mut cycles, None),
                    );
                }
                let (Some(mine), Some(theirs)) =
                    (cycles.deduction(&s), offered_in_turn(&s, &cycles))
                else {
                    continue;
                };
                told += 1;
                assert_eq!(mine.tenths, theirs.tenths);
                assert_eq!(mine.text, theirs.text);
                assert_eq!(mine.eliminations, theirs.eliminations);
                assert_eq!(mine.support, theirs.support);
                assert_eq!(mine.sentence(), theirs.sentence());
            }
        }
        assert!(told > 0, "the boards hold cycles");
    }
}
