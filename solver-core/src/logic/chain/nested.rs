//! Nested forcing chains: assumptions whose consequences are found with forcing chains of a
//! lower level inside. With static chains inside (SE's nesting levels 2 and 3) every failing
//! branch is replayed and the step is the one of least complexity, counted as SE counts it;
//! deeper levels take the first failing branch, rated by the facts it changed.

use std::cell::RefCell;
use std::collections::HashMap;

use super::deduction::{Deduction, fact};
use super::propagate::{MULTIPLE, PLUS, STATIC, propagate};
use super::rating;
use super::replay::{branch_complexity, failing_branch};
use super::state::{State, cells};

/// The failing branches counted at the static levels, at most (each is replayed).
const REPLAYED: usize = 3;

/// SE's name for every nested level.
const NAME: &str = "Nested forcing chain";

/// An assumption: (cell, digit index, true) or not.
type Assumed = (usize, usize, bool);

/// Where each branch of the static levels ends. Level 3 goes on from where level 2 stopped
/// (its chains include level 2's, and its other moves come only once those find nothing);
/// and a board that has only lost candidates since an earlier step goes on from where that
/// step's branches stopped (propagation only ever removes candidates, and what it removes
/// from a board it removes from one with fewer).
#[derive(Default)]
pub(crate) struct Memo {
    /// The level the ends are of.
    level: u8,
    /// Each branch's end, by the board it reaches after singles and locked candidates.
    ends: HashMap<State, End>,
    /// Per static level, where each branch that held ended on an earlier board with more
    /// candidates, then on this one.
    prior: [HashMap<Assumed, State>; 2],
    kept: [HashMap<Assumed, State>; 2],
}

/// Where a branch ends.
#[derive(Debug, Clone, Copy)]
enum End {
    /// The board holds there.
    Holds(State),
    /// The board collapsed there.
    Fails(State),
}

/// The static levels' branch ends of the last board searched on this thread.
#[derive(Default)]
struct Carry {
    board: Option<State>,
    kept: [HashMap<Assumed, State>; 2],
}

thread_local! {
    static CARRY: RefCell<Carry> = RefCell::new(Carry::default());
}

impl Memo {
    /// A memo for board `s`, with the ends of the last board searched where `s` has only
    /// lost candidates since.
    pub(crate) fn recall(s: &State) -> Memo {
        let carry = CARRY.with(|c| c.take());
        let mut memo = Memo::default();
        if let Some(board) = carry.board
            && (0..9).all(|d| s.cand[d] & !board.cand[d] == 0 && board.val[d] & !s.val[d] == 0)
        {
            memo.prior = carry.kept;
        }
        memo
    }

    /// Leaves this board's ends for the next step.
    pub(crate) fn keep(self, s: &State) {
        let [mut two, mut three] = self.prior;
        let [kept_two, kept_three] = self.kept;
        two.extend(kept_two);
        three.extend(kept_three);
        let carry = Carry {
            board: Some(*s),
            kept: [two, three],
        };
        CARRY.with(|c| *c.borrow_mut() = carry);
    }
}

/// The board both `a` and `b` lead to (each candidate out of either out, each digit placed in
/// either placed), `None` if they place two digits in one cell.
fn meet(a: &State, b: &State) -> Option<State> {
    let mut m = *a;
    let mut placed = 0;
    for d in 0..9 {
        m.val[d] |= b.val[d];
        if placed & m.val[d] != 0 {
            return None;
        }
        placed |= m.val[d];
    }
    for d in 0..9 {
        m.cand[d] &= b.cand[d] & !placed;
    }
    Some(m)
}

/// The first nested forcing chain at propagation `level` (2: static forcing chains inside,
/// 3: static multiple forcing chains too, 4: dynamic chains; see [`super::propagate`]), with
/// `memo` of the level below.
pub(crate) fn nested(s: &State, level: u8, memo: &mut Memo) -> Option<Deduction> {
    let base = rating::NESTED + 5 * u16::from(level.saturating_sub(2));
    let from = if level == MULTIPLE && memo.level == STATIC {
        std::mem::take(&mut memo.ends)
    } else {
        HashMap::new()
    };
    let mut failing = branches(s, level, from, memo);
    if level > MULTIPLE {
        let (c, d, on, trial) = failing.next()?;
        let placed = cells(s.open() & !trial.open()).count();
        return Some(setting(
            s,
            rating::rate(base, placed + 2),
            level,
            (c, d, on),
        ));
    }
    let mut best: Option<(usize, (usize, usize, bool))> = None;
    // Each failing branch is replayed to be counted: a few give SE's least closely enough.
    for (c, d, on, _) in failing.take(REPLAYED) {
        let Some(size) = branch_complexity(s, (c, d, !on), level) else {
            continue;
        };
        if best.is_none_or(|(least, _)| size < least) {
            best = Some((size, (c, d, on)));
        }
    }
    let (size, (c, d, on)) = best?;
    Some(setting(s, rating::rate(base, size), level, (c, d, on)))
}

/// Each failing branch at `level` in turn, as the fact it proves (cell, digit index, true)
/// and the board the branch reached: first the candidates whose truth collapses the board,
/// then the bivalue-cell digits whose absence does. A branch goes on from its end in `from`
/// (the level below's); where each ends goes to `memo`.
fn branches<'a>(
    s: &'a State,
    level: u8,
    from: HashMap<State, End>,
    memo: &'a mut Memo,
) -> impl Iterator<Item = (usize, usize, bool, State)> + 'a {
    let order = ordered(s);
    let pairs: Vec<(usize, usize)> = order
        .iter()
        .copied()
        .take_while(|&(c, _)| s.digits(c).count_ones() == 2)
        .collect();
    let removals = order.into_iter().map(|(c, d)| (c, d, false));
    let settings = pairs.into_iter().map(|(c, d)| (c, d, true));
    // Many assumptions force the same board through singles and locked candidates (a
    // bivalue cell's digit out, its other digit in): the rest of the branch is then the same.
    memo.level = level;
    memo.ends.clear();
    let statics = usize::from(level).checked_sub(2).filter(|&k| k < 2);
    let Memo {
        ends: seen,
        prior,
        kept,
        ..
    } = memo;
    removals.chain(settings).filter_map(move |(c, d, on)| {
        let mut trial = *s;
        if on {
            trial.eliminate(c, d);
        } else {
            trial.place(c, d);
        }
        if !propagate(&mut trial, PLUS) {
            return Some((c, d, on, trial));
        }
        let earlier = statics.and_then(|k| prior[k].get(&(c, d, on)));
        let end = *seen.entry(trial).or_insert_with(|| {
            let mut rest = match from.get(&trial) {
                Some(&End::Holds(end)) => end,
                _ => trial,
            };
            if let Some(e) = earlier
                && let Some(m) = meet(&rest, e)
            {
                if m == *e {
                    // Where the branch stopped before: nothing moves there still.
                    return End::Holds(m);
                }
                rest = m;
            }
            if propagate(&mut rest, level) {
                End::Holds(rest)
            } else {
                End::Fails(rest)
            }
        });
        match end {
            End::Holds(end) => {
                if let Some(k) = statics {
                    kept[k].insert((c, d, on), end);
                }
                None
            }
            End::Fails(end) => Some((c, d, on, end)),
        }
    })
}

/// Candidates of bivalue cells first (their branches are the most constrained), then the rest.
fn ordered(s: &State) -> Vec<(usize, usize)> {
    let mut list = s.candidates();
    list.sort_by_key(|&(c, _)| s.digits(c).count_ones());
    list
}

/// The deduction, rated `tenths`, that digit index `d` of `c` is (`on`) or is not there, its
/// text the failed branch replayed link by link.
fn setting(s: &State, tenths: u16, level: u8, (c, d, on): (usize, usize, bool)) -> Deduction {
    let mut found = Deduction::setting(NAME, tenths, c, d, on);
    found.rest_on(|| vec![(c as u16, d as u8 + 1)]);
    found.say(|| {
        let told = failing_branch(s, (c, d, !on), level);
        told.map_or_else(
            || {
                format!(
                    "{NAME}: assuming {} leads, through forcing chains, to a contradiction",
                    fact(c, d, !on)
                )
            },
            |told| format!("{NAME}: {told}"),
        )
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;
    use crate::logic::board::Candidates;
    use crate::logic::{RateOptions, unique_solution};

    /// A puzzle SE rates 11.1 at its nesting level 3 (puzzles6 line 276).
    const PUZZLE: &str =
        "......7....71.9...68..7......8.6.1..5.............3.52..1.9.8...4.2....3.......4.";

    /// Each branch's end at `level` on `s`, from scratch or going on from `earlier`.
    fn end(s: &State, (c, d, on): Assumed, level: u8, earlier: Option<&State>) -> Option<State> {
        let mut trial = *s;
        if on {
            trial.eliminate(c, d);
        } else {
            trial.place(c, d);
        }
        if let Some(m) = earlier.and_then(|e| meet(&trial, e)) {
            trial = m;
        }
        propagate(&mut trial, level).then_some(trial)
    }

    #[test]
    fn a_board_with_fewer_candidates_ends_its_branches_where_it_would_from_scratch() {
        let grid: Grid = PUZZLE.parse().expect("a valid puzzle");
        let solution = unique_solution(&grid, &RateOptions::default()).expect("unique");
        let board = State::from_board(&Candidates::from_grid(&grid));
        // Fewer candidates: every 4th one the solution rules out.
        let mut fewer = board;
        let wrong = board
            .candidates()
            .into_iter()
            .filter(|&(c, d)| solution.cells()[c] != d as u8 + 1);
        for (k, (c, d)) in wrong.enumerate() {
            if k % 4 == 1 {
                fewer.eliminate(c, d);
            }
        }
        let (mut held, mut failed) = (0, 0);
        for level in [STATIC, MULTIPLE] {
            for (k, (c, d)) in fewer.candidates().into_iter().enumerate() {
                if k % 7 != 0 {
                    continue;
                }
                let a = (c, d, false);
                let Some(before) = end(&board, a, level, None) else {
                    continue;
                };
                let scratch = end(&fewer, a, level, None);
                assert_eq!(
                    end(&fewer, a, level, Some(&before)),
                    scratch,
                    "{a:?} {level}"
                );
                if scratch.is_some() {
                    held += 1;
                } else {
                    failed += 1;
                }
            }
        }
        assert!(held > 0 && failed > 0, "held {held}, failed {failed}");
    }
}
