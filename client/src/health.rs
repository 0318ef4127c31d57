//! `sudoku health`: the standard health check.

use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;

use crate::cli::Format;
use crate::conn::Connection;

/// Prints the server's status (a word, or `{"status": ...}` in JSON); true when SERVING.
pub async fn run(conn: &Connection, format: Format) -> anyhow::Result<bool> {
    // The embedded server is always SERVING: a probe with a forgotten SUDOKU_SERVER would
    // pass whatever state the real server is in.
    if conn.is_embedded() {
        anyhow::bail!(
            "health checks a remote server: pass --server URL or set SUDOKU_SERVER \
             (the embedded server, used without one, is always SERVING)"
        );
    }
    let answer = conn
        .health()
        .check(conn.request(HealthCheckRequest {
            service: String::new(),
        }))
        .await
        .map_err(|s| conn.status_error(s))?;
    let status = answer.into_inner().status();
    let text = match format {
        Format::Json => format!(
            "{}\n",
            serde_json::json!({ "status": status.as_str_name() })
        ),
        Format::Line | Format::Pretty => format!("{}\n", status.as_str_name()),
    };
    crate::write_stdout(text.as_bytes())?;
    Ok(status == ServingStatus::Serving)
}
