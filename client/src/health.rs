//! `sudoku health`: the standard health check.

use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;

use crate::conn::Connection;

/// Prints the server's status; true when SERVING.
pub async fn run(conn: &Connection) -> anyhow::Result<bool> {
    let answer = conn
        .health()
        .check(conn.request(HealthCheckRequest {
            service: String::new(),
        }))
        .await
        .map_err(crate::status_error)?;
    let status = answer.into_inner().status();
    println!("{}", status.as_str_name());
    Ok(status == ServingStatus::Serving)
}
