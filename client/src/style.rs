//! Colour for people: on a terminal only, never with `NO_COLOR` set, always with
//! `CLICOLOR_FORCE` (for tests and pagers that understand it), as <https://no-color.org> asks.

use std::io::IsTerminal;

use console::{Style, StyledObject};

/// Decides, once, whether stdout and stderr get colour.
pub fn init() {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    let (never, always) = (set("NO_COLOR"), set("CLICOLOR_FORCE"));
    let wanted = |terminal: bool| !never && (always || terminal);
    console::set_colors_enabled(wanted(std::io::stdout().is_terminal()));
    console::set_colors_enabled_stderr(wanted(std::io::stderr().is_terminal()));
}

/// How a verdict reads: good, doubtful or bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Solved, valid, healthy.
    Good,
    /// Several solutions, stopped, a lower bound.
    Doubtful,
    /// No solution, invalid, an error.
    Bad,
}

fn style(tone: Tone) -> Style {
    match tone {
        Tone::Good => Style::new().green(),
        Tone::Doubtful => Style::new().yellow(),
        Tone::Bad => Style::new().red().bold(),
    }
}

/// `text` coloured for stderr.
pub fn err<D>(tone: Tone, text: D) -> StyledObject<D> {
    style(tone).for_stderr().apply_to(text)
}

/// `text` coloured for stdout.
pub fn out<D>(tone: Tone, text: D) -> StyledObject<D> {
    style(tone).apply_to(text)
}
