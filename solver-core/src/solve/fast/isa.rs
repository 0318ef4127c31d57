//! The instruction set a search runs with, chosen once per search: where the CPU has AVX2,
//! BMI1, BMI2 and LZCNT (x86-64-v3), the whole search is compiled for them (fewer
//! instructions per node); elsewhere the baseline build runs.

use super::super::StopReason;
use super::super::control::Control;
use super::{State, recurse_with};

/// A build of the search: each recursion stays in the build it started in.
pub(super) trait Isa: Copy {
    /// [`recurse_with`] in this build.
    fn recurse<const LINE_RULES: bool>(
        self,
        state: &mut State,
        control: &mut Control,
    ) -> Result<bool, StopReason>;
}

/// The target's baseline build.
#[derive(Clone, Copy)]
struct Baseline;

impl Isa for Baseline {
    fn recurse<const LINE_RULES: bool>(
        self,
        state: &mut State,
        control: &mut Control,
    ) -> Result<bool, StopReason> {
        recurse_with::<LINE_RULES, _>(self, state, control)
    }
}

/// Proof that the CPU has AVX2, BMI1, BMI2 and LZCNT: only [`V3::detect`] makes one.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct V3(());

#[cfg(target_arch = "x86_64")]
impl V3 {
    fn detect() -> Option<V3> {
        use std::arch::is_x86_feature_detected as has;
        (has!("avx2") && has!("bmi1") && has!("bmi2") && has!("lzcnt")).then_some(V3(()))
    }
}

#[cfg(target_arch = "x86_64")]
impl Isa for V3 {
    #[inline(always)]
    fn recurse<const LINE_RULES: bool>(
        self,
        state: &mut State,
        control: &mut Control,
    ) -> Result<bool, StopReason> {
        // SAFETY: a `V3` exists only when `V3::detect` found every feature `recurse_v3` enables.
        unsafe { recurse_v3::<LINE_RULES>(self, state, control) }
    }
}

/// [`recurse_with`] compiled for x86-64-v3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
fn recurse_v3<const LINE_RULES: bool>(
    isa: V3,
    state: &mut State,
    control: &mut Control,
) -> Result<bool, StopReason> {
    recurse_with::<LINE_RULES, _>(isa, state, control)
}

/// Searches `state` in the best build the CPU runs.
pub(super) fn recurse<const LINE_RULES: bool>(
    state: &mut State,
    control: &mut Control,
) -> Result<bool, StopReason> {
    #[cfg(target_arch = "x86_64")]
    if let Some(isa) = V3::detect() {
        return isa.recurse::<LINE_RULES>(state, control);
    }
    Baseline.recurse::<LINE_RULES>(state, control)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::super::super::Options;
    use super::super::{Givens, State};
    use super::*;
    use crate::grid::Grid;

    /// Solutions found, guesses and the first solution, searched in `isa`'s build.
    fn search(isa: impl Isa, puzzle: &str, limit: usize) -> (usize, u64, Option<Box<[u8]>>) {
        let cells: Vec<u8> = puzzle.bytes().map(|b| b.saturating_sub(b'0')).collect();
        let cells: &[u8; 81] = cells.as_slice().try_into().expect("81 cells");
        let options = Options {
            max_solutions: limit,
            ..Options::default()
        };
        let mut control = Control::new(&options, None);
        let mut state = State::from_givens(&Givens::new(cells));
        isa.recurse::<true>(&mut state, &mut control)
            .expect("no limits set");
        control.finish()
    }

    #[test]
    fn the_v3_build_searches_as_the_baseline_does() {
        let Some(v3) = V3::detect() else {
            return;
        };
        let puzzles = [
            "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..",
            "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
            ".................................................................................",
        ];
        for puzzle in puzzles {
            for limit in [1, 2] {
                let baseline = search(Baseline, puzzle, limit);
                assert_eq!(search(v3, puzzle, limit), baseline, "{puzzle}");
                let (found, _, first) = baseline;
                assert!(found >= 1);
                let puzzle: Grid = puzzle.parse().expect("a valid puzzle");
                let first = Grid::new(puzzle.shape(), &first.expect("a solution")[..])
                    .expect("a valid grid");
                assert!(first.is_solution_of(&puzzle), "{puzzle}");
            }
        }
    }
}
