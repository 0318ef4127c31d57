//! Symmetries of the pattern of givens, and the orbits of cells they tie together.

use std::fmt;
use std::str::FromStr;

/// A symmetry the positions of the givens must have (the digits need not follow it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Symmetry {
    /// Any pattern.
    #[default]
    None,
    /// Unchanged by a half turn about the centre.
    Rotate180,
    /// Unchanged by a quarter turn (so also by a half turn).
    Rotate90,
    /// Unchanged by a left-right reflection (in the vertical axis): `mirror-left-right`.
    Mirror,
    /// Unchanged by a top-bottom reflection (in the horizontal axis): `mirror-top-bottom`.
    MirrorTopBottom,
    /// Unchanged by reflection in the main diagonal (top left to bottom right).
    Diagonal,
    /// Unchanged by reflection in the anti-diagonal (top right to bottom left).
    AntiDiagonal,
}

impl Symmetry {
    /// Every symmetry, `None` first.
    pub const ALL: [Symmetry; 7] = [
        Symmetry::None,
        Symmetry::Rotate180,
        Symmetry::Rotate90,
        Symmetry::Mirror,
        Symmetry::MirrorTopBottom,
        Symmetry::Diagonal,
        Symmetry::AntiDiagonal,
    ];

    /// The lowercase name used in messages and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Rotate180 => "rotate180",
            Symmetry::Rotate90 => "rotate90",
            Symmetry::Mirror => "mirror-left-right",
            Symmetry::MirrorTopBottom => "mirror-top-bottom",
            Symmetry::Diagonal => "diagonal",
            Symmetry::AntiDiagonal => "anti-diagonal",
        }
    }

    /// The images of a (row, column) under the symmetry's group, itself first.
    pub fn images(self, side: usize, row: usize, col: usize) -> Vec<(usize, usize)> {
        let last = side - 1;
        let all = match self {
            Symmetry::None => vec![(row, col)],
            Symmetry::Rotate180 => vec![(row, col), (last - row, last - col)],
            Symmetry::Rotate90 => vec![
                (row, col),
                (col, last - row),
                (last - row, last - col),
                (last - col, row),
            ],
            Symmetry::Mirror => vec![(row, col), (row, last - col)],
            Symmetry::MirrorTopBottom => vec![(row, col), (last - row, col)],
            Symmetry::Diagonal => vec![(row, col), (col, row)],
            Symmetry::AntiDiagonal => vec![(row, col), (last - col, last - row)],
        };
        let mut distinct = Vec::with_capacity(all.len());
        for p in all {
            if !distinct.contains(&p) {
                distinct.push(p);
            }
        }
        distinct
    }

    /// The cells of a `side`×`side` grid grouped into orbits (row-major indices), each orbit
    /// listed once, in order of its first cell.
    pub(crate) fn orbits(self, side: usize) -> Vec<Vec<usize>> {
        let mut seen = vec![false; side * side];
        let mut orbits = Vec::new();
        for cell in 0..side * side {
            if seen[cell] {
                continue;
            }
            let orbit: Vec<usize> = self
                .images(side, cell / side, cell % side)
                .into_iter()
                .map(|(r, c)| r * side + c)
                .collect();
            for &c in &orbit {
                seen[c] = true;
            }
            orbits.push(orbit);
        }
        orbits
    }

    /// Whether the filled cells of a `side`×`side` grid form a pattern with this symmetry.
    pub fn holds_for(self, side: usize, cells: &[u8]) -> bool {
        (0..side * side).all(|i| {
            self.images(side, i / side, i % side)
                .iter()
                .all(|&(r, c)| (cells[r * side + c] != 0) == (cells[i] != 0))
        })
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A symmetry name that is not one of [`Symmetry::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown symmetry '{0}': expected none, rotate180, rotate90, mirror-left-right, \
     mirror-top-bottom, diagonal or anti-diagonal"
)]
pub struct UnknownSymmetry(pub String);

impl FromStr for Symmetry {
    type Err = UnknownSymmetry;

    fn from_str(s: &str) -> Result<Symmetry, UnknownSymmetry> {
        let lower = s.to_ascii_lowercase();
        let found = match lower.as_str() {
            "rotational" | "rotate" | "180" => Some(Symmetry::Rotate180),
            "90" => Some(Symmetry::Rotate90),
            "mirror" => Some(Symmetry::Mirror),
            "antidiagonal" => Some(Symmetry::AntiDiagonal),
            other => Symmetry::ALL.into_iter().find(|sym| sym.name() == other),
        };
        found.ok_or_else(|| UnknownSymmetry(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbits_partition_the_grid() {
        for side in [4, 6, 8, 9, 12, 16, 25] {
            for sym in Symmetry::ALL {
                let orbits = sym.orbits(side);
                let mut cells: Vec<usize> = orbits.iter().flatten().copied().collect();
                cells.sort_unstable();
                assert_eq!(cells, (0..side * side).collect::<Vec<_>>(), "{sym} {side}");
            }
        }
    }

    #[test]
    fn quarter_turn_orbits_have_four_cells_off_centre() {
        let orbits = Symmetry::Rotate90.orbits(9);
        assert_eq!(orbits.iter().filter(|o| o.len() == 1).count(), 1);
        assert!(orbits.iter().all(|o| o.len() == 1 || o.len() == 4));
        assert_eq!(orbits[0], vec![0, 8, 80, 72]);
    }

    #[test]
    fn names_round_trip() {
        for sym in Symmetry::ALL {
            assert_eq!(sym.name().parse::<Symmetry>(), Ok(sym));
        }
        assert_eq!("Rotational".parse(), Ok(Symmetry::Rotate180));
        let err = "spiral".parse::<Symmetry>().unwrap_err();
        assert!(err.to_string().contains("'spiral'"), "{err}");
    }

    #[test]
    fn mirrors_are_named_for_what_they_swap() {
        // Left-right: a cell and the one across the vertical axis, in the same row.
        assert_eq!(Symmetry::Mirror.images(9, 2, 1), vec![(2, 1), (2, 7)]);
        assert_eq!(Symmetry::Mirror.name(), "mirror-left-right");
        // Top-bottom: a cell and the one across the horizontal axis, in the same column.
        assert_eq!(
            Symmetry::MirrorTopBottom.images(9, 2, 1),
            vec![(2, 1), (6, 1)]
        );
        assert_eq!(Symmetry::MirrorTopBottom.name(), "mirror-top-bottom");
        assert_eq!("mirror".parse(), Ok(Symmetry::Mirror));
        assert!("mirror-vertical".parse::<Symmetry>().is_err());
    }

    #[test]
    fn holds_for_checks_each_image() {
        let mut cells = vec![0u8; 16];
        cells[1] = 1;
        assert!(!Symmetry::Rotate180.holds_for(4, &cells));
        cells[14] = 2;
        assert!(Symmetry::Rotate180.holds_for(4, &cells));
        assert!(!Symmetry::Mirror.holds_for(4, &cells));
    }
}
