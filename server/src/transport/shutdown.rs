//! Waiting for the signals that start a drain, and for the second one that cuts it short.

/// The shutdown signals: the first starts a drain, a second one (an impatient Ctrl-C)
/// means exit now.
pub struct Signal {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
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
            Signal { term }
        }
        #[cfg(not(unix))]
        Signal {}
    }

    /// Resolves on the next SIGTERM or SIGINT.
    pub async fn recv(&mut self) {
        let interrupt = tokio::signal::ctrl_c();
        #[cfg(unix)]
        if let Some(term) = self.term.as_mut() {
            tokio::select! {
                _ = interrupt => {}
                _ = term.recv() => {}
            }
            return;
        }
        let _ = interrupt.await;
    }
}

impl Default for Signal {
    fn default() -> Self {
        Signal::new()
    }
}

/// Resolves on SIGTERM (what Kubernetes sends) or SIGINT (Ctrl-C).
pub async fn signal() {
    Signal::new().recv().await;
}
