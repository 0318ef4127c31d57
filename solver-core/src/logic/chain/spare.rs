//! Per-thread pools of the buffers of dropped traces and reaches: a search makes hundreds of
//! them per step, and allocating them cost as much as making them.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread's pool of one kind of buffers.
pub(crate) type Pool<T> = LocalKey<RefCell<Vec<T>>>;

/// The most buffers a pool keeps: every candidate's two traces (or reaches) of one search.
const MAX: usize = 2 * 81 * 9;

/// Buffers from `pool`, when the thread has some.
pub(crate) fn take<T: 'static>(pool: &'static Pool<T>) -> Option<T> {
    pool.try_with(|p| p.try_borrow_mut().ok()?.pop())
        .ok()
        .flatten()
}

/// Keeps `buffers` in `pool` for the next taker; at thread exit, or when the pool is full,
/// they are simply freed.
pub(crate) fn give<T: 'static>(pool: &'static Pool<T>, buffers: T) {
    let _ = pool.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut()
            && p.len() < MAX
        {
            p.push(buffers);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static POOL: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    }

    #[test]
    fn a_pool_hands_back_what_it_kept_up_to_its_size() {
        assert_eq!(take(&POOL), None);
        for i in 0..MAX + 5 {
            give(&POOL, i as u32);
        }
        assert_eq!(POOL.with(|p| p.borrow().len()), MAX);
        assert_eq!(take(&POOL), Some(MAX as u32 - 1));
    }
}
