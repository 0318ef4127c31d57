//! Where solver and logic work runs: the solver threads' two lanes, each served round-robin
//! by connection, and the pool that puts puzzles and logic work on them.

pub(crate) mod lanes;
pub(crate) mod logic;
pub(crate) mod pool;
