//! Whether a step's sentence and support will be read. The rater reads only the hardest
//! step's, so while it runs, steps rated no higher than the hardest so far (which cannot
//! become the hardest) go unworded: finders skip their sentences and support lists, which
//! cost several percent of the rating time and change nothing else.

use std::cell::Cell;

thread_local! {
    /// Steps rated this or lower go unread; `None` (hints, explanations): every step is read.
    static UNREAD_UPTO: Cell<Option<u16>> = const { Cell::new(None) };
}

/// Whether a step rated `tenths` will be read, so that its sentence and support are wanted.
pub(crate) fn read(tenths: u16) -> bool {
    bar().is_none_or(|upto| tenths > upto)
}

/// The bar now: steps rated this or lower go unread (`None`: every step is read).
pub(crate) fn bar() -> Option<u16> {
    UNREAD_UPTO.try_with(Cell::get).ok().flatten()
}

/// Whether steps worded under bar `then` are worded enough now: every step left unworded
/// then goes unread now too (results kept from an earlier search must pass this).
pub(crate) fn worded_enough(then: Option<u16>) -> bool {
    then.is_none_or(|then| bar().is_some_and(|now| then <= now))
}

/// While alive, steps rated at or below the bar set with [`Unread::upto`] go unworded; the
/// bar it found comes back when it is dropped (also on a panic).
pub(crate) struct Unread {
    /// The bar before this one.
    before: Option<u16>,
}

impl Unread {
    /// Starts with every step read.
    pub(crate) fn new() -> Unread {
        let before = UNREAD_UPTO.try_with(|b| b.replace(None)).ok().flatten();
        Unread { before }
    }

    /// From now on, steps rated `tenths` or lower go unread.
    pub(crate) fn upto(&self, tenths: u16) {
        let _ = UNREAD_UPTO.try_with(|b| b.set(Some(tenths)));
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        let _ = UNREAD_UPTO.try_with(|b| b.set(self.before));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_above_the_bar_are_read_and_the_bar_goes_with_its_guard() {
        assert!(read(0));
        {
            let unread = Unread::new();
            assert!(read(12));
            unread.upto(26);
            assert!(!read(12));
            assert!(!read(26));
            assert!(read(27));
            {
                let inner = Unread::new();
                assert!(read(12));
                inner.upto(90);
                assert!(!read(80));
            }
            assert!(!read(26));
            assert!(read(27));
        }
        assert!(read(0));
    }

    #[test]
    fn what_was_worded_under_a_lower_bar_is_worded_enough() {
        assert!(worded_enough(None));
        assert!(!worded_enough(Some(20)));
        let unread = Unread::new();
        unread.upto(30);
        assert!(worded_enough(None));
        assert!(worded_enough(Some(20)));
        assert!(worded_enough(Some(30)));
        assert!(!worded_enough(Some(31)));
    }
}
