//! Static (SE 8.0) and dynamic (SE 8.5) forcing chains with several branches, found as
//! Sukaku Explainer finds them: for each candidate of each cell, in order, the consequences of
//! the candidate and of its absence ([`implications`]); then a contradiction (dynamic only),
//! a fact both sides imply (dynamic, cells of three or more digits), a fact every place of
//! the digit in a house implies, and after the cell's last digit a fact every digit of the
//! cell implies. Of all these SE takes the lowest rating, then the fewest facts, then
//! double implications, cells, houses and contradictions in that order, then the first found.
//! A step rests on the facts behind each branch's end, counted once per branch.

use std::cell::Cell;

use super::super::wording;
use super::closure::Reaches;
use super::deduction::{Deduction, cell_name, fact as say_fact, house_name};
use super::implications::{Fact, Rules, Search, fact, parts};
use super::kept::{Graph, Kept, NO_SLOT};
use super::nishio::others;
use super::rating;
use super::state::{Set, Start, cells};
use super::trail::{Link, branches, support};

/// A bit per fact, as cells by truth and digit (as [`Search::shown`] keeps them).
#[derive(Clone, Copy)]
struct Bits([[Set; 9]; 2]);

impl Bits {
    fn has(&self, f: Fact) -> bool {
        let (c, d, on) = parts(f);
        self.0[usize::from(on)][d] >> c & 1 != 0
    }
    /// Keeps only the facts `other` has too; whether any are left.
    fn keep(&mut self, other: &Bits) -> bool {
        let mut any = 0;
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a &= b;
                any |= *a;
            }
        }
        any != 0
    }
}

/// What one assumption leads to: the facts its search showed (its graph's nodes, true ones
/// and false ones, but for the fact that closes a contradiction), its graph, and the facts its
/// contradiction's two sides rest on when it has one (see [`Runs::outcome`]: only for a bar
/// at or below the first one asked).
struct Outcome {
    bits: Bits,
    clash: Option<usize>,
    graph: Graph,
}

/// The searches' storage and each assumption's outcome, made once.
struct Runs<'a> {
    s: &'a Start,
    rules: Rules,
    search: Search,
    /// Each outcome's fact graph, to count what its facts rest on without a new search.
    kept: Kept,
    /// Where each assumption's outcome is kept in `outcomes`, once made.
    slots: Vec<u32>,
    /// Each fact's place among the facts [`Runs::counted`] counts, else [`NO_SLOT`].
    slots_of: Vec<u16>,
    outcomes: Vec<Outcome>,
    /// For static chains, the closure of the board's links: a group of assumptions that
    /// cannot reach a common fact needs no search.
    closure: Option<&'a Reaches>,
}

impl<'a> Runs<'a> {
    fn new(s: &'a Start, closure: Option<&'a Reaches>) -> Runs<'a> {
        Runs {
            s,
            rules: Rules {
                cells: true,
                dynamic: closure.is_none(),
            },
            search: Search::new(),
            kept: Kept::new(),
            slots: vec![u32::MAX; 81 * 9 * 2],
            slots_of: vec![NO_SLOT; 81 * 9 * 2],
            outcomes: Vec::new(),
            closure,
        }
    }

    /// Whether the assumptions `starts` may lead to a common fact.
    fn may_share(&self, starts: &[Fact]) -> bool {
        self.closure.is_none_or(|closure| {
            closure.share(starts.iter().map(|&f| {
                let (c, d, _) = parts(f);
                (c, d)
            }))
        })
    }

    /// The outcome of `start`, its contradiction left out when it rests on more than `bar`
    /// facts: a step of more facts than the best one's cannot come before it (and the best
    /// one's only fall, so an outcome made for one bar serves every later one).
    fn outcome(&mut self, start: Fact, bar: usize) -> &Outcome {
        let k = usize::from(start);
        if self.slots[k] == u32::MAX {
            let clash = self.search.run(self.s, start, self.rules);
            let clash = clash.and_then(|(a, b)| {
                let n = self.search.ancestors_within(a, bar)?;
                Some(n + self.search.ancestors_within(b, bar - n)?)
            });
            let graph = self.kept.keep(&self.search);
            let bits = Bits(*self.search.shown());
            self.slots[k] = self.outcomes.len() as u32;
            self.outcomes.push(Outcome { bits, clash, graph });
        }
        &self.outcomes[self.slots[k] as usize]
    }

    /// The facts `start` reaches, in the order reached.
    fn facts(&mut self, start: Fact) -> &[Fact] {
        let graph = self.outcome(start, usize::MAX).graph;
        self.kept.facts(graph)
    }

    /// Each of `targets` (which every one of `starts` reaches) with the facts it rests on
    /// summed over `starts`, leaving out those that rest on more than `bar`: a step of more
    /// facts than the best one's cannot come before it. Their depths, which the counts
    /// cannot be below, rule out most without a walk, and the walks stop past `bar`.
    fn counted(&mut self, starts: &[Fact], targets: Vec<Fact>, bar: usize) -> Vec<(Fact, usize)> {
        if targets.is_empty() {
            return Vec::new();
        }
        for (k, &target) in targets.iter().enumerate() {
            self.slots_of[usize::from(target)] = k as u16;
        }
        // Each target's node in each start's graph, start by start.
        let n = targets.len();
        let mut found = vec![0; n * starts.len()];
        let mut counts: Vec<Option<usize>> = vec![Some(0); n];
        for (&start, found) in starts.iter().zip(found.chunks_exact_mut(n)) {
            let graph = self.outcome(start, usize::MAX).graph;
            self.kept.locate(graph, &self.slots_of, found);
            for (count, &i) in counts.iter_mut().zip(found.iter()) {
                *count = count.map(|c| c + self.kept.depth(i));
            }
        }
        for &target in &targets {
            self.slots_of[usize::from(target)] = NO_SLOT;
        }
        for count in &mut counts {
            *count = count.filter(|&c| c <= bar).map(|_| 0);
        }
        for found in found.chunks_exact(n) {
            for (count, &i) in counts.iter_mut().zip(found) {
                *count = count.and_then(|c| Some(c + self.kept.ancestors(i, bar - c)?));
            }
        }
        let counted = targets.into_iter().zip(counts);
        counted.filter_map(|(t, n)| Some((t, n?))).collect()
    }
}

/// What a step's branches start from, kept to word the step once it is chosen.
#[derive(Clone, Copy)]
enum Claim {
    /// One assumption that meets a fact both true and false.
    Clash(Fact),
    /// A candidate (cell, digit index) and its absence.
    Double(usize, usize),
    /// Every digit of a cell.
    Cell(usize),
    /// Every place of a digit index in a house (its index in the tables' houses).
    Region(usize, usize),
}

/// One step found, with what SE sorts by.
struct Found {
    difficulty: f64,
    facts: usize,
    order: u8,
    claim: Claim,
    target: Fact,
}

/// SE's order among equal ratings and lengths.
const DOUBLE: u8 = 1;
const CELL: u8 = 5;
const REGION: u8 = 6;
const CONTRADICTION: u8 = 7;

/// The step SE's multiple (static) forcing chains take on this board, if any; `closure` is
/// that of the links of `s`.
pub(crate) fn static_forcing(s: &Start, closure: &Reaches) -> Option<Deduction> {
    forcing(s, Runs::new(s, Some(closure)))
}

/// The step SE's dynamic forcing chains take on this board, if any.
pub(crate) fn dynamic_forcing(s: &Start) -> Option<Deduction> {
    forcing(s, Runs::new(s, None))
}

/// The step the forcing chains of `runs` take.
fn forcing<'a>(s: &'a Start, mut runs: Runs<'a>) -> Option<Deduction> {
    let dynamic = runs.rules.dynamic;
    let (name, base) = if dynamic {
        ("Dynamic forcing chain", rating::DYNAMIC)
    } else {
        ("Forcing chain", rating::MULTIPLE)
    };
    let mut best: Option<Found> = None;
    // The best step's facts: what rests on more cannot come before it.
    let bar = Cell::new(usize::MAX);
    let mut offer = |found: Found| {
        let better = best.as_ref().is_none_or(|b| {
            (found.difficulty, found.facts, found.order) < (b.difficulty, b.facts, b.order)
        });
        if better {
            bar.set(found.facts);
            best = Some(found);
        }
    };
    // Only the step chosen becomes a deduction, and is worded (see `word`).
    let make = |facts: usize, order: u8, target: Fact, claim: Claim| Found {
        difficulty: rating::difficulty(base, facts),
        facts,
        order,
        claim,
        target,
    };
    for c in 0..81 {
        let digits = s.digits(c);
        let size = digits.count_ones();
        if size < 2 || (!dynamic && size < 3) {
            continue;
        }
        // The cell's digits assumed true (a stack list: this runs for every cell of every step).
        let (mut starts, mut n) = ([0 as Fact; 9], 0);
        for d in (0..9).filter(|&d| digits >> d & 1 != 0) {
            let (yes, no) = (fact(c, d, true), fact(c, d, false));
            starts[n] = yes;
            n += 1;
            if dynamic {
                for start in [yes, no] {
                    if let Some(facts) = runs.outcome(start, bar.get()).clash {
                        offer(make(facts, CONTRADICTION, start ^ 1, Claim::Clash(start)));
                    }
                }
                if size >= 3 {
                    for (target, facts) in both_ways(&mut runs, yes, no, bar.get()) {
                        offer(make(facts, DOUBLE, target, Claim::Double(c, d)));
                    }
                }
            }
            regions(&mut runs, (c, d), bar.get(), &mut |facts, target, house| {
                offer(make(facts, REGION, target, Claim::Region(house, d)))
            });
        }
        for (target, facts) in common(&mut runs, &starts[..n], bar.get()) {
            offer(make(facts, CELL, target, Claim::Cell(c)));
        }
    }
    let found = best?;
    let tenths = rating::tenths(found.difficulty);
    let mut deduction = setting(s, name, tenths, found.target);
    if wording::read(deduction.tenths) {
        let (said, trails) = word(&mut runs, found.claim, found.target);
        deduction.support = support(&trails);
        deduction.text = format!("{name}: {said}: {}", branches(&trails));
    }
    Some(deduction)
}

/// The deduction that sets `target`: a false fact removes its candidate, a true one the
/// cell's other digits (as SE does).
fn setting(s: &Start, name: &'static str, tenths: u16, target: Fact) -> Deduction {
    let (c, d, on) = parts(target);
    let mut deduction = Deduction::setting(name, tenths, c, d, on);
    if on {
        deduction.placements.clear();
        deduction.eliminations = others(s, c, d);
    }
    deduction
}

/// What the step claims, and each branch's trail to its end: the target, or both sides of
/// the contradiction.
fn word(runs: &mut Runs, claim: Claim, target: Fact) -> (String, Vec<Vec<Link>>) {
    let (q, e, on) = parts(target);
    let end = say_fact(q, e, on);
    let (starts, said): (Vec<Fact>, String) = match claim {
        // Said once the trail shows which fact it meets both ways.
        Claim::Clash(start) => (vec![start], String::new()),
        Claim::Double(c, d) => (
            vec![fact(c, d, true), fact(c, d, false)],
            format!(
                "{} and {} both lead to {end}",
                say_fact(c, d, true),
                say_fact(c, d, false)
            ),
        ),
        Claim::Cell(c) => (
            (0..9)
                .filter(|&d| runs.s.digits(c) >> d & 1 != 0)
                .map(|d| fact(c, d, true))
                .collect(),
            format!("each digit of {} leads to {end}", cell_name(c)),
        ),
        Claim::Region(h, d) => (
            cells(runs.s.cand[d] & runs.s.tables.houses[h])
                .map(|c| fact(c, d, true))
                .collect(),
            format!(
                "each place of digit {} in {} leads to {end}",
                d + 1,
                house_name(h)
            ),
        ),
    };
    let mut trails = Vec::with_capacity(starts.len());
    for start in starts {
        let clash = runs.search.run(runs.s, start, runs.rules);
        let ends = match claim {
            Claim::Clash(_) => clash.map(|(a, b)| vec![a, b]),
            _ => runs.search.reached(target).map(|i| vec![i]),
        };
        trails.push(runs.search.trail(&ends.unwrap_or_default()));
    }
    if let Claim::Clash(start) = claim {
        let (c, d, was) = parts(start);
        let (q, e, _) = trails[0].last().map_or((c, d, was), |l| l.fact);
        let said = format!(
            "{} leads to both {} and {}",
            say_fact(c, d, was),
            say_fact(q, e, true),
            say_fact(q, e, false)
        );
        return (said, trails);
    }
    (said, trails)
}

/// The facts both `yes` and `no` lead to, true ones first, each in the order `yes` reached
/// it, with the facts each rests on summed over the two.
fn both_ways(runs: &mut Runs, yes: Fact, no: Fact, bar: usize) -> Vec<(Fact, usize)> {
    let mut shared = runs.outcome(no, bar).bits;
    if !shared.keep(&runs.outcome(yes, bar).bits) {
        return Vec::new();
    }
    let mut both: Vec<Fact> = runs
        .facts(yes)
        .iter()
        .copied()
        .filter(|&f| shared.has(f))
        .collect();
    both.sort_by_key(|&f| f & 1 == 0);
    runs.counted(&[yes, no], both, bar)
}

/// The facts every start leads to, true ones first, each in the order the first start
/// reached it, with the facts each rests on summed over the starts.
fn common(runs: &mut Runs, starts: &[Fact], bar: usize) -> Vec<(Fact, usize)> {
    if !runs.may_share(starts) {
        return Vec::new();
    }
    // The facts every start reaches, as bits first: most cells have none, and those that
    // have some take them from the first start's list in one pass. A start is searched
    // only once those before it share something (a later group may search it).
    let mut every = runs.outcome(starts[0], bar).bits;
    for &start in &starts[1..] {
        if !every.keep(&runs.outcome(start, bar).bits) {
            return Vec::new();
        }
    }
    let mut shared: Vec<Fact> = (runs.facts(starts[0]).iter().copied())
        .filter(|&f| every.has(f))
        .collect();
    shared.sort_by_key(|&f| f & 1 == 0);
    runs.counted(starts, shared, bar)
}

/// Region forcing chains from digit index `d` in `c`: each house of `c` (box, row, column)
/// whose first place of `d` is `c`.
fn regions(
    runs: &mut Runs,
    (c, d): (usize, usize),
    bar: usize,
    offer: &mut dyn FnMut(usize, Fact, usize),
) {
    let s = runs.s;
    let [row, col, bx] = s.tables.cell_houses[c].map(usize::from);
    for h in [bx, row, col] {
        let house = s.tables.houses[h];
        let places = s.cand[d] & house;
        let n = places.count_ones();
        if n < 2 {
            continue;
        }
        // The house's first place in its own order: boxes and rows read row by row, columns
        // top down, so the lowest cell is first in every kind.
        if places.trailing_zeros() as usize != c {
            continue;
        }
        let (mut starts, mut n) = ([0 as Fact; 9], 0);
        for q in cells(places) {
            starts[n] = fact(q, d, true);
            n += 1;
        }
        for (target, facts) in common(runs, &starts[..n], bar) {
            offer(facts, target, h);
        }
    }
}
