//! Forcing chains with several branches, static or dynamic: contradiction, double
//! implication (a fact that follows from a candidate and from its absence), cell forcing
//! (from every candidate of a cell) and region forcing (from every place of a digit in a house).

use super::deduction::{self, Deduction, cell_name, fact, house_name};
use super::rating;
use super::state::{Set, Start, cells, tables};
use super::trace::{Mode, Trace, trace_into};
use super::trail::{self, Link, Told};

/// The slot of digit index `d`'s true (`on`) or false facts in a [`Facts`] list.
#[inline]
fn slot(d: usize, on: bool) -> usize {
    d * 2 + usize::from(on)
}

/// Cell sets of facts, one per digit and kind, at [`slot`].
type Facts = [Set; 18];

/// What a branch tells of a fact: whether it holds it, at what depth, on how many facts it
/// rests, and which candidates those are.
pub(crate) trait Branch {
    /// Cells where digit index `d` is shown true (`on`) or false.
    fn facts(&self, d: usize, on: bool) -> Set;
    /// Keeps in `acc` (at [`slot`]) only the facts this branch holds.
    #[inline]
    fn narrow(&self, acc: &mut Facts) {
        for d in 0..9 {
            acc[slot(d, true)] &= self.facts(d, true);
            acc[slot(d, false)] &= self.facts(d, false);
        }
    }
    /// The fact's depth, a lower bound of [`Branch::count`], if held.
    fn depth(&self, c: usize, d: usize, on: bool) -> Option<usize>;
    /// Whether [`Branch::count`] is [`Branch::depth`] (static facts have one parent).
    const COUNT_IS_DEPTH: bool = false;
    /// The number of facts the fact rests on, itself included, if held.
    fn count(&self, c: usize, d: usize, on: bool) -> Option<usize>;
    /// The candidates the fact rests on, if held.
    fn support(&self, s: &Start, c: usize, d: usize, on: bool) -> Option<Vec<(u16, u8)>>;
    /// The facts from the branch's assumption to the given facts, link by link, if all held.
    fn trail(&self, ends: &[Told]) -> Option<Vec<Link>>;
}

impl Branch for Trace {
    fn facts(&self, d: usize, on: bool) -> Set {
        if on { self.on[d] } else { self.off[d] }
    }

    fn depth(&self, c: usize, d: usize, on: bool) -> Option<usize> {
        self.find(c, d, on)
            .map(|i| usize::from(self.nodes[usize::from(i)].depth))
    }

    fn count(&self, c: usize, d: usize, on: bool) -> Option<usize> {
        self.find(c, d, on).map(|i| self.ancestors(&[i]))
    }

    fn support(&self, _: &Start, c: usize, d: usize, on: bool) -> Option<Vec<(u16, u8)>> {
        self.find(c, d, on).map(|i| deduction::support(self, &[i]))
    }

    fn trail(&self, ends: &[Told]) -> Option<Vec<Link>> {
        let nodes: Option<Vec<u16>> = ends.iter().map(|&(c, d, on)| self.find(c, d, on)).collect();
        nodes.map(|n| Trace::trail(self, &n))
    }
}

/// The facts for people, "r1c1≠3 and r2c2≠3".
fn facts(ends: &[Told]) -> String {
    let said: Vec<String> = ends.iter().map(|&(c, d, on)| fact(c, d, on)).collect();
    said.join(" and ")
}

/// Each branch's trail to the facts, as `: trail; trail`, so that a player can follow every
/// one link by link (the candidates they pass through are what the step rests on); empty if
/// a branch cannot tell its trail.
fn chains<B: Branch>(branches: &[&B], ends: &[Told]) -> String {
    let told: Option<Vec<Vec<Link>>> = branches.iter().map(|b| b.trail(ends)).collect();
    told.map_or(String::new(), |list| {
        format!(": {}", trail::branches(&list))
    })
}

/// Branches from every candidate assumed true and false.
struct Branches<B> {
    list: Vec<(usize, usize)>,
    on: Vec<B>,
    off: Vec<B>,
}

/// The lowest-rated multiple-branch forcing chain at `mode`.
pub(crate) fn multiple(s: &Start, mode: Mode, name: &'static str, base: u16) -> Option<Deduction> {
    let list = s.candidates();
    // Each trace made where it stays (one returned by value is moved, some 700 bytes).
    let traced = |on: bool| {
        let mut out: Vec<Trace> = Vec::with_capacity(list.len());
        for &(c, d) in &list {
            out.push(Trace::new());
            if let Some(t) = out.last_mut() {
                trace_into(t, s, (c, d, on), mode, false);
            }
        }
        out
    };
    let b = Branches {
        on: traced(true),
        off: traced(false),
        list,
    };
    let best = contradictions(&b, name, base);
    implications(s, &b, name, base, best)
}

/// Double implications and cell and region forcing chains, offered to `best`.
fn implications<B: Branch>(
    s: &Start,
    b: &Branches<B>,
    name: &'static str,
    base: u16,
    mut best: Option<Deduction>,
) -> Option<Deduction> {
    for found in [double(s, b, name, base), forcing(s, b, name, base)]
        .into_iter()
        .flatten()
    {
        found.offer(&mut best);
    }
    best
}

/// Assumptions that contradict themselves: the candidate is false (or true).
fn contradictions(b: &Branches<Trace>, name: &'static str, base: u16) -> Option<Deduction> {
    let mut best: Option<Deduction> = None;
    for (k, &(c, d)) in b.list.iter().enumerate() {
        let off = b.off.get(k).map(|t| (t, false));
        for (t, on) in std::iter::once((&b.on[k], true)).chain(off) {
            let Some(clash) = &t.contradiction else {
                continue;
            };
            let tenths = rating::rate(base, t.clash_size());
            if best.as_ref().is_some_and(|o| o.tenths < tenths) {
                continue;
            }
            let mut found = Deduction::setting(name, tenths, c, d, !on);
            found.rest_on(|| deduction::support(t, clash));
            found.say_before(&best, || {
                format!(
                    "{name}: {} leads to {}: {}",
                    fact(c, d, on),
                    clash_name(t, clash),
                    trail::write(&t.trail(clash))
                )
            });
            found.offer(&mut best);
        }
    }
    best
}

/// Facts that follow both from a candidate and from its absence.
fn double<B: Branch>(
    s: &Start,
    b: &Branches<B>,
    name: &'static str,
    base: u16,
) -> Option<Deduction> {
    let mut best: Option<Deduction> = None;
    for (k, &(c, d)) in b.list.iter().enumerate() {
        let branches = [&b.on[k], &b.off[k]];
        if let Some((mut found, ends)) = common(s, &branches, name, base, best.as_ref()) {
            found.say_before(&best, || {
                format!(
                    "{name}: {} and {} both lead to {}{}",
                    fact(c, d, true),
                    fact(c, d, false),
                    facts(&ends),
                    chains(&branches, &ends)
                )
            });
            found.offer(&mut best);
        }
    }
    best
}

/// Facts that follow from every candidate of a cell, or every place of a digit in a house.
fn forcing<B: Branch>(
    s: &Start,
    b: &Branches<B>,
    name: &'static str,
    base: u16,
) -> Option<Deduction> {
    let mut best: Option<Deduction> = None;
    // Each candidate's place in the list, looked up for every cell and house.
    // (16 bits: a board has at most 729 candidates; the table is cleared for every search.)
    let mut slots = [u16::MAX; 81 * 9];
    for (k, &(c, d)) in b.list.iter().enumerate() {
        slots[c * 9 + d] = k as u16;
    }
    let index = |c: usize, d: usize| {
        Some(slots[c * 9 + d])
            .filter(|&k| k != u16::MAX)
            .map(usize::from)
    };
    // One list for every group (most share nothing, and a list each cost an allocation).
    let mut branches: Vec<&B> = Vec::with_capacity(9);
    for c in cells(s.open()) {
        branches.clear();
        branches.extend((0..9).filter_map(|d| index(c, d)).map(|k| &b.on[k]));
        if let Some((mut found, ends)) = common(s, &branches, name, base, best.as_ref()) {
            found.say_before(&best, || {
                format!(
                    "{name}: each digit of {} leads to {}{}",
                    cell_name(c),
                    facts(&ends),
                    chains(&branches, &ends)
                )
            });
            found.offer(&mut best);
        }
    }
    for (h, &house) in tables().houses.iter().enumerate() {
        for d in 0..9 {
            let places: Set = s.cand[d] & house;
            if places.count_ones() < 2 {
                continue;
            }
            branches.clear();
            branches.extend(cells(places).filter_map(|c| index(c, d).map(|k| &b.on[k])));
            if let Some((mut found, ends)) = common(s, &branches, name, base, best.as_ref()) {
                found.say_before(&best, || {
                    format!(
                        "{name}: each place of digit {} in {} leads to {}{}",
                        d + 1,
                        house_name(h),
                        facts(&ends),
                        chains(&branches, &ends)
                    )
                });
                found.offer(&mut best);
            }
        }
    }
    best
}

/// The candidates every one of `branches` (two or more) implies, per digit and kind; `None`
/// when they share nothing.
fn shared_facts<B: Branch>(s: &Start, branches: &[&B]) -> Option<Facts> {
    if branches.len() < 2 {
        return None;
    }
    // Every kind of fact at once, and most groups share none: nothing more to do then,
    // often known from the first two branches alone (tested before anything is kept, and
    // without the candidates: branches hold nothing else).
    let (pair, rest) = branches.split_at(2);
    let mut any: Set = 0;
    for d in 0..9 {
        for on in [true, false] {
            any |= pair[0].facts(d, on) & pair[1].facts(d, on);
        }
    }
    if any == 0 {
        return None;
    }
    let mut shared: Facts = [0; 18];
    for d in 0..9 {
        for on in [true, false] {
            shared[slot(d, on)] = s.cand[d] & pair[0].facts(d, on) & pair[1].facts(d, on);
        }
    }
    for t in rest {
        t.narrow(&mut shared);
    }
    if !rest.is_empty() && shared.iter().all(|&set| set == 0) {
        return None;
    }
    Some(shared)
}

/// The cheapest new facts common to all `branches` (those of the lowest rating), if they
/// beat `bar`: the deduction (text left to the caller) and the facts.
fn common<B: Branch>(
    s: &Start,
    branches: &[&B],
    name: &'static str,
    base: u16,
    bar: Option<&Deduction>,
) -> Option<(Deduction, Vec<Told>)> {
    let shared = shared_facts(s, branches)?;
    let mut best: Vec<(u16, usize, usize, bool)> = Vec::new();
    for d in 0..9 {
        for is_on in [true, false] {
            for q in cells(shared[slot(d, is_on)]) {
                // The branches' depths bound the count from below: skip what cannot win
                // before counting ancestors.
                let floor: usize = branches.iter().filter_map(|t| t.depth(q, d, is_on)).sum();
                let low = rating::rate(base, floor);
                if bar.is_some_and(|b| low > b.tenths) || best.first().is_some_and(|b| low > b.0) {
                    continue;
                }
                let nodes: usize = if B::COUNT_IS_DEPTH {
                    floor
                } else {
                    branches.iter().filter_map(|t| t.count(q, d, is_on)).sum()
                };
                let tenths = rating::rate(base, nodes);
                if bar.is_some_and(|b| tenths > b.tenths)
                    || best.first().is_some_and(|b| tenths > b.0)
                {
                    continue;
                }
                if best.first().is_some_and(|b| tenths < b.0) {
                    best.clear();
                }
                best.push((tenths, q, d, is_on));
            }
        }
    }
    let &(tenths, q, d, on) = best.first()?;
    let mut found = Deduction::setting(name, tenths, q, d, on);
    for &(_, q, d, on) in &best {
        let change = (q as u16, d as u8 + 1);
        if on {
            found.placements.push(change);
        } else {
            found.eliminations.push(change);
        }
    }
    found.rest_on(|| {
        let mut support = Vec::with_capacity(128);
        for &(_, q, d, on) in &best {
            for t in branches {
                if let Some(more) = t.support(s, q, d, on) {
                    support.extend(more);
                }
            }
        }
        support
    });
    for list in [
        &mut found.placements,
        &mut found.eliminations,
        &mut found.support,
    ] {
        list.sort_unstable();
        list.dedup();
    }
    let ends = best.iter().map(|&(_, q, d, on)| (q, d, on)).collect();
    Some((found, ends))
}

/// The contradiction a trace meets, for people (see [`trail::contradiction`]).
fn clash_name(t: &Trace, clash: &[u16]) -> String {
    let facts: Vec<Told> = clash
        .iter()
        .map(|&i| {
            let n = &t.nodes[usize::from(i)];
            (usize::from(n.cell), usize::from(n.digit), n.on)
        })
        .collect();
    trail::contradiction(&facts)
}
