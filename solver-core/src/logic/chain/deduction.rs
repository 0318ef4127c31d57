//! What a chain proves, before it becomes an engine step: a name, a rating, the change and a
//! sentence, plus helpers to name facts for people.

use super::super::wording;
use super::trace::Trace;

/// One chain deduction.
#[derive(Debug, Clone)]
pub(crate) struct Deduction {
    /// SE's name of the technique.
    pub(crate) name: &'static str,
    /// SE rating in tenths.
    pub(crate) tenths: u16,
    /// Digits placed, (cell, digit 1..=9).
    pub(crate) placements: Vec<(u16, u8)>,
    /// Candidates removed, (cell, digit 1..=9).
    pub(crate) eliminations: Vec<(u16, u8)>,
    /// The candidates the chains pass through.
    pub(crate) support: Vec<(u16, u8)>,
    /// One sentence for people.
    pub(crate) text: String,
    /// The sentences of deductions of the same rating merged in, each naming its own changes.
    pub(crate) more: Vec<String>,
    /// How many changes merged in came without a sentence (unworded deductions).
    pub(crate) untold: usize,
}

impl Deduction {
    /// A deduction that sets the fact (digit index `d` in `c`) to `on`.
    pub(crate) fn setting(name: &'static str, tenths: u16, c: usize, d: usize, on: bool) -> Self {
        let change = vec![(c as u16, d as u8 + 1)];
        let (placements, eliminations) = if on {
            (change, Vec::new())
        } else {
            (Vec::new(), change)
        };
        Deduction {
            name,
            tenths,
            placements,
            eliminations,
            support: Vec::new(),
            text: String::new(),
            more: Vec::new(),
            untold: 0,
        }
    }

    /// Sets the sentence, when the deduction will be read (see [`wording`]).
    pub(crate) fn say(&mut self, text: impl FnOnce() -> String) {
        if wording::read(self.tenths) {
            self.text = text();
        }
    }

    /// [`Deduction::say`] for a deduction about to be offered to `best`: only one that would
    /// replace it or be merged into it keeps its sentence.
    pub(crate) fn say_before(&mut self, best: &Option<Deduction>, text: impl FnOnce() -> String) {
        if best.as_ref().is_none_or(|b| self.tenths <= b.tenths) {
            self.say(text);
        }
    }

    /// Sets the candidates the deduction rests on, when it will be read.
    pub(crate) fn rest_on(&mut self, support: impl FnOnce() -> Vec<(u16, u8)>) {
        if wording::read(self.tenths) {
            self.support = support();
        }
    }

    /// Keeps the lowest-rated deductions in `best`: a lower one replaces it, an equal one is
    /// merged in, so the step does not depend on the order cells are visited in (ratings
    /// then survive symmetries of the grid).
    pub(crate) fn offer(self, best: &mut Option<Deduction>) {
        match best {
            Some(b) if b.tenths < self.tenths => {}
            Some(b) if b.tenths == self.tenths => b.merge(self),
            _ => *best = Some(self),
        }
    }

    /// The sentence, followed by those of the deductions of the same rating merged in
    /// (`. Also `), so that the step's text names every change; changes merged in without a
    /// sentence are counted.
    pub(crate) fn sentence(&self) -> String {
        let mut text = self.text.clone();
        for more in &self.more {
            text.push_str(". Also ");
            text.push_str(more);
        }
        match self.untold {
            0 => text,
            1 => format!("{text}; one more change comes from a chain of the same rating"),
            n => format!("{text}; {n} more changes come from chains of the same rating"),
        }
    }

    /// Adds another deduction's changes, support and sentences.
    fn merge(&mut self, other: Deduction) {
        if other.text.is_empty() {
            self.untold += other.placements.len() + other.eliminations.len();
        } else {
            // The technique is named once, unless they differ.
            let prefix = format!("{}: ", self.name);
            let text = other.text.strip_prefix(&prefix).unwrap_or(&other.text);
            self.more.push(text.to_owned());
        }
        self.more.extend(other.more);
        self.untold += other.untold;
        for (mine, theirs) in [
            (&mut self.placements, other.placements),
            (&mut self.eliminations, other.eliminations),
            (&mut self.support, other.support),
        ] {
            // Both lists come sorted, as a rule: a stable sort merges such runs in one pass
            // where an unstable one sorts all over again (equal entries are identical, so
            // the order is the same).
            mine.extend(theirs);
            mine.sort();
            mine.dedup();
        }
    }
}

/// A fact for people: "r4c5=3" or "r4c5≠3" (digit index `d`).
pub(crate) fn fact(c: usize, d: usize, on: bool) -> String {
    format!(
        "r{}c{}{}{}",
        c / 9 + 1,
        c % 9 + 1,
        if on { "=" } else { "≠" },
        d + 1
    )
}

/// A 9x9 cell for people, `r4c5`.
pub(crate) fn cell_name(c: usize) -> String {
    format!("r{}c{}", c / 9 + 1, c % 9 + 1)
}

/// "row 4", "column 5", "box 9" for a house index of the tables (rows, columns, boxes).
pub(crate) fn house_name(h: usize) -> String {
    let kind = ["row", "column", "box"][h / 9];
    format!("{kind} {}", h % 9 + 1)
}

/// The candidates (cell, digit 1..=9) that the given trace nodes rest on.
pub(crate) fn support(trace: &Trace, targets: &[u16]) -> Vec<(u16, u8)> {
    // The trace's own sweep: marks on the stack, no list of nodes to visit. Sized for most
    // chains at once (growing it step by step cost more than the sweep).
    let mut out = Vec::with_capacity(64);
    trace.sweep(targets, |n| out.push((u16::from(n.cell), n.digit + 1)));
    out.sort_unstable();
    out.dedup();
    out
}

/// Removals for people: "r1c1≠5, r2c3≠7".
pub(crate) fn removals(list: &[(u16, u8)]) -> String {
    list.iter()
        .map(|&(c, d)| fact(usize::from(c), usize::from(d - 1), false))
        .collect::<Vec<_>>()
        .join(", ")
}
