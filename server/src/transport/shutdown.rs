//! Waiting for the signals that start a drain, and for the second one that cuts it short.

/// The shutdown signals: the first starts a drain, a second one (an impatient Ctrl-C)
/// means exit now.
pub struct Signal {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    /// Kept between calls, as `term` is: a listener made anew for each call would miss a
    /// second Ctrl-C sent before the next call began.
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl Signal {
    /// Starts listening for SIGTERM (what Kubernetes sends) and SIGINT (Ctrl-C).
    pub fn new() -> Signal {
        #[cfg(unix)]
        {
            let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(|err| {
                    tracing::warn!(%err, "cannot watch SIGTERM; only SIGINT will stop the server");
                })
                .ok();
            let interrupt =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
                    .map_err(|err| tracing::warn!(%err, "cannot watch SIGINT"))
                    .ok();
            Signal { term, interrupt }
        }
        #[cfg(not(unix))]
        Signal {}
    }

    /// Resolves on the next SIGTERM or SIGINT.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            () = next(&mut self.term) => {}
            () = next(&mut self.interrupt) => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Resolves on the next signal `signal` listens for; never where nothing listens.
#[cfg(unix)]
async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

impl Default for Signal {
    fn default() -> Self {
        Signal::new()
    }
}
