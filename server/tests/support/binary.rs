//! The real `imprint` binary as a child process, on a data directory that
//! outlives it: started, killed with SIGKILL or stopped with SIGTERM, and
//! started again on the same directory. For the tests of what survives.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::{read, Events};

/// One run of the binary.
pub struct Binary {
    child: Child,
    pub url: String,
    pub http: reqwest::Client,
}

impl Binary {
    /// Starts `imprint` on `data` with the stand-in model at `model_url`,
    /// and waits for the line saying where it listens.
    pub async fn start(data: &Path, model_url: &str, args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_imprint"))
            .args([
                "--addr",
                "127.0.0.1:0",
                "--data-dir",
                data.to_str().unwrap(),
                "--dist-dir",
                "/nonexistent",
                "--chat-provider",
                "openai",
                "--chat-base-url",
                model_url,
                "--chat-model",
                "standin",
            ])
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the imprint binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                if let Some(url) = line.strip_prefix("imprint listening on ") {
                    return url.trim().to_string();
                }
            }
            panic!("imprint exited before listening");
        })
        .await
        .expect("imprint listens within 30 s");
        // Keep reading stdout so the child never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self {
            child,
            url,
            http: reqwest::Client::new(),
        }
    }

    /// SIGKILL: the process ends at once, with no chance to save anything.
    pub async fn kill(mut self) {
        self.child.start_kill().unwrap();
        self.child.wait().await.unwrap();
    }

    /// SIGTERM, then waits for the process to exit; returns how long it
    /// took and whether it exited successfully.
    pub async fn terminate(mut self) -> (Duration, bool) {
        let pid = self.child.id().expect("running") as libc::pid_t;
        let sent = Instant::now();
        // SAFETY: sending a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("imprint exits after SIGTERM")
            .unwrap();
        (sent.elapsed(), status.success())
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

    pub async fn create_session(&self) -> String {
        let (status, body) = self.post("/api/chat/sessions", json!({})).await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_string()
    }

    /// Posts a message and expects the reply to start; returns its id.
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

    pub async fn answer(&self, sid: &str, question_id: &Value, text: &str) -> (u16, Value) {
        self.post(
            &format!("/api/chat/sessions/{sid}/answer"),
            json!({"id": question_id, "answer": text}),
        )
        .await
    }

    pub async fn session(&self, sid: &str) -> Value {
        let (status, body) = self.get(&format!("/api/chat/sessions/{sid}")).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The reply being written in the session, resuming after
    /// `last_event_id` when given.
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

    /// One reply's events by id (also just after it ended).
    pub async fn watch_reply(&self, sid: &str, reply_id: &str) -> Events {
        let url = format!(
            "{}/api/chat/sessions/{sid}/reply?reply_id={reply_id}",
            self.url
        );
        let response = self.http.get(url).send().await.unwrap();
        assert_eq!(response.status(), 200, "the reply stream should open");
        Events::new(response)
    }

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
