//! What `--server` accepts: `http://` or `https://` with a host and an optional port,
//! `host:port` or a bare host (plain HTTP/2, as grpcurl takes them); anything else is refused
//! with what is wrong, before a connection is tried.

use thiserror::Error;

/// The port a server listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 50051;

/// Why a `--server` value is not a server address.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ServerUrlError {
    /// A scheme other than http or https.
    #[error(
        "the scheme '{scheme}://' is not one sudoku speaks; use http:// for a plaintext \
         server or https:// for TLS"
    )]
    Scheme {
        /// The value as given.
        text: String,
        /// The scheme found.
        scheme: String,
    },
    /// The port is not a number from 1 to 65535.
    #[error("'{port}' is not a port (a port is a number from 1 to 65535)")]
    Port {
        /// The value as given.
        text: String,
        /// What stood where the port goes.
        port: String,
    },
    /// Something after the host and port (gRPC servers have no path).
    #[error(
        "a server address has no path, query or user ('{extra}'); give only the host and \
         port, e.g. http://127.0.0.1:50051"
    )]
    Path {
        /// The value as given.
        text: String,
        /// The part that does not belong.
        extra: String,
    },
    /// No host, or one with characters no host name has.
    #[error("'{host}' is not a host name or address (write an IPv6 address in brackets: [::1])")]
    Host {
        /// The value as given.
        text: String,
        /// The host part found.
        host: String,
    },
}

/// The URL to connect to, from what the user typed: `http://…` or `https://…` as given (a
/// trailing `/` dropped), and `host:port` or `host` as `http://host:port` (port 50051 for a
/// bare host). An empty value stays empty: it means the embedded server.
pub fn parse(text: &str) -> Result<String, ServerUrlError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    let (scheme, rest) = match trimmed.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => ("http".to_owned(), trimmed),
    };
    if scheme != "http" && scheme != "https" {
        return Err(ServerUrlError::Scheme {
            text: trimmed.to_owned(),
            scheme,
        });
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if let Some(at) = rest.find(['/', '?', '#', '@']) {
        return Err(ServerUrlError::Path {
            text: trimmed.to_owned(),
            extra: rest[at..].to_owned(),
        });
    }
    let (host, port) = split_host_port(trimmed, rest)?;
    let port = match port {
        Some(port) => port,
        None if trimmed.contains("://") => return Ok(format!("{scheme}://{host}")),
        None => DEFAULT_PORT,
    };
    Ok(format!("{scheme}://{host}:{port}"))
}

/// The host and the port, if one is given, of `host[:port]` or `[v6][:port]`.
fn split_host_port<'a>(
    text: &str,
    authority: &'a str,
) -> Result<(&'a str, Option<u16>), ServerUrlError> {
    let (host, port) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(end) => {
                let (host, after) = authority.split_at(end + 1);
                match after.strip_prefix(':') {
                    Some(port) => (host, Some(port)),
                    None if after.is_empty() => (host, None),
                    None => return Err(bad_host(text, authority)),
                }
            }
            None => return Err(bad_host(text, authority)),
        }
    } else {
        match authority.split_once(':') {
            // Two colons or more: an IPv6 address without its brackets.
            Some((_, port)) if port.contains(':') => return Err(bad_host(text, authority)),
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if !is_host(host) {
        return Err(bad_host(text, host));
    }
    let port = match port {
        None => None,
        Some(port) => match port.parse::<u16>() {
            Ok(n) if n > 0 && port.bytes().all(|b| b.is_ascii_digit()) => Some(n),
            _ => {
                return Err(ServerUrlError::Port {
                    text: text.to_owned(),
                    port: port.to_owned(),
                });
            }
        },
    };
    Ok((host, port))
}

/// A host name (letters, digits, `-`, `_`, `.`), an IPv4 address, or an IPv6 one in brackets.
fn is_host(host: &str) -> bool {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner.parse::<std::net::Ipv6Addr>().is_ok();
    }
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn bad_host(text: &str, host: &str) -> ServerUrlError {
    ServerUrlError::Host {
        text: text.to_owned(),
        host: host.to_owned(),
    }
}

/// `--server`'s value parser: the message clap prints after "invalid value".
pub fn parse_flag(text: &str) -> Result<String, String> {
    parse(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_grpcurl_and_browsers_take() {
        assert_eq!(parse("127.0.0.1:7"), Ok("http://127.0.0.1:7".into()));
        assert_eq!(parse("localhost"), Ok("http://localhost:50051".into()));
        assert_eq!(
            parse("https://a.example:443"),
            Ok("https://a.example:443".into())
        );
        assert_eq!(parse("HTTP://a.example/"), Ok("http://a.example".into()));
        assert_eq!(parse("[::1]:9"), Ok("http://[::1]:9".into()));
        assert_eq!(parse("http://[::1]"), Ok("http://[::1]".into()));
        assert_eq!(parse("  "), Ok(String::new()));
    }

    #[test]
    fn other_schemes_are_refused_by_name() {
        for (text, scheme) in [
            ("htp://a:1", "htp"),
            ("ftp://a", "ftp"),
            ("grpc://a:1", "grpc"),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(
                err,
                ServerUrlError::Scheme {
                    text: text.into(),
                    scheme: scheme.into()
                }
            );
            assert!(err.to_string().contains(&format!("'{scheme}://'")), "{err}");
        }
    }

    #[test]
    fn bad_ports_paths_and_hosts_say_what_is_wrong() {
        for (text, port) in [
            ("127.0.0.1:5005x", "5005x"),
            ("http://a:0", "0"),
            ("a:65536", "65536"),
            ("a:", ""),
            ("a:+80", "+80"),
        ] {
            assert_eq!(
                parse(text),
                Err(ServerUrlError::Port {
                    text: text.into(),
                    port: port.into()
                })
            );
        }
        for (text, extra) in [
            ("http://a:1/sudoku", "/sudoku"),
            ("a:1/x/", "/x"),
            ("http://a?x", "?x"),
            ("http://u@a", "@a"),
        ] {
            assert_eq!(
                parse(text),
                Err(ServerUrlError::Path {
                    text: text.into(),
                    extra: extra.into()
                })
            );
        }
        for text in ["http://", "::1", "a b:1", "[::1", "[zz]:1", "http://:80"] {
            assert!(
                matches!(parse(text), Err(ServerUrlError::Host { .. })),
                "{text}: {:?}",
                parse(text)
            );
        }
    }
}
