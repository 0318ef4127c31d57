//! Test and benchmark support shared by every crate: one dataset loader, one `#`-comment
//! filter, and one rule for missing data.
//!
//! The rule: data that cannot be found fails the test when env `CI` is set (CI has the data)
//! or when `SUDOKU_DATA` was set explicitly (a typo must not pass silently); otherwise a
//! `SKIP` line is printed and the caller returns early.
//!
//! ```no_run
//! let Some(path) = test_support::data_file("puzzles2_17_clue") else { return };
//! for line in test_support::puzzle_lines(&std::fs::read_to_string(path).unwrap()) {
//!     // `line` is the grid field of one dataset line.
//! }
//! ```

use std::path::{Path, PathBuf};

/// The environment variable that moves the dataset folder.
pub const DATA_ENV: &str = "SUDOKU_DATA";

/// The dataset folder: `SUDOKU_DATA`, or the workplace's `../shared/data` beside the repository.
pub fn data_dir() -> PathBuf {
    std::env::var_os(DATA_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(default_data_dir)
}

/// `../shared/data` relative to the repository root.
fn default_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// Whether missing data is an error here rather than a skip.
pub fn data_required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty()) || std::env::var_os(DATA_ENV).is_some()
}

/// Reports missing data: panics when [`data_required`], else prints a `SKIP` line on stderr.
pub fn missing(what: &Path) {
    let message = format!(
        "{} not found (set {DATA_ENV} to the dataset folder)",
        what.display()
    );
    if data_required() {
        panic!("dataset required (CI or {DATA_ENV} is set): {message}");
    }
    eprintln!("SKIP: {message}");
}

/// The path of one dataset file, or `None` after [`missing`] said so.
pub fn data_file(name: &str) -> Option<PathBuf> {
    let path = data_dir().join(name);
    if path.is_file() {
        Some(path)
    } else {
        missing(&path);
        None
    }
}

/// The grid field of each puzzle line: blank lines and `#` comments skipped, and only the
/// first whitespace-separated field kept (datasets append ratings after the grid).
pub fn puzzle_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
}

/// One dataset file: its name and the grid field of each puzzle line.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The file name, e.g. `puzzles2_17_clue`.
    pub name: String,
    /// The grid field of each puzzle line, in file order.
    pub puzzles: Vec<String>,
}

/// Reads one dataset file.
///
/// # Panics
/// When the file cannot be read: a dataset that exists but is unreadable is a broken setup.
pub fn read_dataset(path: &Path) -> Dataset {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read dataset {}: {e}", path.display()));
    Dataset {
        name: path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        puzzles: puzzle_lines(&text).map(str::to_owned).collect(),
    }
}

/// Every `puzzles*` file in the dataset folder, sorted by name; `None` after [`missing`].
pub fn datasets() -> Option<Vec<Dataset>> {
    let dir = data_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        missing(&dir);
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("puzzles"))
        })
        .collect();
    if files.is_empty() {
        missing(&dir.join("puzzles*"));
        return None;
    }
    files.sort();
    Some(files.iter().map(|p| read_dataset(p)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puzzle_lines_skip_comments_blanks_and_extra_fields() {
        let text = "# header\n\n  abc 1.5 rated\n#x\ndef\n   \n";
        assert_eq!(puzzle_lines(text).collect::<Vec<_>>(), ["abc", "def"]);
    }

    #[test]
    fn the_default_folder_is_beside_the_repository() {
        let dir = default_data_dir();
        assert!(dir.ends_with("../../shared/data"), "{}", dir.display());
    }
}
