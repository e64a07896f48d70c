//! Imprint's HTTP API as the tests speak it, for a server in this
//! process and for the binary as a child process alike.

use serde_json::{json, Value};

use super::{read, Events};

/// A client of one running Imprint.
pub struct Api {
    pub url: String,
    pub http: reqwest::Client,
}

impl Api {
    pub fn new(url: String) -> Self {
        Self {
            url,
            http: reqwest::Client::new(),
        }
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .http
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .unwrap();
        read(response).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        read(response).await
    }

    pub async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .http
            .put(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        read(response).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        let response = self
            .http
            .delete(format!("{}{path}", self.url))
            .send()
            .await
            .unwrap();
        read(response).await
    }

    /// `POST /api/memories/import` with a JSON Lines body.
    pub fn import(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}/api/memories/import", self.url))
            .header("content-type", "application/jsonl")
            .body(body)
    }

    /// `GET /api/memories/export`.
    pub fn export(&self) -> reqwest::RequestBuilder {
        self.http.get(format!("{}/api/memories/export", self.url))
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> (u16, Value) {
        read(request.send().await.unwrap()).await
    }

    /// Posts an answer to a waiting question: the status and the body.
    pub async fn answer(&self, sid: &str, id: impl serde::Serialize, text: &str) -> (u16, Value) {
        self.post(
            &format!("/api/chat/sessions/{sid}/answer"),
            json!({"id": id, "answer": text}),
        )
        .await
    }

    /// Answers a waiting question, which must be taken (200).
    pub async fn answer_ok(&self, sid: &str, id: impl serde::Serialize, text: &str) {
        let (status, body) = self.answer(sid, id, text).await;
        assert_eq!(status, 200, "{body}");
    }

    pub async fn create_session(&self) -> String {
        let (status, body) = self.post("/api/chat/sessions", json!({})).await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_string()
    }

    /// Posts a message and expects the reply to start.
    pub async fn say(&self, sid: &str, message: &str) -> String {
        let (status, body) = self
            .post(
                &format!("/api/chat/sessions/{sid}/messages"),
                json!({"message": message}),
            )
            .await;
        assert_eq!(status, 202, "{body}");
        body["reply_id"].as_str().unwrap().to_string()
    }

    /// Opens the reply's event stream (optionally resuming).
    pub async fn watch(&self, sid: &str, last_event_id: Option<u64>) -> Events {
        let mut request = self
            .http
            .get(format!("{}/api/chat/sessions/{sid}/reply", self.url));
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200, "the reply stream should open");
        Events::new(response)
    }

    /// Opens the stream of one reply by id (also just after it ended).
    pub async fn watch_reply(&self, sid: &str, reply_id: &str) -> Events {
        let url = format!(
            "{}/api/chat/sessions/{sid}/reply?reply_id={reply_id}",
            self.url
        );
        let response = self.http.get(url).send().await.unwrap();
        assert_eq!(response.status(), 200, "the reply stream should open");
        Events::new(response)
    }

    /// Says something and reads the whole reply.
    pub async fn converse(&self, sid: &str, message: &str) -> Vec<Value> {
        let reply_id = self.say(sid, message).await;
        self.watch_reply(sid, &reply_id).await.until_done().await
    }

    pub async fn session(&self, sid: &str) -> Value {
        let (status, body) = self.get(&format!("/api/chat/sessions/{sid}")).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The dashboard-wide event stream.
    pub async fn dashboard_events(&self) -> Events {
        let response = self
            .http
            .get(format!("{}/api/events", self.url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        Events::new(response)
    }
}
