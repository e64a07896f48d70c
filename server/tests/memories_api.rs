//! `/api/memories` through real HTTP (SPEC §4): the paged list and search,
//! add, edit, delete and undo, export and import, their errors, and the
//! server functions the page calls, which share the implementation.

mod support;

use std::collections::HashSet;

use imprint::store::MemoryQuery;
use serde_json::{json, Value};
use support::*;

async fn add(server: &TestServer, body: Value) -> Value {
    let (status, created) = server.post("/api/memories", body).await;
    assert_eq!(status, 201, "{created}");
    created
}

fn patch(server: &TestServer, id: impl std::fmt::Display, body: Value) -> reqwest::RequestBuilder {
    server
        .http
        .patch(format!("{}/api/memories/{id}", server.url))
        .json(&body)
}

fn delete(server: &TestServer, id: impl std::fmt::Display) -> reqwest::RequestBuilder {
    server
        .http
        .delete(format!("{}/api/memories/{id}", server.url))
}

fn ids(page: &Value) -> Vec<i64> {
    page["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn a_memory_is_added_listed_edited_and_deleted() {
    let server = TestServer::start(vec![], &[]).await;
    let created = add(
        &server,
        json!({"content": " tea with Anna ", "project": "Home", "tags": ["friends"]}),
    )
    .await;
    assert_eq!(created["content"], "tea with Anna");
    assert_eq!(created["project"], "Home");
    assert_eq!(created["tags"], json!(["friends"]));
    let id = created["id"].as_i64().unwrap();

    let (status, page) = server.get("/api/memories").await;
    assert_eq!(status, 200);
    assert_eq!(
        page,
        json!({"memories": [created.clone()], "next_cursor": null})
    );

    let (status, edited) = server
        .send(patch(
            &server,
            id,
            json!({"content": "coffee with Anna", "project": null}),
        ))
        .await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(
        (&edited["content"], &edited["project"], &edited["tags"]),
        (
            &json!("coffee with Anna"),
            &Value::Null,
            &json!(["friends"])
        )
    );
    let (_, found) = server.get("/api/memories?q=coffee").await;
    assert_eq!(ids(&found), [id]);

    let (status, body) = server.send(delete(&server, id)).await;
    assert_eq!((status, body), (204, Value::Null));
    let (_, page) = server.get("/api/memories").await;
    assert_eq!(ids(&page), Vec::<i64>::new());
}

#[tokio::test]
async fn bad_input_is_refused_with_its_status() {
    let server = TestServer::start(vec![], &[]).await;
    let id = add(&server, json!({"content": "kept"})).await["id"]
        .as_i64()
        .unwrap();
    for body in [json!({"content": ""}), json!({"content": "   "}), json!({})] {
        let (status, error) = server.post("/api/memories", body.clone()).await;
        assert_eq!(status, 400, "{body}: {error}");
        assert!(error["error"].is_string());
    }
    let broken = server
        .http
        .post(format!("{}/api/memories", server.url))
        .header("content-type", "application/json")
        .body("{not json");
    assert_eq!(server.send(broken).await.0, 400);
    assert_eq!(
        server
            .send(patch(&server, id, json!({"content": " "})))
            .await
            .0,
        400
    );
    for unknown in ["999999", "abc"] {
        let (status, error) = server
            .send(patch(&server, unknown, json!({"content": "x"})))
            .await;
        assert_eq!(status, 404, "{unknown}: {error}");
        assert_eq!(server.send(delete(&server, unknown)).await.0, 404);
    }
    for query in ["cursor=nonsense", "limit=0", "limit=100000", "limit=abc"] {
        let (status, error) = server.get(&format!("/api/memories?{query}")).await;
        assert_eq!(status, 400, "{query}: {error}");
    }
    // Over 64 KiB.
    let big = json!({"content": "x".repeat(70 * 1024)});
    let (status, error) = server.post("/api/memories", big).await;
    assert_eq!(status, 413, "{error}");
    let (_, page) = server.get("/api/memories").await;
    assert_eq!(ids(&page), [id], "nothing else was written");
}

#[tokio::test]
async fn a_deleted_memory_comes_back_with_its_id() {
    let server = TestServer::start(vec![], &[]).await;
    let first = add(&server, json!({"content": "first"})).await;
    let second = add(
        &server,
        json!({"content": "second", "project": "P", "tags": ["t"]}),
    )
    .await;
    let id = second["id"].as_i64().unwrap();
    server.send(delete(&server, id)).await;
    // What the page's undo sends: the row as it was.
    let (status, back) = server.post("/api/memories", second.clone()).await;
    assert_eq!(status, 201, "{back}");
    assert_eq!(back, second);
    let (_, page) = server.get("/api/memories").await;
    assert_eq!(ids(&page), [id, first["id"].as_i64().unwrap()]);
    // A second undo finds the id taken.
    assert_eq!(server.post("/api/memories", second).await.0, 400);
}

#[tokio::test]
async fn ten_thousand_memories_page_to_the_end_with_none_lost_or_repeated() {
    let server = TestServer::start(vec![], &[]).await;
    // In through the import route, each body under 64 KiB.
    let mut contents = HashSet::new();
    for chunk in 0..20 {
        let mut jsonl = String::new();
        for i in 0..500 {
            let n = chunk * 500 + i;
            // Many share a second, so the order falls back on the id.
            let at = format!("2026-01-01T{:02}:{:02}:00Z", n / 600 % 24, n / 10 % 60);
            let line = json!({"content": format!("memory number {n}"), "created_at": at});
            jsonl.push_str(&format!("{line}\n"));
            contents.insert(format!("memory number {n}"));
        }
        let (status, body) = server.send(server.import(jsonl)).await;
        assert_eq!((status, body), (200, json!({"imported": 500})));
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/memories?limit=100&cursor={}", urlencode(c)),
            None => "/api/memories?limit=100".to_string(),
        };
        let (status, page) = server.get(&path).await;
        assert_eq!(status, 200, "{page}");
        pages += 1;
        if pages == 3 {
            // A memory added meanwhile is newer than the cursor: it shows on
            // a new first page and disturbs nothing after the cursor.
            add(&server, json!({"content": "added while paging"})).await;
        }
        for memory in page["memories"].as_array().unwrap() {
            seen.push((
                memory["created_at"].as_str().unwrap().to_string(),
                memory["id"].as_i64().unwrap(),
                memory["content"].as_str().unwrap().to_string(),
            ));
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 100);
    assert_eq!(seen.len(), 10_000);
    let listed: HashSet<String> = seen.iter().map(|(_, _, c)| c.clone()).collect();
    assert_eq!(listed, contents, "every row once");
    assert!(
        seen.windows(2)
            .all(|w| (&w[0].0, w[0].1) > (&w[1].0, w[1].1)),
        "newest first, strictly"
    );
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn a_search_ranks_as_the_search_tool_and_pages_by_rank() {
    let server = TestServer::start(vec![], &[]).await;
    for i in 0..25 {
        let content = match i % 5 {
            0 => format!("invoice invoice invoice {i}"),
            1 => format!("the invoice for the billing project {i}"),
            _ => format!("lunch with the team {i}"),
        };
        let project = if i % 2 == 0 { "Billing" } else { "Home" };
        add(&server, json!({"content": content, "project": project})).await;
    }
    let tool: Vec<i64> = server
        .running
        .engine
        .store
        .search_memories(MemoryQuery {
            query: "invoice billing".into(),
            limit: Some(50),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    // Ten name an invoice, and the project's name is searched too.
    assert_eq!(tool.len(), 18);
    let (_, first) = server
        .get("/api/memories?q=invoice%20billing&limit=4")
        .await;
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let (_, rest) = server
        .get(&format!(
            "/api/memories?q=invoice%20billing&limit=50&cursor={}",
            urlencode(&cursor)
        ))
        .await;
    assert_eq!(rest["next_cursor"], Value::Null);
    assert_eq!([ids(&first), ids(&rest)].concat(), tool);

    let (_, in_project) = server
        .get("/api/memories?q=invoice&project=billing&limit=50")
        .await;
    let listed = in_project["memories"].as_array().unwrap();
    assert!(!listed.is_empty());
    assert!(listed.iter().all(|m| m["project"] == "Billing"));
    let (_, nowhere) = server.get("/api/memories?project=Nowhere").await;
    assert_eq!(nowhere, json!({"memories": [], "next_cursor": null}));
}

#[tokio::test]
async fn an_export_imports_into_a_fresh_data_directory_as_the_same_rows() {
    let server = TestServer::start(vec![], &[]).await;
    add(
        &server,
        json!({"content": "tea with Anna", "project": "Home", "tags": ["a", "b"]}),
    )
    .await;
    add(
        &server,
        json!({"content": "ship \"v2\"\nthen rest", "created_at": "2025-05-01"}),
    )
    .await;
    let response = server.export().send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/jsonl"
    );
    let exported = response.text().await.unwrap();
    assert_eq!(exported.lines().count(), 2);

    let fresh = TestServer::start(vec![], &[]).await;
    let (status, body) = fresh.send(fresh.import(exported.clone())).await;
    assert_eq!((status, body), (200, json!({"imported": 2})));
    let rows = |page: Value| -> Vec<Value> {
        page["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| json!([m["content"], m["project"], m["tags"], m["created_at"]]))
            .collect()
    };
    assert_eq!(
        rows(fresh.get("/api/memories").await.1),
        rows(server.get("/api/memories").await.1)
    );
    let again = fresh.export().send().await.unwrap().text().await.unwrap();
    assert_eq!(again, exported);
}

#[tokio::test]
async fn a_bad_line_is_named_and_nothing_is_imported() {
    let server = TestServer::start(vec![], &[]).await;
    for (jsonl, line) in [
        ("{\"content\": \"a\"}\n\n{\"content\": 3}\n", "line 3"),
        (
            "{\"content\": \"a\"}\n{\"content\": \"b\", \"created_at\": \"soon\"}\n",
            "line 2",
        ),
        ("{\"content\": \"a\", \"colour\": \"red\"}\n", "line 1"),
        ("not json\n", "line 1"),
    ] {
        let (status, body) = server.send(server.import(jsonl.to_string())).await;
        assert_eq!(status, 400, "{jsonl}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(line), "{error} should name {line}");
        assert!(error.contains("nothing was imported"), "{error}");
    }
    let (_, page) = server.get("/api/memories").await;
    assert_eq!(ids(&page), Vec::<i64>::new());
    // Over 64 KiB is no longer too large for an import (its limit is 64 MiB).
    let big = "{\"content\": \"x\"}\n".repeat(5000);
    let (status, body) = server.send(server.import(big)).await;
    assert_eq!((status, body["imported"].clone()), (200, json!(5000)));
}

#[tokio::test]
async fn another_origin_cannot_change_memories() {
    let server = TestServer::start(vec![], &[]).await;
    let id = add(&server, json!({"content": "mine"})).await["id"]
        .as_i64()
        .unwrap();
    let evil = "http://localhost:3000";
    let requests = [
        server
            .http
            .post(format!("{}/api/memories", server.url))
            .json(&json!({"content": "x"})),
        patch(&server, id, json!({"content": "x"})),
        delete(&server, id),
        server.import("{\"content\": \"x\"}\n"),
        server.export(),
    ];
    for request in requests {
        assert_eq!(server.send(request.header("Origin", evil)).await.0, 403);
    }
    let (_, page) = server.get("/api/memories").await;
    assert_eq!(page["memories"][0]["content"], "mine");
}

/// The page's calls: the same implementation behind `/api/dashboard/...`.
#[tokio::test]
async fn the_pages_server_functions_share_the_implementation() {
    let server = TestServer::start(vec![], &[]).await;
    let call = |name: &str, body: Value| {
        server
            .http
            .post(format!("{}/api/dashboard/{name}", server.url))
            .json(&body)
    };
    let (status, created) = server
        .send(call(
            "create_memory",
            json!({"input": {"content": "plan the trip", "project": "Travel"}}),
        ))
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_i64().unwrap();
    let (_, page) = server
        .send(call("list_memories", json!({"query": {"q": "trip"}})))
        .await;
    assert_eq!(ids(&page), [id]);
    let (status, moved) = server
        .send(call(
            "move_project",
            json!({"change": {"from": "travel", "to": "Trips"}}),
        ))
        .await;
    assert_eq!((status, moved), (200, json!({"moved": 1})));
    let (_, projects) = server.send(call("list_projects", json!({}))).await;
    assert_eq!(projects["projects"][0]["name"], "Trips");
    let (status, _) = server
        .send(call(
            "move_project",
            json!({"change": {"from": "nowhere", "to": "x"}}),
        ))
        .await;
    assert_eq!(status, 404);
    let (status, edited) = server
        .send(call(
            "update_memory",
            json!({"id": id, "patch": {"tags": ["soon"]}}),
        ))
        .await;
    assert_eq!((status, &edited["tags"]), (200, &json!(["soon"])));
    let (status, _) = server
        .send(call(
            "update_memory",
            json!({"id": id, "patch": {"content": ""}}),
        ))
        .await;
    assert_eq!(status, 400);
    let (status, deleted) = server.send(call("delete_memory", json!({"id": id}))).await;
    assert_eq!(
        (status, &deleted["content"]),
        (200, &json!("plan the trip"))
    );
    let (status, _) = server.send(call("delete_memory", json!({"id": id}))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn without_the_embedding_model_search_is_by_words_and_says_so() {
    // The test servers run without the model unless a test asks for it.
    let server = TestServer::start(vec![], &[]).await;
    add(
        &server,
        json!({"content": "Painter agreed £2,350 for the hall"}),
    )
    .await;
    let (status, meaning) = server.get("/api/memories/meaning").await;
    assert_eq!(status, 200, "{meaning}");
    assert_eq!(meaning["state"], "off");
    assert_eq!(meaning["model"], Value::Null);
    // A code on the wire; the page says it in words.
    assert_eq!(meaning["reason"], json!({"code": "turned_off"}));
    // Words still find it.
    let (status, page) = server.get("/api/memories?q=painter").await;
    assert_eq!(status, 200);
    assert_eq!(page["memories"].as_array().map(Vec::len), Some(1), "{page}");
}
