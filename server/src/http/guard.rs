//! The guard in front of every route, one function deciding for REST,
//! server functions and WebSockets alike:
//! - the `Host` must be one of the server's own names (stops DNS rebinding);
//! - a browser request (one with an `Origin`) must come from Imprint's own
//!   origin — scheme, host and port exactly, as this request was served —
//!   or one listed in `IMPRINT_ALLOWED_ORIGINS`; requests without `Origin`
//!   (curl, the CLI) pass to the next checks;
//! - a token is required when one is configured (header, any
//!   `imprint_token` cookie, or `?token=`, which a page load turns into a
//!   cookie and then removes from the address bar);
//! - bodies that announce more than 64 KiB are refused.
//!
//! It also turns any error response that is not JSON into the JSON shape.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;

use super::error::json_error;
use crate::origin::{split_authority, Origin};

pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// The one route that takes more: an import of JSON Lines, streamed to a
/// file before it is read.
pub const IMPORT_PATH: &str = "/api/memories/import";
/// The largest import.
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

/// The body limit of a request to `path`.
pub fn body_limit_for(path: &str) -> usize {
    if path == IMPORT_PATH {
        MAX_IMPORT_BYTES
    } else {
        MAX_BODY_BYTES
    }
}
const TOKEN_COOKIE: &str = "imprint_token";

/// A name the server answers to; without a port, on any port.
#[derive(Debug)]
struct HostRule {
    host: String,
    port: Option<u16>,
}

pub struct Guard {
    hosts: Vec<HostRule>,
    allowed_origins: Vec<Origin>,
    token: Option<String>,
    trust_proxy: bool,
    /// Requests with a wrong or missing token pass one at a time, each
    /// answered after [`FAILED_TOKEN_PAUSE`]: guessing is slow, however
    /// many connections guess at once.
    failed: tokio::sync::Mutex<()>,
}

/// How long the answer to a request without the right token waits, one
/// such request at a time.
pub const FAILED_TOKEN_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

impl Guard {
    pub fn new(
        extra_hosts: &[String],
        allowed_origins: &[String],
        token: Option<String>,
        trust_proxy: bool,
    ) -> Arc<Self> {
        let hosts = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|h| h.to_string())
            .chain(extra_hosts.iter().cloned())
            .filter_map(|entry| {
                let (host, port) = split_authority(&entry)?;
                Some(HostRule { host, port })
            })
            .collect();
        Arc::new(Self {
            hosts,
            allowed_origins: allowed_origins
                .iter()
                .filter_map(|o| Origin::parse(o))
                .collect(),
            token: token
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty()),
            trust_proxy,
            failed: tokio::sync::Mutex::new(()),
        })
    }

    fn host_allowed(&self, authority: &str) -> bool {
        let Some((host, port)) = split_authority(authority) else {
            return false;
        };
        // `*.localhost` always resolves to loopback, so no rebinding page
        // can be behind it.
        host.ends_with(".localhost")
            || self
                .hosts
                .iter()
                .any(|rule| rule.host == host && rule.port.is_none_or(|p| Some(p) == port))
    }

    /// Whether the request came over https, as far as we can know.
    fn is_https(&self, headers: &HeaderMap) -> bool {
        self.trust_proxy
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
    }

    /// Imprint's own origin for this request: how it was served.
    fn own_origin(&self, headers: &HeaderMap, host: &str) -> Option<Origin> {
        let scheme = if self.is_https(headers) {
            "https"
        } else {
            "http"
        };
        Origin::from_authority(scheme, host)
    }

    fn origin_allowed(&self, origin: &str, own: Option<&Origin>) -> bool {
        // "null" (sandboxed frames, file pages) is foreign too.
        let Some(origin) = Origin::parse(origin) else {
            return false;
        };
        own == Some(&origin) || self.allowed_origins.contains(&origin)
    }

    fn token_ok(&self, headers: &HeaderMap, query: Option<&str>) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
        // Every cookie of that name: another app on the same host (cookies
        // ignore ports) may have set one too.
        let cookies = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().strip_prefix(TOKEN_COOKIE)?.strip_prefix('='))
            .map(str::to_string);
        bearer
            .into_iter()
            .chain(cookies)
            .chain(query_token(query))
            .any(|given| constant_time_eq(given.as_bytes(), token.as_bytes()))
    }
}

/// The `token` query parameter, percent-decoded (a `+` stays a `+`: a
/// token pasted unencoded still works).
fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == "token")
        .map(|(_, value)| percent_decode_str(value).decode_utf8_lossy().into_owned())
}

/// A redirect target that stays on this server: `//evil.example/` (and
/// `/\evil.example/`, which browsers read the same way) would otherwise
/// be a scheme-relative address on another host.
fn path_on_this_server(path: &str) -> String {
    format!("/{}", path.trim_start_matches(['/', '\\']))
}

/// The query without its `token` parameter.
fn query_without_token(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| !pair.is_empty() && *pair != "token" && !pair.starts_with("token="))
        .collect::<Vec<_>>()
        .join("&")
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A page load: a plain GET of the site, not an API call or an upgrade.
fn is_page_load(request: &Request) -> bool {
    request.method() == Method::GET
        && !request.uri().path().starts_with("/api/")
        && !request.headers().contains_key(header::UPGRADE)
}

pub async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .map(str::to_string);
    let host = match host {
        Some(host) if guard.host_allowed(&host) => host,
        _ => {
            return json_error(
                StatusCode::FORBIDDEN,
                "this server does not answer to that host name",
            )
        }
    };
    // A browser says when another site made the request (an <img>, a
    // form, a link), even without an Origin: no such request reaches the
    // API.
    let cross_site = request
        .headers()
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"));
    if cross_site && request.uri().path().starts_with("/api/") {
        return json_error(
            StatusCode::FORBIDDEN,
            "requests from other sites are refused (Sec-Fetch-Site: cross-site)",
        );
    }
    // Any request a browser marks with an Origin: state-changing routes,
    // server functions and WebSocket upgrades included.
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let own = guard.own_origin(request.headers(), &host);
        let allowed = origin
            .to_str()
            .is_ok_and(|o| guard.origin_allowed(o, own.as_ref()));
        if !allowed {
            return json_error(
                StatusCode::FORBIDDEN,
                "requests from other sites are refused (set IMPRINT_ALLOWED_ORIGINS to allow one)",
            );
        }
    }
    if !guard.token_ok(request.headers(), request.uri().query()) {
        let _one_at_a_time = guard.failed.lock().await;
        tokio::time::sleep(FAILED_TOKEN_PAUSE).await;
        return json_error(
            StatusCode::UNAUTHORIZED,
            "a token is required: open the dashboard as /?token=YOUR_TOKEN or send Authorization: Bearer",
        );
    }
    if guard.token.is_some() {
        // This socket carried the token: it keeps its place (see
        // `serve::sockets`).
        if let Some(proof) = request.extensions().get::<crate::serve::sockets::Proof>() {
            proof.prove();
        }
    }
    let too_large = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|len| len > body_limit_for(request.uri().path()));
    if too_large {
        return json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &too_large_message(request.uri().path()),
        );
    }
    // A page opened with ?token= stores it as a cookie and reloads itself
    // without it, so the token stays out of history and bookmarks.
    if let (Some(token), true) = (&guard.token, is_page_load(&request)) {
        if query_token(request.uri().query()).is_some() {
            let secure = if guard.is_https(request.headers()) {
                "; Secure"
            } else {
                ""
            };
            let cookie =
                format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}");
            let rest = query_without_token(request.uri().query().unwrap_or(""));
            let path = path_on_this_server(request.uri().path());
            let location = match rest.as_str() {
                "" => path,
                rest => format!("{path}?{rest}"),
            };
            let mut response = StatusCode::SEE_OTHER.into_response();
            if let (Ok(cookie), Ok(location)) = (
                HeaderValue::from_str(&cookie),
                HeaderValue::from_str(&location),
            ) {
                response.headers_mut().insert(header::SET_COOKIE, cookie);
                response.headers_mut().insert(header::LOCATION, location);
                return response;
            }
        }
    }
    next.run(request).await
}

/// Error responses that are not JSON (axum's own rejections, a body over
/// the limit without Content-Length, 405s) get the JSON shape.
pub async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else if status == StatusCode::PAYLOAD_TOO_LARGE {
        "the request body is larger than 64 KiB".to_string()
    } else {
        text
    };
    let mut json = json_error(status, &message);
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            json.headers_mut().insert(name.clone(), value.clone());
        }
    }
    json.into_response()
}

/// What a refused body is told.
pub fn too_large_message(path: &str) -> String {
    if path == IMPORT_PATH {
        "the file is larger than 64 MiB".to_string()
    } else {
        "the request body is larger than 64 KiB".to_string()
    }
}

/// Limits request bodies, also those sent without a Content-Length (a
/// reader past the limit gets `LengthLimitError`, which axum's extractors
/// answer with 413).
pub async fn body_limit(request: Request, next: Next) -> Response {
    let limit = body_limit_for(request.uri().path());
    let request =
        request.map(|body| axum::body::Body::new(http_body_util::Limited::new(body, limit)));
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(hosts: &[&str], origins: &[&str]) -> Arc<Guard> {
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
        Guard::new(&hosts, &origins, None, false)
    }

    #[test]
    fn hosts_match_by_name_and_by_port_when_one_is_given() {
        let guard = guard(&["imprint.home", "box.lan:8420", "::1", "[fe80::1]:9"], &[]);
        for ok in [
            "127.0.0.1:8420",
            "localhost",
            "[::1]:80",
            "[::1]",
            "imprint.home:8420",
            "IMPRINT.home",
            "box.lan:8420",
            "[fe80::1]:9",
            "app.localhost:8420",
        ] {
            assert!(guard.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example:8420",
            "127.0.0.1.evil.example",
            "imprint.home.evil",
            "localhost.evil",
            "box.lan:8421",
            "box.lan",
            "[fe80::1]:10",
            "",
        ] {
            assert!(!guard.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn origins_must_equal_our_own_exactly() {
        let guard = guard(&[], &["http://127.0.0.1:8421"]);
        let own = Origin::from_authority("http", "127.0.0.1:8420");
        let ok = |o: &str| guard.origin_allowed(o, own.as_ref());
        assert!(ok("http://127.0.0.1:8420"));
        assert!(ok("HTTP://127.0.0.1:8420/"));
        assert!(
            ok("http://127.0.0.1:8421"),
            "listed in IMPRINT_ALLOWED_ORIGINS"
        );
        assert!(!ok("http://localhost:3000"), "another local port");
        assert!(!ok("http://127.0.0.1:3000"));
        assert!(
            !ok("http://localhost:8420"),
            "another name is another origin"
        );
        assert!(!ok("http://evil.localhost:8420"));
        assert!(!ok("https://127.0.0.1:8420"), "another scheme");
        assert!(!ok("https://evil.example"));
        assert!(!ok("null"));
        let default_port = Origin::from_authority("http", "imprint.home");
        assert!(guard.origin_allowed("http://imprint.home:80", default_port.as_ref()));
    }

    #[test]
    fn a_trusted_proxy_makes_the_origin_https() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-proto", "https".parse().unwrap());
        let trusting = Guard::new(&[], &[], None, true);
        let own = trusting.own_origin(&headers, "imprint.home");
        assert!(trusting.origin_allowed("https://imprint.home", own.as_ref()));
        let direct = Guard::new(&[], &[], None, false);
        let own = direct.own_origin(&headers, "imprint.home");
        assert!(!direct.origin_allowed("https://imprint.home", own.as_ref()));
    }

    #[test]
    fn tokens_are_read_from_header_any_cookie_or_decoded_query() {
        let guard = Guard::new(&[], &[], Some("s3cret/+=".into()), false);
        let mut headers = HeaderMap::new();
        assert!(!guard.token_ok(&headers, None));
        assert!(guard.token_ok(&headers, Some("a=1&token=s3cret%2F%2B%3D")));
        assert!(
            guard.token_ok(&headers, Some("token=s3cret/+=")),
            "pasted as is"
        );
        assert!(!guard.token_ok(&headers, Some("token=wrong")));
        headers.insert(header::AUTHORIZATION, "Bearer s3cret/+=".parse().unwrap());
        assert!(guard.token_ok(&headers, None));
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            "imprint_token=other-apps; imprint_token=s3cret/+="
                .parse()
                .unwrap(),
        );
        assert!(guard.token_ok(&headers, None), "the second cookie counts");
        assert!(Guard::new(&[], &[], None, false).token_ok(&HeaderMap::new(), None));
    }

    #[test]
    fn the_token_is_taken_out_of_the_query() {
        assert_eq!(query_without_token("token=a&x=1"), "x=1");
        assert_eq!(query_without_token("x=1&token=a&y=2"), "x=1&y=2");
        assert_eq!(query_without_token("token=a"), "");
    }
}
