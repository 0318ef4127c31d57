//! Connections: accepted sockets under their limits, the in-process pipe the CLI embeds the
//! server through, and the signals that start a drain.

pub(crate) mod in_process;
pub(crate) mod incoming;
pub(crate) mod shutdown;
