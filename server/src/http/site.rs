//! The built dashboard: files from the dist folder, and `index.html` for
//! every other path so deep links (`/chat/<id>`, `/voice`) load the app.

use std::path::PathBuf;

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

pub fn service(dist: PathBuf) -> Router {
    let index = dist.join("index.html");
    if !index.exists() {
        tracing::warn!(dist = %dist.display(), "the dashboard is not built; serving a notice instead");
        return Router::new().fallback(get(|| async { Html(NOT_BUILT) }));
    }
    Router::new().fallback_service(ServeDir::new(dist).fallback(ServeFile::new(index)))
}

const NOT_BUILT: &str =
    "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Imprint</title></head>\
<body><h1>Imprint</h1><p>The API is running, but the dashboard has not been built. \
Run the README's first command, or set IMPRINT_DIST_DIR to the built site.</p></body></html>";
