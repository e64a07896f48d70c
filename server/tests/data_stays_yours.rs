//! The smaller points of keeping a person's data theirs: cross-site
//! requests refused before any handler, a size limit on every memory
//! field (and errors that quote little of what was sent), an import saved
//! with a byte order mark, Imprint refused as its own model, and a pause
//! after a wrong token.

mod support;

use serde_json::json;
use support::*;

#[tokio::test]
async fn every_memory_field_is_bounded_and_errors_quote_little() {
    let server = TestServer::start(vec![], &[]).await;
    let big = "m".repeat(imprint::store::MAX_CONTENT_BYTES + 1);
    // Import: one memory over the limit imports nothing, and the 400
    // does not say it back.
    let body = format!("{{\"content\": \"fine\"}}\n{{\"content\": \"{big}\"}}\n");
    let (status, error) = server.send(server.import(body)).await;
    assert_eq!(status, 400, "{error}");
    let message = error["error"].as_str().unwrap();
    assert!(
        message.contains("line 2") && message.len() < 300,
        "{message}"
    );
    let (_, listed) = server.get("/api/memories").await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 0);
    // A value of the wrong type, quoted by the JSON reader: cut.
    let body = format!(
        "{{\"content\": \"a\", \"tags\": \"{}\"}}\n",
        "t".repeat(1_000_000)
    );
    let (status, error) = server.send(server.import(body)).await;
    assert_eq!(status, 400);
    assert!(error.to_string().len() < 300, "{}", error.to_string().len());
    // REST: a project name and tags past their limits.
    let long_project = "p".repeat(imprint::store::MAX_PROJECT_CHARS + 1);
    let (status, error) = server
        .post(
            "/api/memories",
            json!({"content": "x", "project": long_project}),
        )
        .await;
    assert_eq!(status, 400, "{error}");
    assert!(error.to_string().len() < 300);
    let many: Vec<String> = (0..=imprint::store::MAX_TAGS)
        .map(|i| format!("t{i}"))
        .collect();
    let (status, _) = server
        .post("/api/memories", json!({"content": "x", "tags": many}))
        .await;
    assert_eq!(status, 400);
    let (status, created) = server.post("/api/memories", json!({"content": "x"})).await;
    assert_eq!(status, 201);
    let id = created["id"].as_i64().unwrap();
    let long_tag = "g".repeat(imprint::store::MAX_TAG_CHARS + 1);
    let response = server
        .http
        .patch(format!("{}/api/memories/{id}", server.url))
        .json(&json!({"tags": [long_tag]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn an_import_saved_with_a_byte_order_mark_is_read() {
    let server = TestServer::start(vec![], &[]).await;
    let body = "\u{feff}{\"content\": \"tea with Anna\"}\r\n{\"content\": \"the door code\"}\r\n";
    let (status, imported) = server.send(server.import(body)).await;
    assert_eq!(status, 200, "{imported}");
    assert_eq!(imported["imported"], 2);
}
