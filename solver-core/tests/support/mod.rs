//! Test and benchmark support: datasets, a small PRNG, grid symmetries and a puzzle generator.
#![allow(dead_code)]

use solver_core::solve::Algorithm;
use solver_core::{Grid, Options, Outcome, Shape, solve};
#[allow(unused_imports)] // not every test binary reads a file by name
pub use test_support::data_dir;

/// Every dataset file (name, puzzles), or `None` when the folder is absent; the shared loader
/// prints SKIP, or panics in CI or when `SUDOKU_DATA` was set.
pub fn datasets() -> Option<Vec<(String, Vec<Grid>)>> {
    let sets = test_support::datasets()?;
    Some(
        sets.into_iter()
            .map(|set| {
                let puzzles = set
                    .puzzles
                    .iter()
                    .map(|line| {
                        line.parse()
                            .unwrap_or_else(|e| panic!("{}: {line}: {e}", set.name))
                    })
                    .collect();
                (set.name, puzzles)
            })
            .collect(),
    )
}

/// xorshift64*: deterministic, seedable, good enough to shuffle grids.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A symmetry of grids of one shape: new cell (r, c) takes old (rows[r], cols[c]), digits relabelled.
#[derive(Debug, Clone)]
pub struct Symmetry {
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub digits: Vec<u8>,
    pub transpose: bool,
}

impl Symmetry {
    /// A random symmetry: rows within bands, bands, columns within stacks, stacks, digits,
    /// and a transposition when boxes are square.
    pub fn random(shape: Shape, rng: &mut Rng) -> Symmetry {
        let side = shape.side();
        let lines = |rng: &mut Rng, group: usize| {
            let mut groups: Vec<usize> = (0..side / group).collect();
            rng.shuffle(&mut groups);
            let mut out = Vec::with_capacity(side);
            for g in groups {
                let mut inner: Vec<usize> = (0..group).collect();
                rng.shuffle(&mut inner);
                out.extend(inner.into_iter().map(|i| g * group + i));
            }
            out
        };
        let rows = lines(rng, shape.box_rows());
        let cols = lines(rng, shape.box_cols());
        let mut digits: Vec<u8> = (1..=side as u8).collect();
        rng.shuffle(&mut digits);
        let transpose = shape.box_rows() == shape.box_cols() && rng.below(2) == 1;
        Symmetry {
            rows,
            cols,
            digits,
            transpose,
        }
    }

    pub fn apply(&self, grid: &Grid) -> Grid {
        let side = grid.side();
        let cells: Vec<u32> = (0..side * side)
            .map(|i| {
                let (mut r, mut c) = (i / side, i % side);
                if self.transpose {
                    std::mem::swap(&mut r, &mut c);
                }
                match grid.get(self.rows[r], self.cols[c]) {
                    0 => 0,
                    v => u32::from(self.digits[usize::from(v) - 1]),
                }
            })
            .collect();
        Grid::new(grid.shape(), &cells).expect("a symmetry keeps a grid valid")
    }
}

/// A random complete grid of this shape.
pub fn random_solution(shape: Shape, rng: &mut Rng) -> Grid {
    let (side, br, bc) = (shape.side(), shape.box_rows(), shape.box_cols());
    let cells: Vec<u32> = (0..side * side)
        .map(|i| {
            let (r, c) = (i / side, i % side);
            ((bc * (r % br) + r / br + c) % side + 1) as u32
        })
        .collect();
    let base = Grid::new(shape, &cells).expect("the pattern grid is valid");
    Symmetry::random(shape, rng).apply(&base)
}

/// A puzzle with a unique solution: clues of a random grid removed in random order while
/// the puzzle stays unique, until `keep` clues are left or no more can go.
pub fn unique_puzzle(shape: Shape, keep: usize, rng: &mut Rng) -> Grid {
    let solution = random_solution(shape, rng);
    let mut cells: Vec<u32> = solution.cells().iter().map(|&v| u32::from(v)).collect();
    let mut order: Vec<usize> = (0..cells.len()).collect();
    rng.shuffle(&mut order);
    let mut left = cells.len();
    let options = Options {
        max_guesses: Some(2_000),
        ..Options::default()
    };
    for i in order {
        if left <= keep {
            break;
        }
        let value = std::mem::take(&mut cells[i]);
        let candidate = Grid::new(shape, &cells).expect("removing clues keeps a grid valid");
        match solve(&candidate, &options).map(|s| s.outcome) {
            Ok(Outcome::Unique(_)) => left -= 1,
            _ => cells[i] = value,
        }
    }
    Grid::new(shape, &cells).expect("removing clues keeps a grid valid")
}

/// A puzzle from `keep` random clues of a random grid: solvable, often with many solutions.
pub fn sparse_puzzle(shape: Shape, keep: usize, rng: &mut Rng) -> Grid {
    let solution = random_solution(shape, rng);
    let mut order: Vec<usize> = (0..shape.cells()).collect();
    rng.shuffle(&mut order);
    let mut cells = vec![0u32; shape.cells()];
    for &i in &order[..keep.min(order.len())] {
        cells[i] = u32::from(solution.cells()[i]);
    }
    Grid::new(shape, &cells).expect("clues of a valid grid are valid")
}

/// Every shape the solvers promise to handle.
pub fn shapes() -> Vec<Shape> {
    [
        (2, 2),
        (2, 3),
        (3, 2),
        (2, 4),
        (3, 3),
        (3, 4),
        (4, 3),
        (4, 4),
        (5, 5),
    ]
    .into_iter()
    .map(|(r, c)| Shape::new(r, c).expect("supported shape"))
    .collect()
}

/// Options for one algorithm.
pub fn with(algorithm: Algorithm, max_solutions: usize) -> Options {
    Options {
        algorithm,
        max_solutions,
        ..Options::default()
    }
}

/// Panics unless the outcome's grid solves `puzzle`.
pub fn assert_solves(puzzle: &Grid, outcome: &Outcome) {
    let grid = outcome
        .grid()
        .unwrap_or_else(|| panic!("no solution in {outcome:?} for {puzzle:?}"));
    assert!(
        grid.is_solution_of(puzzle),
        "{grid:?} does not solve {puzzle:?}"
    );
}
