//! The techniques short of chains, one family a file: each finds the first step of its kind
//! on a board, in SE's search order. The engine holds their order; the memos beside them
//! keep what a search found on one step, so the next redoes only the digits and houses that
//! changed.

pub(crate) mod fish;
pub(crate) mod grouped;
mod house_memo;
pub(crate) mod locked;
pub(crate) mod loops;
pub(crate) mod named;
mod per_digit;
pub(crate) mod singles;
pub(crate) mod strong;
pub(crate) mod subsets;
pub(crate) mod turbot;
pub(crate) mod unique;
pub(crate) mod wings;
pub(crate) mod wxyz;
