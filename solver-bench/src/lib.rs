//! Benchmark support: tdoku's solver (vendored C++, BSD-2, see `tdoku/SOURCE.md`) behind a
//! safe call. Never a dependency of a product crate.

/// tdoku's `TdokuSolverDpllTriadSimd`, one puzzle after another.
pub mod tdoku {
    use std::sync::Mutex;

    /// tdoku keeps its solver in C++ globals: one caller at a time.
    static LOCK: Mutex<()> = Mutex::new(());

    /// A 9×9 puzzle as tdoku reads it: 81 of `1`-`9` or `.`, then a terminator, padded so
    /// that tdoku's 16-byte reads stay inside.
    #[derive(Clone, Copy)]
    pub struct Puzzle([u8; 96]);

    impl Puzzle {
        /// The puzzle of 81 cells, 0 for empty, 1-9 for a given; `None` for another value.
        pub fn new(cells: &[u8]) -> Option<Puzzle> {
            if cells.len() != 81 {
                return None;
            }
            let mut text = [0u8; 96];
            for (t, &c) in text.iter_mut().zip(cells) {
                *t = match c {
                    0 => b'.',
                    1..=9 => b'0' + c,
                    _ => return None,
                };
            }
            text[81] = b'\n';
            Some(Puzzle(text))
        }
    }

    /// Whether tdoku was built (a C++ compiler was found).
    pub fn available() -> bool {
        cfg!(tdoku)
    }

    #[cfg(tdoku)]
    unsafe extern "C" {
        fn TdokuSolverDpllTriadSimd(
            input: *const u8,
            limit: usize,
            configuration: u32,
            solution: *mut u8,
            num_guesses: *mut usize,
        ) -> usize;
    }

    /// Solves each puzzle up to `limit` solutions; returns the solutions found and tdoku's
    /// guesses, each summed over the puzzles, or `None` when tdoku was not built.
    pub fn solve_all(puzzles: &[Puzzle], limit: usize) -> Option<(usize, u64)> {
        #[cfg(tdoku)]
        {
            let _one_at_a_time = LOCK.lock().unwrap_or_else(|e| e.into_inner());
            let (mut solved, mut guesses) = (0, 0u64);
            let mut solution = [0u8; 96];
            for p in puzzles {
                let mut g = 0usize;
                // SAFETY: `p.0` holds 81 cells, a terminator and zero padding (tdoku reads at
                // most 16 bytes past cell 64 and checks byte 81); `solution` has room for 81
                // cells; the lock keeps tdoku's global solver to one thread.
                let found = unsafe {
                    TdokuSolverDpllTriadSimd(
                        std::hint::black_box(p.0.as_ptr()),
                        limit,
                        0,
                        solution.as_mut_ptr(),
                        &mut g,
                    )
                };
                solved += found;
                guesses += g as u64;
            }
            Some((solved, guesses))
        }
        #[cfg(not(tdoku))]
        {
            let _ = (puzzles, limit, &LOCK);
            None
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn tdoku_solves_a_puzzle_and_counts_two_solutions_of_an_open_one() {
            if !available() {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "tdoku was not built (no C++ compiler?)"
                );
                eprintln!("SKIP: tdoku was not built");
                return;
            }
            let line = b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
            let cells: Vec<u8> = line
                .iter()
                .map(|&c| if c == b'.' { 0 } else { c - b'0' })
                .collect();
            let puzzle = Puzzle::new(&cells).expect("81 cells");
            assert_eq!(solve_all(&[puzzle], 2).map(|r| r.0), Some(1));
            let open = Puzzle::new(&[0; 81]).expect("81 cells");
            assert_eq!(solve_all(&[open], 2).map(|r| r.0), Some(2));
            assert!(Puzzle::new(&[10; 81]).is_none());
        }
    }
}
