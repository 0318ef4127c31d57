//! The only place calls are made from: an embedded server reached in memory (real HTTP/2 and
//! gRPC, no socket), or channels to one or several remote servers.

use std::time::Duration;

use anyhow::{Context, bail};
use hyper_util::rt::TokioIo;
use sudoku_compress::Codec;
use sudoku_compress::client::{CompressLayer, Compressed};
use sudoku_proto::pb::puzzles_client::PuzzlesClient;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_server::Dialer;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic_health::pb::health_client::HealthClient;

use crate::cli::{Compression, Global};

/// How long to wait for a TCP connection before calling a server unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// HTTP/2 pings while calls are open, and how long an answer may take: a server that
/// vanishes without closing its connections (its node gone, a network partition) is noticed
/// within about a minute, and a batch's chunks on it go to the other servers. Pings only
/// with calls open, every 30 s: proxies and servers that police pings allow that.
const KEEPALIVE: Duration = Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

/// What starts each certificate in a PEM file.
const CERT_MARKER: &str = "-----BEGIN CERTIFICATE-----";

/// One server to call: its URL and how to connect to it.
#[derive(Clone)]
pub struct Server {
    /// The URL as the user gave it (normalised), for messages.
    pub url: String,
    endpoint: Endpoint,
    /// TLS settings for https, kept to reach each address of the host under its name.
    tls: Option<ClientTlsConfig>,
    /// How to reach the embedded server, in memory; `None` for a server on the network.
    dialer: Option<Dialer>,
}

impl Server {
    /// The server at `url`, as the global flags say to reach it.
    fn new(url: &str, global: &Global) -> anyhow::Result<Server> {
        let tls = if url.starts_with("https://") {
            Some(tls_config(global)?)
        } else {
            None
        };
        Ok(Server {
            url: url.to_owned(),
            endpoint: endpoint_with(url, tls.clone())?,
            tls,
            dialer: None,
        })
    }

    /// The embedded server, reached through `dialer`.
    fn in_memory(dialer: Dialer) -> anyhow::Result<Server> {
        Ok(Server {
            url: EMBEDDED_URL.to_owned(),
            // The authority only names the server in requests; the dialer makes the connection.
            endpoint: endpoint_with(EMBEDDED_URL, None)?,
            tls: None,
            dialer: Some(dialer),
        })
    }

    /// One server per address the host name resolves to now (IPv4 ones where there are any,
    /// as a headless Service lists its pods), each named `url (address)` and checked against
    /// the host's name under TLS; the server itself for an address literal, or when the name
    /// does not resolve (connecting then says why).
    pub async fn resolve(&self) -> Vec<Server> {
        if self.dialer.is_some() {
            return vec![self.clone()];
        }
        let uri = self.endpoint.uri();
        let (Some(host), Some(scheme)) = (uri.host(), uri.scheme_str()) else {
            return vec![self.clone()];
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = uri
            .port_u16()
            .unwrap_or(if scheme == "https" { 443 } else { 80 });
        if host.parse::<std::net::IpAddr>().is_ok() {
            return vec![self.clone()];
        }
        let Ok(found) = tokio::net::lookup_host((host, port)).await else {
            return vec![self.clone()];
        };
        let mut addrs: Vec<std::net::SocketAddr> = found.collect();
        if addrs.iter().any(|a| a.is_ipv4()) {
            addrs.retain(|a| a.is_ipv4());
        }
        addrs.sort();
        addrs.dedup();
        let each = addrs.into_iter().filter_map(|addr| {
            let tls = self.tls.clone().map(|t| t.domain_name(host));
            let endpoint = endpoint_with(&format!("{scheme}://{addr}"), tls.clone()).ok()?;
            Some(Server {
                url: format!("{} ({addr})", self.url),
                endpoint,
                tls,
                dialer: None,
            })
        });
        let servers: Vec<Server> = each.collect();
        if servers.is_empty() {
            vec![self.clone()]
        } else {
            servers
        }
    }

    /// The address this server stands for, to tell resolved servers apart.
    pub fn key(&self) -> String {
        self.endpoint.uri().to_string()
    }

    /// A new connection to this server; a host name is resolved again, so a job that
    /// reconnects follows pods behind a headless Service as they come and go.
    pub async fn connect(&self) -> Result<Channel, tonic::transport::Error> {
        match &self.dialer {
            Some(dialer) => self.endpoint.connect_with_connector(dial(dialer)).await,
            None => self.endpoint.connect().await,
        }
    }

    /// A channel that connects on first use (and reconnects after a loss).
    pub fn lazy(&self) -> Channel {
        match &self.dialer {
            Some(dialer) => self.endpoint.connect_with_connector_lazy(dial(dialer)),
            None => self.endpoint.connect_lazy(),
        }
    }
}

/// The name the embedded server goes by in requests (it has no address).
const EMBEDDED_URL: &str = "http://embedded.invalid";

/// A connector that opens in-memory connections to the embedded server.
fn dial(
    dialer: &Dialer,
) -> impl tower::Service<
    tonic::transport::Uri,
    Response = TokioIo<tokio::io::DuplexStream>,
    Error = std::io::Error,
    Future = std::future::Ready<std::io::Result<TokioIo<tokio::io::DuplexStream>>>,
> + Send
+ 'static {
    let dialer = dialer.clone();
    tower::service_fn(move |_| std::future::ready(dialer.dial().map(TokioIo::new)))
}

/// Whether the flags leave the calls to an embedded server (no `--server` given).
pub fn is_embedded(global: &Global) -> bool {
    global.servers.iter().all(|s| s.trim().is_empty())
}

/// A ready connection, with the embedded server kept alive while it is used.
pub struct Connection {
    channel: Channel,
    /// Each server on its own, for commands that spread work and fail over themselves.
    servers: Vec<Server>,
    /// Who answers, for messages: the URL(s), or "the embedded server".
    target: String,
    embedded: Option<sudoku_server::InMemoryServer>,
    timeout: Option<Duration>,
    compression: Option<Codec>,
}

/// How the clients reach a server: the channel, through the server crate's compression layer
/// (level 1; tonic's own gzip is level 6, about ten times slower on puzzles).
pub type Link = Compressed<Channel>;

/// The largest answer accepted, expanded.
const MAX_ANSWER_BYTES: usize = 64 << 20;

impl Connection {
    /// Connects as the global flags say.
    pub async fn open(global: &Global) -> anyhow::Result<Connection> {
        let compression = global.compress.map(|c| match c {
            Compression::Gzip => Codec::Gzip,
            Compression::Zstd => Codec::Zstd,
        });
        let servers: Vec<String> = global
            .servers
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let (channel, servers, embedded, target) = if servers.is_empty() {
            let config = embedded_config(global);
            let server = sudoku_server::start_in_memory(config)
                .await
                .context("cannot start the embedded server")?;
            if global.verbose {
                eprintln!("sudoku: using an embedded server, reached in memory");
            }
            let local = Server::in_memory(server.dialer().clone())?;
            // Connected on first use: `batch` opens its own stream's connection and never
            // uses this one (an HTTP/2 handshake saved at start-up).
            let channel = local.lazy();
            let local = vec![local];
            (
                channel,
                local,
                Some(server),
                "the embedded server".to_owned(),
            )
        } else {
            let remote = servers
                .iter()
                .map(|url| Server::new(url, global))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let endpoints: Vec<Endpoint> = remote.iter().map(|s| s.endpoint.clone()).collect();
            if global.verbose {
                eprintln!("sudoku: using {}", servers.join(", "));
            }
            let channel = if endpoints.len() == 1 {
                let url = &servers[0];
                endpoints[0]
                    .connect()
                    .await
                    .with_context(|| format!("cannot reach {url}"))?
            } else {
                Channel::balance_list(endpoints.into_iter())
            };
            (channel, remote, None, servers.join(", "))
        };
        Ok(Connection {
            channel,
            servers,
            target,
            embedded,
            timeout: global.timeout,
            compression,
        })
    }

    /// Whether the server is the embedded one, in this process.
    pub fn is_embedded(&self) -> bool {
        self.embedded.is_some()
    }

    /// Each server on its own.
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    /// A Sudoku client with the chosen compression.
    pub fn sudoku(&self) -> SudokuClient<Link> {
        self.sudoku_on(self.channel.clone())
    }

    /// A Sudoku client on `channel` with the chosen compression.
    pub fn sudoku_on(&self, channel: Channel) -> SudokuClient<Link> {
        SudokuClient::new(self.link(channel)).max_decoding_message_size(MAX_ANSWER_BYTES)
    }

    /// A Puzzles client (rate, hint, explain, validate, generate) with the chosen compression.
    pub fn puzzles(&self) -> PuzzlesClient<Link> {
        PuzzlesClient::new(self.link(self.channel.clone()))
            .max_decoding_message_size(MAX_ANSWER_BYTES)
    }

    /// A health client with the chosen compression.
    pub fn health(&self) -> HealthClient<Link> {
        HealthClient::new(self.link(self.channel.clone()))
    }

    fn link(&self, channel: Channel) -> Link {
        CompressLayer::optional(self.compression, MAX_ANSWER_BYTES).on(channel)
    }

    /// Wraps a message, with `--timeout` as its gRPC deadline.
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(timeout) = self.timeout {
            request.set_timeout(timeout);
        }
        request
    }

    /// Who answers, for messages.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// A failed call as a one-line error in plain words.
    pub fn status_error(&self, status: tonic::Status) -> anyhow::Error {
        status_error(&self.target, status)
    }

    /// Stops the embedded server, if any.
    pub async fn close(self) -> anyhow::Result<()> {
        drop(self.channel);
        if let Some(server) = self.embedded {
            server.shutdown().await?;
        }
        Ok(())
    }
}

/// A failed call to `target` as a one-line error in plain words.
pub fn status_error(target: &str, status: tonic::Status) -> anyhow::Error {
    let message = status.message();
    if let Some(http) = http_status(message) {
        return anyhow::anyhow!(
            "{target} answered HTTP {http}, not gRPC: is that the server's gRPC port (50051 \
             unless its --listen says otherwise) and not another one, such as its metrics port?"
        );
    }
    match status.code() {
        tonic::Code::Unavailable => anyhow::anyhow!("{target} is unavailable: {message}"),
        // hyper's words for a peer that went away mid-call.
        tonic::Code::Unknown | tonic::Code::Internal
            if message.contains("error reading a body")
                || message.contains("connection reset")
                || message.contains("broken pipe") =>
        {
            anyhow::anyhow!("the connection was lost ({message})")
        }
        // A TLS server drops a plain HTTP/2 connection during its handshake; depending on
        // timing hyper reports that as a protocol error or as a cancelled request.
        tonic::Code::Unknown | tonic::Code::Internal | tonic::Code::Cancelled
            if target.starts_with("http://")
                && (message.contains("transport error")
                    || message.contains("h2 protocol error")
                    || message.contains("operation was canceled")) =>
        {
            anyhow::anyhow!(
                "{target} did not answer in plain HTTP/2; if it speaks TLS, use https:// ({message})"
            )
        }
        // The server's own messages say what was wrong and what to do.
        tonic::Code::InvalidArgument | tonic::Code::ResourceExhausted | tonic::Code::OutOfRange => {
            anyhow::anyhow!("{message}")
        }
        tonic::Code::Unimplemented => {
            anyhow::anyhow!("{target} does not offer this call ({message}): is it a sudoku-server?")
        }
        code => anyhow::anyhow!("{}: {message}", code_words(code)),
    }
}

/// The HTTP status of an answer that was not gRPC at all, from tonic's words for it.
fn http_status(message: &str) -> Option<&str> {
    let (_, code) = message.split_once("mapped from HTTP status code ")?;
    Some(code.split_whitespace().next().unwrap_or(code))
}

/// A gRPC status code in words, for messages.
pub fn code_words(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "no error",
        Code::Cancelled => "cancelled",
        Code::Unknown => "unknown error",
        Code::InvalidArgument => "invalid request",
        Code::DeadlineExceeded => "deadline exceeded",
        Code::NotFound => "not found",
        Code::AlreadyExists => "already exists",
        Code::PermissionDenied => "permission denied",
        Code::ResourceExhausted => "server busy",
        Code::FailedPrecondition => "failed precondition",
        Code::Aborted => "aborted",
        Code::OutOfRange => "too large",
        Code::Unimplemented => "not offered by this server",
        Code::Internal => "internal server error",
        Code::Unavailable => "unavailable",
        Code::DataLoss => "data lost",
        Code::Unauthenticated => "not authenticated",
    }
}

/// A gRPC status code as the gRPC specification names it (`RESOURCE_EXHAUSTED`), for
/// reports that count by code.
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Whether a status closes a stream the server no longer keeps open for us (idle too long, or
/// its buffers needed by other streams): nothing is wrong, and a new stream may open at once.
pub fn is_stream_closed(status: &tonic::Status) -> bool {
    use tonic_types::StatusExt;
    status.code() == tonic::Code::Unavailable
        && status.get_details_error_info().is_some_and(|info| {
            info.reason == sudoku_proto::STREAM_CLOSED && info.domain == sudoku_proto::ERROR_DOMAIN
        })
}

/// How many puzzles of its shape a message may carry, where `status` refused one as larger
/// than the server's batch stream takes (OUT_OF_RANGE with a `MESSAGE_TOO_LARGE` `ErrorInfo`).
pub fn message_fits(status: &tonic::Status) -> Option<usize> {
    use tonic_types::StatusExt;
    if status.code() != tonic::Code::OutOfRange {
        return None;
    }
    let info = status.get_details_error_info()?;
    if info.reason != sudoku_proto::MESSAGE_TOO_LARGE || info.domain != sudoku_proto::ERROR_DOMAIN {
        return None;
    }
    info.metadata
        .get("fits")?
        .parse()
        .ok()
        .filter(|&fits| fits > 0)
}

/// Whether a status means the server (or the way to it) is gone rather than the request is
/// wrong: the work can go to another server.
pub fn is_server_lost(status: &tonic::Status) -> bool {
    let message = status.message();
    match status.code() {
        tonic::Code::Unavailable | tonic::Code::Cancelled => true,
        tonic::Code::Unknown | tonic::Code::Internal => [
            "transport error",
            "error reading a body",
            "connection reset",
            "broken pipe",
            "h2 protocol error",
            "connection closed",
        ]
        .iter()
        .any(|m| message.contains(m)),
        _ => false,
    }
}

/// An endpoint for `url`, with TLS settings where the URL is https.
fn endpoint_with(url: &str, tls: Option<ClientTlsConfig>) -> anyhow::Result<Endpoint> {
    let endpoint = Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("'{url}' is not a server URL like http://127.0.0.1:50051"))?
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true)
        .http2_keep_alive_interval(KEEPALIVE)
        .keep_alive_timeout(KEEPALIVE_TIMEOUT)
        .keep_alive_while_idle(false);
    Ok(match tls {
        Some(tls) => endpoint.tls_config(tls)?,
        None => endpoint,
    })
}

/// What to trust for https: the `--ca-cert` file, or the system's roots without one.
fn tls_config(global: &Global) -> anyhow::Result<ClientTlsConfig> {
    let Some(path) = &global.ca_cert else {
        return Ok(ClientTlsConfig::new().with_native_roots());
    };
    let pem = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !pem
        .windows(CERT_MARKER.len())
        .any(|w| w == CERT_MARKER.as_bytes())
    {
        bail!("{} holds no PEM certificate", path.display());
    }
    Ok(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))
}

/// What to do about a connection error, to add to its message: the system's roots, used
/// without `--ca-cert`, know no private CA (such as one made for testing); and a TLS
/// handshake answered in plain text means a plaintext server.
pub fn advice(message: &str) -> Option<&'static str> {
    if ["UnknownIssuer", "no native certs found"]
        .iter()
        .any(|m| message.contains(m))
    {
        return Some("(pass --ca-cert with the CA that signed the server's certificate)");
    }
    ["InvalidContentType", "corrupt message"]
        .iter()
        .any(|m| message.contains(m))
        .then_some(
            "(the server did not answer in TLS: for a plaintext server use http://, not https://)",
        )
}

/// An error and its sources on one line, a source that repeats the one before dropped.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if parts.last() != Some(&text) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// The embedded server's configuration, from the global flags.
fn embedded_config(global: &Global) -> sudoku_server::Config {
    let mut config = sudoku_server::Config::embedded();
    if let Some(side) = global.max_grid_side {
        config.max_grid_side = side;
    }
    // Its one client sets the pace (see `Pace::EMBEDDED`), and its byte budget holds
    // that many messages of the largest grids (4 of 1,024 35x35 puzzles, held as
    // about 3.9 MB each), not the 1 MiB a server shared with other clients allows.
    config.batch_window = crate::batch::Pace::EMBEDDED.window();
    // Its one client is this process, whose output may wait on a reader (a pager):
    // nothing to close for waiting.
    config.idle_timeout_ms = 0;
    config.max_stream_bytes = config.max_batch_bytes.min(16 << 20);
    // The caller's --timeout bounds its calls here: the server's own cap on a call's
    // solver time (10 s) would otherwise cut a longer generate or rate short.
    if let Some(timeout) = global.timeout {
        let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        config.max_solve_ms = config.max_solve_ms.max(ms);
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn global(args: &[&str]) -> Global {
        let argv = ["sudoku"]
            .into_iter()
            .chain(args.iter().copied())
            .chain(["health"]);
        crate::cli::Cli::try_parse_from(argv)
            .expect("flags parse")
            .global
    }

    #[test]
    fn a_timeout_longer_than_the_servers_cap_raises_the_embedded_cap() {
        let default_cap = sudoku_server::Config::embedded().max_solve_ms;
        assert_eq!(embedded_config(&global(&[])).max_solve_ms, default_cap);
        let long = embedded_config(&global(&["--timeout", "1m"]));
        assert_eq!(long.max_solve_ms, 60_000);
        assert!(
            60_000 > default_cap,
            "the test needs a timeout above the default cap"
        );
        // A shorter deadline is the client's to enforce; the server's cap stays.
        let short = embedded_config(&global(&["--timeout", "1s"]));
        assert_eq!(short.max_solve_ms, default_cap);
    }
}
