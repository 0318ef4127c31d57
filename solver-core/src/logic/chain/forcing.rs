//! Static (SE 8.0) and dynamic (SE 8.5) forcing chains with several branches, found as
//! Sukaku Explainer finds them: for each candidate of each cell, in order, the consequences of
//! the candidate and of its absence ([`implications`]); then a contradiction (dynamic only),
//! a fact both sides imply (dynamic, cells of three or more digits), a fact every place of
//! the digit in a house implies, and after the cell's last digit a fact every digit of the
//! cell implies. Of all these SE takes the lowest rating, then the fewest facts, then
//! double implications, cells, houses and contradictions in that order, then the first found.
//! A step rests on the facts behind each branch's end, counted once per branch.

use super::deduction::{Deduction, fact as say_fact};
use super::implications::{Fact, Rules, Search, fact, parts};
use super::nishio::others;
use super::rating;
use super::state::Start;

/// A bit per fact.
#[derive(Clone, Copy)]
struct Bits([u64; 23]);

impl Bits {
    fn new() -> Bits {
        Bits([0; 23])
    }
    fn has(&self, f: Fact) -> bool {
        self.0[usize::from(f) / 64] >> (f % 64) & 1 != 0
    }
    fn add(&mut self, f: Fact) {
        self.0[usize::from(f) / 64] |= 1 << (f % 64);
    }
}

/// What one assumption leads to: the facts in the order reached (true ones and false ones),
/// and the facts of its contradiction's two sides when it has one.
struct Outcome {
    facts: Vec<Fact>,
    bits: Bits,
    clash: Option<usize>,
}

/// The searches' storage and each assumption's outcome, made once.
struct Runs<'a> {
    s: &'a Start,
    rules: Rules,
    search: Search,
    /// Where each assumption's outcome is kept in `outcomes`, once made.
    slots: Vec<u32>,
    outcomes: Vec<Outcome>,
}

impl Runs<'_> {
    fn outcome(&mut self, start: Fact) -> &Outcome {
        let k = usize::from(start);
        if self.slots[k] == u32::MAX {
            let clash = self.search.run(self.s, start, self.rules);
            let clash = clash.map(|(a, b)| self.search.ancestors(a) + self.search.ancestors(b));
            let mut bits = Bits::new();
            let facts: Vec<Fact> = self.search.all().map(|(f, _)| f).collect();
            for &f in &facts {
                bits.add(f);
            }
            self.slots[k] = self.outcomes.len() as u32;
            self.outcomes.push(Outcome { facts, bits, clash });
        }
        &self.outcomes[self.slots[k] as usize]
    }

    /// Adds to each count the facts its target rests on when reached from `start` (which
    /// reaches them all).
    fn count(&mut self, start: Fact, targets: &[Fact], counts: &mut [usize]) {
        self.search.run(self.s, start, self.rules);
        for (&target, n) in targets.iter().zip(counts.iter_mut()) {
            if let Some(i) = self.search.reached(target) {
                *n += self.search.ancestors(i);
            }
        }
    }
}

/// One step found, with what SE sorts by.
struct Found {
    difficulty: f64,
    facts: usize,
    order: u8,
    deduction: Deduction,
}

/// SE's order among equal ratings and lengths.
const DOUBLE: u8 = 1;
const CELL: u8 = 5;
const REGION: u8 = 6;
const CONTRADICTION: u8 = 7;

/// The step SE's multiple (static) or dynamic forcing chains take on this board, if any.
pub(crate) fn forcing(s: &Start, dynamic: bool) -> Option<Deduction> {
    let (name, base) = if dynamic {
        ("Dynamic forcing chain", rating::DYNAMIC)
    } else {
        ("Forcing chain", rating::MULTIPLE)
    };
    let mut runs = Runs {
        s,
        rules: Rules {
            cells: true,
            dynamic,
        },
        search: Search::new(),
        slots: vec![u32::MAX; 81 * 9 * 2],
        outcomes: Vec::new(),
    };
    let mut best: Option<Found> = None;
    let mut offer = |found: Found| {
        let better = best.as_ref().is_none_or(|b| {
            (found.difficulty, found.facts, found.order) < (b.difficulty, b.facts, b.order)
        });
        if better {
            best = Some(found);
        }
    };
    let make = |facts: usize, order: u8, target: Fact, said: String| {
        let difficulty = rating::difficulty(base, facts);
        let (c, d, on) = parts(target);
        let mut deduction = Deduction::setting(name, rating::tenths(difficulty), c, d, on);
        if on {
            deduction.placements.clear();
            deduction.eliminations = others(s, c, d);
        }
        deduction.say(|| format!("{name}: {said}, so {}", say_fact(c, d, on)));
        Found {
            difficulty,
            facts,
            order,
            deduction,
        }
    };
    for c in 0..81 {
        let digits = s.digits(c);
        let size = digits.count_ones();
        if size < 2 || (!dynamic && size < 3) {
            continue;
        }
        let list: Vec<usize> = (0..9).filter(|&d| digits >> d & 1 != 0).collect();
        for &d in &list {
            let (yes, no) = (fact(c, d, true), fact(c, d, false));
            if dynamic {
                for start in [yes, no] {
                    if let Some(facts) = runs.outcome(start).clash {
                        let said = format!(
                            "{} leads to a contradiction",
                            say_fact(c, d, start & 1 == 1)
                        );
                        offer(make(facts, CONTRADICTION, start ^ 1, said));
                    }
                }
                if size >= 3 {
                    let both: Vec<Fact> = {
                        let off_bits = runs.outcome(no).bits;
                        let on = runs.outcome(yes);
                        let mut v: Vec<Fact> = on
                            .facts
                            .iter()
                            .copied()
                            .filter(|&f| off_bits.has(f))
                            .collect();
                        // True facts first, then false ones, each in the order reached.
                        v.sort_by_key(|&f| f & 1 == 0);
                        v
                    };
                    let mut counts = vec![0; both.len()];
                    runs.count(yes, &both, &mut counts);
                    runs.count(no, &both, &mut counts);
                    for (&target, &facts) in both.iter().zip(&counts) {
                        let said = format!(
                            "{} and {} both lead there",
                            say_fact(c, d, true),
                            say_fact(c, d, false)
                        );
                        offer(make(facts, DOUBLE, target, said));
                    }
                }
            }
            regions(&mut runs, (c, d), &mut |facts, target, said| {
                offer(make(facts, REGION, target, said))
            });
        }
        let starts: Vec<Fact> = list.iter().map(|&d| fact(c, d, true)).collect();
        for (target, facts) in common(&mut runs, &starts) {
            let said = format!("every digit of r{}c{} leads there", c / 9 + 1, c % 9 + 1);
            offer(make(facts, CELL, target, said));
        }
    }
    best.map(|b| b.deduction)
}

/// The facts every start leads to, true ones first, each in the order the first start
/// reached it, with the facts each rests on summed over the starts.
fn common(runs: &mut Runs, starts: &[Fact]) -> Vec<(Fact, usize)> {
    let mut shared: Vec<Fact> = runs.outcome(starts[0]).facts.clone();
    for &start in &starts[1..] {
        let bits = &runs.outcome(start).bits;
        shared.retain(|&f| bits.has(f));
    }
    shared.sort_by_key(|&f| f & 1 == 0);
    let mut counts = vec![0; shared.len()];
    if !shared.is_empty() {
        for &start in starts {
            runs.count(start, &shared, &mut counts);
        }
    }
    shared.into_iter().zip(counts).collect()
}

/// Region forcing chains from digit index `d` in `c`: each house of `c` (box, row, column)
/// whose first place of `d` is `c`.
fn regions(runs: &mut Runs, (c, d): (usize, usize), offer: &mut dyn FnMut(usize, Fact, String)) {
    let s = runs.s;
    let [row, col, bx] = s.tables.house_sets[c];
    for house in [bx, row, col] {
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
        let mut starts = Vec::new();
        let mut rest = places;
        while rest != 0 {
            let q = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            starts.push(fact(q, d, true));
        }
        for (target, facts) in common(runs, &starts) {
            let said = format!("every place of {} in the house leads there", d + 1);
            offer(facts, target, said);
        }
    }
}
