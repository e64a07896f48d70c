//! The built dashboard: files from the dist folder (compressed when the
//! build wrote a `.br` or `.gz` copy and the browser accepts it), and
//! `index.html` for every other path so deep links (`/chat/<id>`, `/voice`)
//! load the app; and the Content-Security-Policy it runs under, which
//! allows Trunk's inline loader by its hash, read from the `index.html`
//! being served.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::http::{header, HeaderValue};
use axum::response::Html;
use axum::routing::get;
use axum::Router;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeader;

pub fn service(dist: PathBuf) -> Router {
    let index = dist.join("index.html");
    if !index.exists() {
        tracing::warn!(dist = %dist.display(), "the dashboard is not built; serving a notice instead");
        return Router::new().fallback(get(|| async { Html(NOT_BUILT) }));
    }
    // The release build writes `.br` and `.gz` copies of the wasm, JS and
    // CSS (scripts/compress-site.mjs): the wasm is a quarter of its size.
    let files = ServeDir::new(dist)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(ServeFile::new(index));
    // Which copy is sent depends on Accept-Encoding: caches must know.
    let files = SetResponseHeader::if_not_present(
        files,
        header::VARY,
        HeaderValue::from_static("accept-encoding"),
    );
    Router::new().fallback_service(files)
}

const NOT_BUILT: &str =
    "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Imprint</title></head>\
<body><h1>Imprint</h1><p>The API is running, but the dashboard has not been built. \
Run the README's first command, or set IMPRINT_DIST_DIR to the built site.</p></body></html>";

/// The policy's fixed part: only Imprint's own files, its own API and
/// WebSocket, never framed, no plugins, no `<base>`, no inline script but
/// the loader's hashes (appended to `script-src`).
const POLICY: &str = "default-src 'self'; connect-src 'self'; img-src 'self'; \
style-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'; \
form-action 'self'; script-src 'self' 'wasm-unsafe-eval'";

/// The Content-Security-Policy header, recomputed when `index.html`
/// changes (a rebuild while Imprint runs gives the loader a new hash).
#[derive(Clone)]
pub struct ContentSecurityPolicy {
    index: PathBuf,
    cached: Arc<Mutex<Option<(SystemTime, HeaderValue)>>>,
}

impl ContentSecurityPolicy {
    pub fn new(dist: &Path) -> Self {
        Self {
            index: dist.join("index.html"),
            cached: Arc::new(Mutex::new(None)),
        }
    }

    pub fn header(&self) -> Option<HeaderValue> {
        let modified = std::fs::metadata(&self.index)
            .and_then(|m| m.modified())
            .ok();
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some(modified), Some((at, value))) = (modified, cached.as_ref()) {
            if *at == modified {
                return Some(value.clone());
            }
        }
        let html = std::fs::read_to_string(&self.index).unwrap_or_default();
        let value = HeaderValue::from_str(&policy_for(&html)).ok()?;
        if let Some(modified) = modified {
            *cached = Some((modified, value.clone()));
        }
        Some(value)
    }
}

/// The policy for a page: [`POLICY`] plus the hash of each inline script.
pub fn policy_for(html: &str) -> String {
    let mut policy = POLICY.to_string();
    for script in inline_scripts(html) {
        let digest = Sha256::digest(script.as_bytes());
        let hash = base64::engine::general_purpose::STANDARD.encode(digest);
        policy.push_str(&format!(" 'sha256-{hash}'"));
    }
    policy
}

/// The text of every `<script>` without a `src`, exactly as written.
fn inline_scripts(html: &str) -> Vec<&str> {
    let mut scripts = Vec::new();
    let mut rest = html;
    while let Some(start) = find_ascii_ci(rest, "<script") {
        let after = &rest[start..];
        let Some(tag_end) = after.find('>') else {
            break;
        };
        let tag = &after[..tag_end];
        let body = &after[tag_end + 1..];
        let Some(close) = find_ascii_ci(body, "</script") else {
            break;
        };
        if !has_src(tag) {
            scripts.push(&body[..close]);
        }
        rest = &body[close..];
    }
    scripts
}

fn has_src(tag: &str) -> bool {
    tag.split(|c: char| c.is_ascii_whitespace())
        .any(|attribute| attribute.to_ascii_lowercase().starts_with("src="))
}

fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_are_allowed_by_their_hash_only() {
        let html =
            "<html><head><script type=\"module\">import init from '/app.js';\ninit();</script>\
                    <SCRIPT src=\"/x.js\"></SCRIPT></head></html>";
        assert_eq!(
            inline_scripts(html),
            vec!["import init from '/app.js';\ninit();"]
        );
        let policy = policy_for(html);
        // echo -n "import init from '/app.js';\ninit();" | sha256 | base64
        let digest = Sha256::digest(b"import init from '/app.js';\ninit();");
        let hash = base64::engine::general_purpose::STANDARD.encode(digest);
        assert!(
            policy.ends_with(&format!("'wasm-unsafe-eval' 'sha256-{hash}'")),
            "{policy}"
        );
        assert!(!policy.contains("unsafe-inline"));
        for part in [
            "frame-ancestors 'none'",
            "object-src 'none'",
            "base-uri 'none'",
            "connect-src 'self'",
        ] {
            assert!(policy.contains(part), "{part}");
        }
    }
}
