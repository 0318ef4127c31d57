//! What one deduction is: its technique, its SE rating, what it rests on and what it changes.

use std::fmt;

use super::board::Candidates;
use super::wording;

/// A solving technique, by the name players use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Technique {
    /// The last empty cell of a row, column or box.
    FullHouse,
    /// A digit with one place left in a box.
    HiddenSingleBox,
    /// A digit with one place left in a row or column.
    HiddenSingleLine,
    /// A pointing pattern that leaves a hidden single (SE "direct pointing").
    DirectPointing,
    /// A claiming pattern that leaves a hidden single (SE "direct claiming").
    DirectClaiming,
    /// A hidden pair that leaves a hidden single in its house.
    DirectHiddenPair,
    /// A cell with one candidate left.
    NakedSingle,
    /// A hidden triple that leaves a hidden single in its house.
    DirectHiddenTriple,
    /// A digit of a box confined to one line: removed from the rest of the line.
    Pointing,
    /// A digit of a line confined to one box: removed from the rest of the box.
    Claiming,
    /// Two cells of a house holding only the same two digits.
    NakedPair,
    /// Fish of size 2.
    XWing,
    /// Two digits of a house confined to the same two cells.
    HiddenPair,
    /// Three cells of a house holding only three digits between them.
    NakedTriple,
    /// Fish of size 3.
    Swordfish,
    /// Three digits of a house confined to the same three cells.
    HiddenTriple,
    /// Two strong links of a digit joined by a weak link: Skyscraper, 2-String Kite,
    /// Turbot Fish or Empty Rectangle (by name).
    TurbotFish(&'static str),
    /// Three strong links of a digit joined by weak links (a short X-chain), by SE's name.
    StrongLinks(&'static str),
    /// A bivalue pivot with two bivalue pincers.
    XyWing,
    /// Three cells holding four digits, linked to a bivalue cell.
    WxyzWing,
    /// A trivalue pivot with two bivalue pincers.
    XyzWing,
    /// Unique rectangle or loop type 1: one cell with extra digits loses the pair.
    UniqueRectangle1,
    /// Unique rectangle type 2: the extra digit shared by two corners is removed from their peers.
    UniqueRectangle2,
    /// Unique rectangle type 3: the extra digits of two corners form a naked set with other cells.
    UniqueRectangle3,
    /// Unique rectangle type 4: one pair digit is locked in the two extra corners.
    UniqueRectangle4,
    /// Four cells of a house holding only four digits between them.
    NakedQuad,
    /// Fish of size 4.
    Jellyfish,
    /// Four digits of a house confined to the same four cells.
    HiddenQuad,
    /// Bivalue universal grave plus one: the only cell with extra candidates.
    BugPlusOne,
    /// BUG type 2: several cells share one extra digit.
    Bug2,
    /// BUG type 3: the extra digits form a naked set with other cells.
    Bug3,
    /// BUG type 4: two cells in a house with a common digit.
    Bug4,
    /// A chain-family technique (from the chain module), by name.
    Chain(&'static str),
    /// Two bivalue cells joined by a strong link (hints only; SE sees a forcing chain).
    WWing,
    /// Two almost locked sets with a restricted common digit (hints only, as W-Wing).
    AlsXz,
}

impl Technique {
    /// The name players use.
    pub fn name(self) -> &'static str {
        match self {
            Technique::FullHouse => "Full house",
            Technique::HiddenSingleBox => "Hidden single (box)",
            Technique::HiddenSingleLine => "Hidden single (line)",
            Technique::DirectPointing => "Direct pointing",
            Technique::DirectClaiming => "Direct claiming",
            Technique::DirectHiddenPair => "Direct hidden pair",
            Technique::NakedSingle => "Naked single",
            Technique::DirectHiddenTriple => "Direct hidden triple",
            Technique::Pointing => "Pointing",
            Technique::Claiming => "Claiming",
            Technique::NakedPair => "Naked pair",
            Technique::XWing => "X-Wing",
            Technique::HiddenPair => "Hidden pair",
            Technique::NakedTriple => "Naked triple",
            Technique::Swordfish => "Swordfish",
            Technique::HiddenTriple => "Hidden triple",
            Technique::TurbotFish(name) => name,
            Technique::StrongLinks(name) => name,
            Technique::XyWing => "XY-Wing",
            Technique::WxyzWing => "WXYZ-Wing",
            Technique::XyzWing => "XYZ-Wing",
            Technique::UniqueRectangle1 => "Unique rectangle type 1",
            Technique::UniqueRectangle2 => "Unique rectangle type 2",
            Technique::UniqueRectangle3 => "Unique rectangle type 3",
            Technique::UniqueRectangle4 => "Unique rectangle type 4",
            Technique::NakedQuad => "Naked quad",
            Technique::Jellyfish => "Jellyfish",
            Technique::HiddenQuad => "Hidden quad",
            Technique::BugPlusOne => "BUG+1",
            Technique::Bug2 => "BUG type 2",
            Technique::Bug3 => "BUG type 3",
            Technique::Bug4 => "BUG type 4",
            Technique::Chain(name) => name,
            Technique::WWing => "W-Wing",
            Technique::AlsXz => "ALS-XZ",
        }
    }

    /// Whether the technique assumes the puzzle has a unique solution.
    pub fn assumes_uniqueness(self) -> bool {
        matches!(
            self,
            Technique::UniqueRectangle1
                | Technique::UniqueRectangle2
                | Technique::UniqueRectangle3
                | Technique::UniqueRectangle4
                | Technique::BugPlusOne
                | Technique::Bug2
                | Technique::Bug3
                | Technique::Bug4
        )
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A digit at a cell (0-based row and column); placed, removed or leaned on by a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mark {
    /// 0-based row.
    pub row: usize,
    /// 0-based column.
    pub col: usize,
    /// The digit, 1..=side.
    pub digit: u8,
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}c{}={}", self.row + 1, self.col + 1, self.digit)
    }
}

/// One deduction: the technique, its SE rating, and the digits it rests on, places and removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The technique.
    pub technique: Technique,
    /// The SE rating of this step in tenths (23 = 2.3).
    pub tenths: u16,
    /// The candidates the deduction rests on.
    pub support: Vec<Mark>,
    /// Digits placed.
    pub placements: Vec<Mark>,
    /// Candidates removed.
    pub eliminations: Vec<Mark>,
    /// One sentence for people; cells as r5c4, houses numbered from 1.
    pub text: String,
}

impl Step {
    /// The SE rating of this step (e.g. 2.3).
    pub fn rating(&self) -> f64 {
        f64::from(self.tenths) / 10.0
    }
}

/// A step as techniques find it, with cells as indices; turned into a [`Step`] when kept.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) technique: Technique,
    pub(crate) tenths: u16,
    pub(crate) support: Vec<(u16, u8)>,
    pub(crate) placements: Vec<(u16, u8)>,
    pub(crate) eliminations: Vec<(u16, u8)>,
    pub(crate) text: String,
}

impl Found {
    /// A step that places `digit` in `cell`.
    pub(crate) fn placing(technique: Technique, tenths: u16, cell: usize, digit: u8) -> Found {
        Found {
            technique,
            tenths,
            support: Vec::new(),
            placements: vec![(cell as u16, digit)],
            eliminations: Vec::new(),
            text: String::new(),
        }
    }

    /// A step that removes candidates.
    pub(crate) fn removing(
        technique: Technique,
        tenths: u16,
        eliminations: Vec<(u16, u8)>,
    ) -> Found {
        Found {
            technique,
            tenths,
            support: Vec::new(),
            placements: Vec::new(),
            eliminations,
            text: String::new(),
        }
    }

    /// Adds the candidates the step rests on, when the step will be read.
    pub(crate) fn resting_on(mut self, support: impl FnOnce() -> Vec<(u16, u8)>) -> Found {
        if wording::read(self.tenths) {
            self.support = support();
        }
        self
    }

    /// Sets the sentence, prefixed by the technique's name, when the step will be read.
    pub(crate) fn saying(mut self, text: impl FnOnce() -> String) -> Found {
        if wording::read(self.tenths) {
            self.text = format!("{}: {}", self.technique.name(), text());
        }
        self
    }

    /// Applies the step to a board.
    pub(crate) fn apply(&self, board: &mut Candidates) {
        for &(cell, digit) in &self.eliminations {
            board.eliminate(cell as usize, digit);
        }
        for &(cell, digit) in &self.placements {
            board.place(cell as usize, digit);
        }
    }

    /// The sentence with every change named after `=>` (`r2c6=3`, `r1c23<>7`), so that a
    /// player can check each cell it places in or removes a candidate from; an unread step
    /// stays without one.
    fn sentence(&self, side: usize) -> String {
        if self.text.is_empty() {
            return String::new();
        }
        let changes = wording::changes(&self.placements, &self.eliminations, side);
        format!("{} => {changes}", self.text)
    }

    /// The public form of the step.
    pub(crate) fn to_step(&self, board: &Candidates) -> Step {
        let side = board.side();
        let marks = |list: &[(u16, u8)]| -> Vec<Mark> {
            list.iter()
                .map(|&(cell, digit)| Mark {
                    row: cell as usize / side,
                    col: cell as usize % side,
                    digit,
                })
                .collect()
        };
        Step {
            technique: self.technique,
            tenths: self.tenths,
            support: marks(&self.support),
            placements: marks(&self.placements),
            eliminations: marks(&self.eliminations),
            text: self.sentence(side),
        }
    }
}

/// Every (cell, digit) of `digits` that `cells` still hold as candidates.
pub(crate) fn candidates_of(
    board: &Candidates,
    cells: impl IntoIterator<Item = usize>,
    digits: u64,
) -> Vec<(u16, u8)> {
    let mut out = Vec::new();
    for cell in cells {
        for d in super::board::bits(board.masks[cell] & digits) {
            out.push((cell as u16, d as u8 + 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::wording::Unread;

    #[test]
    fn a_step_at_or_below_the_bar_is_not_worded() {
        let unread = Unread::new();
        unread.upto(15);
        let quiet = Found::placing(Technique::HiddenSingleLine, 15, 0, 1)
            .resting_on(|| unreachable!("support of an unread step"))
            .saying(|| unreachable!("sentence of an unread step"));
        assert!(quiet.text.is_empty() && quiet.support.is_empty());
        let read = Found::placing(Technique::NakedSingle, 23, 0, 1)
            .resting_on(|| vec![(0, 1)])
            .saying(|| String::from("r1c1 can only hold 1"));
        assert_eq!(read.text, "Naked single: r1c1 can only hold 1");
        assert_eq!(read.support, [(0, 1)]);
    }
}
