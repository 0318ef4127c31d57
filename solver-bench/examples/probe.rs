#[path = "../../solver-core/tests/support/mod.rs"]
mod support;
use solver_core::{Grid, Options, solve};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = &args[1];
    let n: usize = args[2].parse().unwrap();
    let max: usize = args[3].parse().unwrap();
    let run: bool = args.get(4).map(|a| a == "run").unwrap_or(true);
    let sets = support::datasets().unwrap();
    let (_, mut puzzles) = sets
        .into_iter()
        .find(|(s, _)| s.contains(name.as_str()))
        .unwrap();
    let mut rng = support::Rng::new(38);
    rng.shuffle(&mut puzzles);
    puzzles.truncate(n);
    let puzzles: Vec<Grid> = puzzles
        .iter()
        .map(|p| support::Symmetry::random(p.shape(), &mut rng).apply(p))
        .collect();
    let opts = Options {
        max_solutions: max,
        ..Options::default()
    };
    let start = std::time::Instant::now();
    let mut g = 0;
    if run {
        for p in &puzzles {
            let r = solve(p, &opts).unwrap();
            assert!(r.outcome.found() == 1);
            g += r.stats.guesses;
        }
    }
    eprintln!(
        "{} guesses/puzzle {:.1} time/puzzle {:.1}us",
        name,
        g as f64 / n as f64,
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
