//! Forcing X-, Y- and XY-chains: an assumption that implies its own opposite (SE's unary
//! chaining; an AIC's elimination is the assumption "the target is true" failing this way).

use std::cell::Cell;
use std::thread::LocalKey;

use super::super::wording;
use super::cycles::{self, Cycles};
use super::deduction::{self, Deduction};
use super::multiple::Traced;
use super::rating;
use super::reach::Reach;
use super::state::{Set, Start, cells};
use super::trace::{Mode, Trace, nishio_clashes, trace, trace_static_within};

/// The lowest-rated cycle or self-contradicting static chain on the board (SE's X-, Y- then
/// XY-chains; cycles and forcing chains tie as SE sorts one producer's hints).
///
/// The XY reaches of every candidate are made first, whole, and left in `xy` for the static
/// forcing chains: an X or Y trace follows a subset of the XY links, so a candidate whose XY
/// reaches hold neither its opposite nor a cycle's makings holds none at X or Y either, and
/// most candidates are skipped there.
pub(crate) fn static_chains(s: &Start, xy: &mut Option<Traced>) -> Option<Deduction> {
    let (mut cycle, mut chain) = (Cycles::default(), None);
    let (mut on, mut off) = (Reach::new(), Reach::new());
    let mut exact = Trace::new();
    let list = s.candidates();
    let mut kept = whole_xy(s, &list);
    for (mode, name, base) in [
        (Mode::X, "Forcing X-chain", rating::FORCING_X),
        (Mode::Y, "Forcing Y-chain", rating::FORCING_X),
        (Mode::Xy, "Forcing chain", rating::FORCING_XY),
    ] {
        // Every chain of a mode rates at least its base: once something rates lower, the
        // mode (the XY one, costliest) can add nothing.
        let floor = base.min(cycles::kind(mode).1);
        if [cycle.tenths, chain.as_ref().map(|b: &Deduction| b.tenths)]
            .iter()
            .any(|b| b.is_some_and(|b| b < floor))
        {
            continue;
        }
        let skip = if mode == Mode::X {
            unchanged_digits(&X_FOUND_NOTHING, s)
        } else {
            0
        };
        for (k, &(c, d)) in list.iter().enumerate() {
            if skip >> d & 1 != 0 {
                continue;
            }
            let found = (&mut cycle, &mut chain);
            let how = (mode, name, base);
            let whole = [&mut kept.on[k], &mut kept.off[k]];
            if mode == Mode::Xy {
                candidate(s, (c, d), how, (whole, false), &mut exact, found);
            } else if may_hold([whole[0], whole[1]], s, mode) {
                candidate(
                    s,
                    (c, d),
                    how,
                    ([&mut on, &mut off], true),
                    &mut exact,
                    found,
                );
            }
        }
        if mode == Mode::X {
            remember(
                &X_FOUND_NOTHING,
                s,
                cycle.tenths.is_some() || chain.is_some(),
            );
        }
    }
    *xy = Some(kept);
    // Cycles rated above the chains would be displaced by them: they are not told.
    let chain_tenths = chain.as_ref().map(|b| b.tenths);
    let mut best = None;
    if cycle
        .tenths
        .is_some_and(|t| chain_tenths.is_none_or(|c| t <= c))
    {
        best = cycle.deduction(s);
    }
    if let Some(found) = chain {
        found.offer(&mut best);
    }
    best
}

/// The whole XY reaches of every candidate of `list` assumed true and false.
///
/// A false assumption's reach is merged from those of the facts it sets (the cell's other
/// digit, the digit's other place in a house), already made true, rather than spread: they
/// hold all its facts.
fn whole_xy(s: &Start, list: &[(usize, usize)]) -> Traced {
    let mut kept = Traced {
        on: Vec::with_capacity(list.len()),
        off: Vec::with_capacity(list.len()),
    };
    let mut index = [0u16; 81 * 9];
    // Made where they are kept: a reach is large, and moving it there afterwards copied it
    // twice.
    for (k, &(c, d)) in list.iter().enumerate() {
        index[c * 9 + d] = k as u16;
        kept.on.push(Reach::new());
        if let Some(r) = kept.on.last_mut() {
            r.run(s, (c, d, true), Mode::Xy, u16::MAX);
        }
    }
    for &(c, d) in list {
        let mut parts = [&kept.on[0]; 4];
        let mut n = 0;
        let digits = s.digits(c);
        if digits.count_ones() == 2 {
            let e = (digits & !(1 << d)).trailing_zeros() as usize;
            parts[n] = &kept.on[usize::from(index[c * 9 + e])];
            n += 1;
        }
        for p in cells(s.partners(c, d)) {
            parts[n] = &kept.on[usize::from(index[p * 9 + d])];
            n += 1;
        }
        kept.off.push(Reach::new());
        if let Some(r) = kept.off.last_mut() {
            r.merge((c, d, false), Mode::Xy, &parts[..n]);
        }
    }
    kept
}

/// Whether the candidate whose whole XY reaches assumed true and false are `on` and `off`
/// may hold a chain or cycle at `mode` (X or Y): its trace reaches a subset of their facts,
/// so it needs them to hold the assumption's opposite, or a removal both reach (of the
/// candidate's own digit at X, which follows no other) and a loop that closes.
fn may_hold([on, off]: [&Reach; 2], s: &Start, mode: Mode) -> bool {
    let (c, d, _) = on.root();
    if on.facts(d, false) >> c & 1 != 0 || off.facts(d, true) >> c & 1 != 0 {
        return true;
    }
    let removes = |e: usize| s.cand[e] & on.facts(e, false) & off.facts(e, false) != 0;
    let removal = if mode == Mode::X {
        removes(d)
    } else {
        (0..9).any(removes)
    };
    removal && cycles::closes(s, on, mode)
}

/// Reaches candidate (`c`, `d`) true and false at `mode` into `on` and `off` (unless `run`
/// is false: then they are its whole reaches already), offering its self-contradictions to
/// `chain` and its cycle to `cycle`; `exact` holds the exact trace of whatever is offered
/// (made only then: a reach costs a fraction of a trace).
///
/// Once something is found, only what rates no higher can matter (a higher rating changes
/// neither the lowest rating nor what is found at it), so the reaches stop at the depth past
/// which everything rates higher; they are redone whole only when a cycle may still come of
/// them (a cycle needs the whole reaches: no contradiction anywhere, a loop that closes), from
/// where they stopped.
fn candidate(
    s: &Start,
    (c, d): (usize, usize),
    (mode, name, base): (Mode, &'static str, u16),
    ([on, off], run): ([&mut Reach; 2], bool),
    exact: &mut Trace,
    (cycle, chain): (&mut Cycles, &mut Option<Deduction>),
) {
    let bar = [cycle.tenths, chain.as_ref().map(|b| b.tenths)]
        .into_iter()
        .flatten()
        .min();
    let limit = bar.map_or(u16::MAX, |bar| depth_limit(base, mode, bar));
    if run {
        on.run(s, (c, d, true), mode, limit);
        off.run(s, (c, d, false), mode, limit);
    }
    for r in [&*on, &*off] {
        let current = chain.as_ref().map(|b| b.tenths);
        let root = r.root();
        // The chain rests on the facts of its path, as many as its end's depth.
        let Some(depth) = r.depth(root.0, root.1, !root.2) else {
            continue;
        };
        let tenths = rating::rate(base, depth);
        if bar.is_some_and(|b| tenths > b) {
            continue;
        }
        // A chain that goes unread needs no words nor support, so no exact trace: its
        // rating is its depth's.
        if !wording::read(tenths) {
            let (c, d, on) = root;
            Deduction::setting(name, tenths, c, d, !on).offer(chain);
            continue;
        }
        trace_static_within(exact, s, root, mode, depth as u16);
        if let Some(found) = self_contradiction(exact, name, base, (bar, current)) {
            found.offer(chain);
        }
    }
    if let Some(bar) = bar.filter(|_| on.cut || off.cut) {
        if !cycles::may_offer(s, [on, off], mode, bar) {
            return;
        }
        on.finish(s);
        off.finish(s);
    }
    let Some(depth) = cycles::may_close(s, [on, off], mode, (cycle.tenths, bar)) else {
        return;
    };
    let mut other = Trace::new();
    let depth = u16::try_from(depth).unwrap_or(u16::MAX);
    trace_static_within(exact, s, (c, d, true), mode, depth);
    trace_static_within(&mut other, s, (c, d, false), mode, depth);
    cycles::offer(s, [exact, &other], mode, (c, d), (cycle, bar));
}

/// The depth past which a fact of a `mode` trace rates above `bar` both as the end of a chain
/// on `base` (rated by the facts it rests on, at least its depth) and as a cycle's removal.
fn depth_limit(base: u16, mode: Mode, bar: u16) -> u16 {
    /// A limit's question (base, mode, bar) and answer.
    type Limit = ((u16, Mode, u16), u16);
    thread_local! {
        /// The last limit worked out: the bar changes seldom, and every candidate asks.
        static LAST: Cell<Option<Limit>> = const { Cell::new(None) };
    }
    let key = (base, mode, bar);
    if let Some((k, limit)) = LAST.try_with(Cell::get).ok().flatten()
        && k == key
    {
        return limit;
    }
    let limit = work_out_limit(base, mode, bar);
    let _ = LAST.try_with(|last| last.set(Some((key, limit))));
    limit
}

/// [`depth_limit`], worked out.
fn work_out_limit(base: u16, mode: Mode, bar: u16) -> u16 {
    let cycle = cycles::kind(mode).1;
    let fits =
        |depth: usize| rating::rate(base, depth) <= bar || cycles::floor(cycle, depth) <= bar;
    // A trace holds each of the 1,458 facts at most once, so no depth goes past that. Both
    // ratings grow with the depth, so the depths that fit run from 2 to some bound: found by
    // halving (this runs for every candidate once something is found).
    let (mut low, mut high) = (1usize, 81 * 9 * 2);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low as u16
}

/// Nishio forcing chains: a digit assumed in a cell whose consequences for that digit alone
/// contradict each other.
pub(crate) fn nishio(s: &Start) -> Option<Deduction> {
    let mut best: Option<Deduction> = None;
    let skip = unchanged_digits(&NISHIO_FOUND_NOTHING, s);
    for (c, d) in s.candidates() {
        if skip >> d & 1 != 0 {
            continue;
        }
        // Only a trace with a contradiction counts: most have none, known without one.
        if !nishio_clashes(s, c, d) {
            continue;
        }
        let t = trace(s, c, d, true, Mode::Nishio);
        let Some(clash) = &t.contradiction else {
            continue;
        };
        let tenths = rating::rate(rating::NISHIO, t.clash_size());
        if best.as_ref().is_some_and(|b| b.tenths < tenths) {
            continue;
        }
        let name = "Nishio forcing chain";
        let mut found = Deduction::setting(name, tenths, c, d, false);
        found.rest_on(|| deduction::support(&t, clash));
        found.say(|| {
            format!(
                "{name}: with {} the digit {} has no consistent place left, so {}",
                deduction::fact(c, d, true),
                d + 1,
                deduction::fact(c, d, false)
            )
        });
        found.offer(&mut best);
    }
    remember(&NISHIO_FOUND_NOTHING, s, best.is_some());
    best
}

/// Each digit's candidates when a search last found nothing.
type NothingOn = LocalKey<Cell<Option<[Set; 9]>>>;

thread_local! {
    /// For the X-chains and cycles, and for Nishio chains: both follow one digit's
    /// candidates alone, so a digit whose candidates are as they were when the search last
    /// found nothing finds nothing again (hard puzzles run these at every step, and a step
    /// moves few digits).
    static X_FOUND_NOTHING: Cell<Option<[Set; 9]>> = const { Cell::new(None) };
    static NISHIO_FOUND_NOTHING: Cell<Option<[Set; 9]>> = const { Cell::new(None) };
}

/// The digits (bit `d`) whose candidates are those `memo` last found nothing on.
fn unchanged_digits(memo: &'static NothingOn, s: &Start) -> u16 {
    let Some(then) = memo.try_with(Cell::get).ok().flatten() else {
        return 0;
    };
    (0..9)
        .filter(|&d| then[d] == s.cand[d])
        .fold(0, |m, d| m | 1 << d)
}

/// Records the candidates a search ran on when it found nothing (else forgets).
fn remember(memo: &'static NothingOn, s: &Start, found: bool) {
    let _ = memo.try_with(|m| m.set((!found).then_some(s.cand)));
}

/// The chain from a trace's assumption back to its opposite, if there is one rated no
/// higher than `bar` (the best so far, which a higher one could not displace); told in words
/// only when it rates below `current`, the best chain so far (an equal one is merged into
/// that one, which keeps its own sentence).
fn self_contradiction(
    t: &Trace,
    name: &'static str,
    base: u16,
    (bar, current): (Option<u16>, Option<u16>),
) -> Option<Deduction> {
    let root = t.nodes[0];
    let (c, d, on) = (usize::from(root.cell), usize::from(root.digit), root.on);
    let end = t.find(c, d, !on)?;
    let tenths = rating::rate(base, t.ancestors(&[end]));
    if bar.is_some_and(|b| tenths > b) {
        return None;
    }
    let mut found = Deduction::setting(name, tenths, c, d, !on);
    found.rest_on(|| deduction::support(t, &[end]));
    if current.is_none_or(|b| tenths < b) {
        found.say(|| {
            format!(
                "{name}: {}, so {}",
                deduction::path(&t.path(end)),
                deduction::fact(c, d, !on)
            )
        });
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::super::trace::trace_with;
    use super::*;
    use crate::logic::board::testing::{empty, remove};

    #[test]
    fn candidates_skipped_at_x_and_y_hold_no_chain_or_cycle_there() {
        let (mut skipped, mut held) = (0, 0);
        for s in super::super::reach::tests::boards() {
            let list = s.candidates();
            let whole = whole_xy(&s, &list);
            let (mut on, mut off) = (Reach::new(), Reach::new());
            for (k, &(c, d)) in list.iter().enumerate() {
                for mode in [Mode::X, Mode::Y] {
                    on.run(&s, (c, d, true), mode, u16::MAX);
                    off.run(&s, (c, d, false), mode, u16::MAX);
                    let opposite =
                        on.depth(c, d, false).is_some() || off.depth(c, d, true).is_some();
                    let cycle = cycles::may_close(&s, [&on, &off], mode, (None, None)).is_some();
                    if may_hold([&whole.on[k], &whole.off[k]], &s, mode) {
                        held += usize::from(opposite || cycle);
                    } else {
                        skipped += 1;
                        assert!(!opposite && !cycle, "r{}c{} {d} {mode:?}", c / 9, c % 9);
                    }
                }
            }
        }
        assert!(skipped > 0 && held > 0, "{skipped} skipped, {held} held");
    }

    #[test]
    fn an_x_chain_eliminates_what_sees_both_ends() {
        // Digit 1: column 1 only in r1, r5; column 2 only in r5... a skyscraper: columns 1
        // and 5 hold 1 only in rows 1/6 and 2/6.
        let mut b = empty(3, 3);
        let keep = [(0, 0), (5, 0), (1, 4), (5, 4)];
        for col in [0, 4] {
            let cells: Vec<(usize, usize)> = (0..9)
                .map(|r| (r, col))
                .filter(|rc| !keep.contains(rc))
                .collect();
            remove(&mut b, 1, &cells);
        }
        let s = Start::new(crate::logic::chain::state::State::from_board(&b));
        let t = trace_with(&s, (3, 0, true), Mode::X, true);
        assert!(
            t.find(3, 0, false).is_some(),
            "{:?}",
            t.nodes
                .iter()
                .map(super::deduction::node)
                .collect::<Vec<_>>()
        );
        let found = static_chains(&s, &mut None).expect("an X-chain");
        assert_eq!(found.name, "Forcing X-chain");
    }
}
