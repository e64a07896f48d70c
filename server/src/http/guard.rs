//! The guard in front of every route: the `Host` must be one of the
//! server's own names (stops DNS rebinding), state-changing requests and
//! WebSocket upgrades from a foreign `Origin` are refused, a token is
//! required when one is configured, and bodies over 64 KiB are refused.
//! It also turns any error response that is not JSON into the JSON shape.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::json_error;

pub const MAX_BODY_BYTES: usize = 64 * 1024;
const TOKEN_COOKIE: &str = "imprint_token";

pub struct Guard {
    hosts: Vec<String>,
    token: Option<String>,
}

impl Guard {
    pub fn new(extra_hosts: &[String], token: Option<String>) -> Arc<Self> {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]", "::1"]
            .iter()
            .map(|h| h.to_string())
            .collect();
        hosts.extend(
            extra_hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty()),
        );
        Arc::new(Self {
            hosts,
            token: token.filter(|t| !t.is_empty()),
        })
    }

    fn host_allowed(&self, authority: &str) -> bool {
        let host = strip_port(authority).to_ascii_lowercase();
        self.hosts.contains(&host) || host.ends_with(".localhost")
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        // "null" (sandboxed frames, file pages) is foreign too.
        match origin.split_once("://") {
            Some((_, authority)) => self.host_allowed(authority.trim_end_matches('/')),
            None => false,
        }
    }

    fn token_ok(&self, headers: &HeaderMap, query: Option<&str>) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().strip_prefix(TOKEN_COOKIE)?.strip_prefix('='))
            .next();
        let query = query_token(query);
        let matches = [bearer, cookie, query.as_deref()]
            .into_iter()
            .flatten()
            .any(|given| constant_time_eq(given.as_bytes(), token.as_bytes()));
        matches
    }
}

fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        // [::1]:8420
        return authority
            .find(']')
            .map_or(authority, |end| &authority[..=end]);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                host
            } else {
                authority
            }
        })
}

fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == "token")
        .map(|(_, value)| value.to_string())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn is_state_changing(request: &Request) -> bool {
    !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) || request.headers().contains_key(header::UPGRADE)
}

pub async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    match host {
        Some(host) if guard.host_allowed(host) => {}
        _ => {
            return json_error(
                StatusCode::FORBIDDEN,
                "this server does not answer to that host name",
            )
        }
    }
    if is_state_changing(&request) {
        if let Some(origin) = request.headers().get(header::ORIGIN) {
            let allowed = origin.to_str().is_ok_and(|o| guard.origin_allowed(o));
            if !allowed {
                return json_error(
                    StatusCode::FORBIDDEN,
                    "requests from other sites are refused",
                );
            }
        }
    }
    if !guard.token_ok(request.headers(), request.uri().query()) {
        return json_error(
            StatusCode::UNAUTHORIZED,
            "a token is required: open the dashboard as /?token=YOUR_TOKEN or send Authorization: Bearer",
        );
    }
    // A token given in the query becomes a cookie, so the dashboard's own
    // requests carry it from then on.
    let set_cookie = guard.token.is_some() && query_token(request.uri().query()).is_some();
    let too_large = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|len| len > MAX_BODY_BYTES);
    if too_large {
        return json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is larger than 64 KiB",
        );
    }
    let mut response = next.run(request).await;
    if set_cookie {
        if let Some(token) = &guard.token {
            if let Ok(value) =
                format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict").parse()
            {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
        }
    }
    response
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

/// Limits request bodies (also those sent without a Content-Length).
pub fn body_limit() -> tower_http::limit::RequestBodyLimitLayer {
    tower_http::limit::RequestBodyLimitLayer::new(MAX_BODY_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_without_ports() {
        let guard = Guard::new(&["imprint.home".into()], None);
        for ok in [
            "127.0.0.1:8420",
            "localhost",
            "[::1]:80",
            "imprint.home:8420",
            "app.localhost",
        ] {
            assert!(guard.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example:8420",
            "127.0.0.1.evil.example",
            "imprint.home.evil",
        ] {
            assert!(!guard.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn origins_must_be_our_own() {
        let guard = Guard::new(&[], None);
        assert!(guard.origin_allowed("http://127.0.0.1:8420"));
        assert!(guard.origin_allowed("http://localhost:3000"));
        assert!(!guard.origin_allowed("https://evil.example"));
        assert!(!guard.origin_allowed("null"));
    }

    #[test]
    fn tokens_are_read_from_header_cookie_or_query() {
        let guard = Guard::new(&[], Some("s3cret".into()));
        let mut headers = HeaderMap::new();
        assert!(!guard.token_ok(&headers, None));
        assert!(guard.token_ok(&headers, Some("a=1&token=s3cret")));
        assert!(!guard.token_ok(&headers, Some("token=wrong")));
        headers.insert(header::AUTHORIZATION, "Bearer s3cret".parse().unwrap());
        assert!(guard.token_ok(&headers, None));
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, "x=1; imprint_token=s3cret".parse().unwrap());
        assert!(guard.token_ok(&headers, None));
        assert!(Guard::new(&[], None).token_ok(&HeaderMap::new(), None));
    }
}
