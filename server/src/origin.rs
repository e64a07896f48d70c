//! Web origins and host authorities: `scheme://host[:port]` read and
//! compared the one way the guard, the configuration and the tests need.
//! Its own module, since the configuration checks origins at start and
//! must not reach into `http`.

/// A web origin: scheme, host and port (the scheme's default filled in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// Reads `scheme://host[:port]` (a trailing `/` allowed); `null` and
    /// anything with a path are not origins.
    pub fn parse(text: &str) -> Option<Self> {
        let (scheme, authority) = text.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let authority = authority.strip_suffix('/').unwrap_or(authority);
        if authority.contains(['/', '?', '#', '@']) {
            return None;
        }
        Self::from_authority(&scheme, authority)
    }

    pub fn from_authority(scheme: &str, authority: &str) -> Option<Self> {
        let default_port = match scheme {
            "http" | "ws" => 80,
            "https" | "wss" => 443,
            _ => return None,
        };
        let (host, port) = split_authority(authority)?;
        Some(Self {
            scheme: scheme.to_string(),
            host,
            port: port.unwrap_or(default_port),
        })
    }
}

/// `host[:port]` or `[v6][:port]`, the host lower-cased.
pub fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.trim();
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else if authority.matches(':').count() > 1 {
        // A bare IPv6 address (an `IMPRINT_ALLOWED_HOSTS` entry): no port.
        return Some((format!("[{}]", authority.to_ascii_lowercase()), None));
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() || host.contains(char::is_whitespace) {
        return None;
    }
    let port = match port {
        Some(port) => Some(port.parse::<u16>().ok()?),
        None => None,
    };
    Some((host.to_ascii_lowercase(), port))
}
