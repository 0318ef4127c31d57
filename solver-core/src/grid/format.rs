//! Writing grids: the one-line form for scripts and a boxed form for people.

use std::fmt;

use super::Grid;

/// The one-character form of a value: `.` empty, `1-9`, then `A-Z`.
pub(crate) fn value_char(v: u8) -> char {
    match v {
        0 => '.',
        1..=9 => char::from(b'0' + v),
        _ => char::from(b'A' + v - 10),
    }
}

impl Grid {
    /// One character per cell in row-major order, `.` for empty.
    pub fn to_line(&self) -> String {
        self.cells().iter().map(|&v| value_char(v)).collect()
    }
}

/// The pretty form: boxes separated by `|` and `------+-------+------` rules.
impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.shape();
        let (side, box_rows, box_cols) = (shape.side(), shape.box_rows(), shape.box_cols());
        let boxes_across = side / box_cols;
        let width = 2 * box_cols - 1;
        let rule: Vec<String> = (0..boxes_across)
            .map(|b| "-".repeat(width + usize::from(b > 0) + usize::from(b + 1 < boxes_across)))
            .collect();
        let rule = rule.join("+");
        for (r, row) in self.cells().chunks(side).enumerate() {
            if r > 0 && r % box_rows == 0 {
                writeln!(f, "{rule}")?;
            }
            for (c, &v) in row.iter().enumerate() {
                if c > 0 {
                    f.write_str(if c % box_cols == 0 { " | " } else { " " })?;
                }
                write!(f, "{}", value_char(v))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Grid, Shape};

    #[test]
    fn pretty_matches_the_documented_layout() {
        let grid: Grid =
            "316578492529134768487629531263415987974863125851792643138947256692351874745286319"
                .parse()
                .unwrap();
        let text = grid.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "3 1 6 | 5 7 8 | 4 9 2");
        assert_eq!(lines[3], "------+-------+------");
        assert_eq!(lines.len(), 11);
    }

    #[test]
    fn pretty_for_other_shapes_round_trips() {
        for (r, c) in [
            (2, 2),
            (2, 3),
            (3, 2),
            (2, 4),
            (3, 4),
            (4, 4),
            (5, 5),
            (5, 7),
        ] {
            let shape = Shape::new(r, c).unwrap();
            let mut cells = vec![0u32; shape.cells()];
            cells[0] = shape.side() as u32;
            let grid = Grid::new(shape, &cells).unwrap();
            let back = crate::grid::parse(&grid.to_string(), Some(shape)).unwrap();
            assert_eq!(back, grid, "{}", grid);
            let back = crate::grid::parse(&grid.to_line(), Some(shape)).unwrap();
            assert_eq!(back, grid);
        }
    }
}
