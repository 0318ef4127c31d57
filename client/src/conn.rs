//! The only place calls are made from: an embedded server on a loopback port, or channels
//! to one or several remote servers.

use std::time::Duration;

use anyhow::{Context, bail};
use sudoku_proto::pb::sudoku_client::SudokuClient;
use tonic::codec::CompressionEncoding;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic_health::pb::health_client::HealthClient;

use crate::cli::{Compression, Global};

/// How long to wait for a TCP connection before calling a server unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A ready connection, with the embedded server kept alive while it is used.
pub struct Connection {
    channel: Channel,
    embedded: Option<sudoku_server::Server>,
    timeout: Option<Duration>,
    compression: Option<CompressionEncoding>,
}

impl Connection {
    /// Connects as the global flags say.
    pub async fn open(global: &Global) -> anyhow::Result<Connection> {
        let compression = global.compress.map(|c| match c {
            Compression::Gzip => CompressionEncoding::Gzip,
            Compression::Zstd => CompressionEncoding::Zstd,
        });
        let (channel, embedded) = if global.servers.is_empty() {
            let server = sudoku_server::start(sudoku_server::Config::embedded())
                .await
                .context("cannot start the embedded server")?;
            let url = format!("http://{}", server.addr());
            if global.verbose {
                eprintln!("sudoku: using an embedded server at {url}");
            }
            let channel = endpoint(&url, global)?
                .connect()
                .await
                .context("cannot reach the embedded server")?;
            (channel, Some(server))
        } else {
            let endpoints = global
                .servers
                .iter()
                .map(|url| endpoint(url, global))
                .collect::<anyhow::Result<Vec<_>>>()?;
            if global.verbose {
                eprintln!("sudoku: using {}", global.servers.join(", "));
            }
            let channel = if endpoints.len() == 1 {
                let url = &global.servers[0];
                endpoints[0]
                    .connect()
                    .await
                    .with_context(|| format!("cannot reach {url}"))?
            } else {
                Channel::balance_list(endpoints.into_iter())
            };
            (channel, None)
        };
        Ok(Connection {
            channel,
            embedded,
            timeout: global.timeout,
            compression,
        })
    }

    /// A Sudoku client with the chosen compression.
    pub fn sudoku(&self) -> SudokuClient<Channel> {
        let client = SudokuClient::new(self.channel.clone()).max_decoding_message_size(64 << 20);
        match self.compression {
            Some(c) => client.send_compressed(c).accept_compressed(c),
            None => client,
        }
    }

    /// A health client with the chosen compression.
    pub fn health(&self) -> HealthClient<Channel> {
        let client = HealthClient::new(self.channel.clone());
        match self.compression {
            Some(c) => client.send_compressed(c).accept_compressed(c),
            None => client,
        }
    }

    /// Wraps a message, with `--timeout` as its gRPC deadline.
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(timeout) = self.timeout {
            request.set_timeout(timeout);
        }
        request
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

fn endpoint(url: &str, global: &Global) -> anyhow::Result<Endpoint> {
    let mut endpoint = Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("'{url}' is not a server URL like http://127.0.0.1:50051"))?
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true);
    if url.starts_with("https://") {
        let Some(path) = &global.ca_cert else {
            bail!("{url} uses TLS: give the CA certificate to trust with --ca-cert");
        };
        let pem = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        endpoint = endpoint
            .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))?;
    }
    Ok(endpoint)
}
