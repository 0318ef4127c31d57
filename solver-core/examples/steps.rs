//! Dev tool: `steps PUZZLE` prints every step; `steps --file F` prints `puzzle ours` per line.
use solver_core::Grid;
use solver_core::logic::{RateOptions, explain, rate};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let o = RateOptions::default();
    if args[1] == "--file" {
        let text = std::fs::read_to_string(&args[2]).unwrap();
        for l in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let p = l.split_whitespace().next().unwrap();
            let g: Grid = p.parse().unwrap();
            let t = std::time::Instant::now();
            let r = rate(&g, &o).unwrap();
            let h = r
                .hardest
                .as_ref()
                .map_or(String::new(), |s| s.technique.name().to_string());
            println!(
                "{l} {:.1} {} {:.0}ms",
                r.rating(),
                h.replace(' ', "_"),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        return;
    }
    let g: Grid = args[1].parse().unwrap();
    let e = explain(&g, None, &o).unwrap();
    for s in e.steps {
        println!("{:.1} {}", f64::from(s.tenths) / 10.0, s.text);
    }
}
