//! Shared test support: a real server on a free port with a temporary
//! database, talking to the scripted stand-in model over real HTTP.

#![allow(dead_code)]

pub mod api;
pub mod binary;
pub mod echo;
pub mod standin;

use std::time::Duration;

pub use api::Api;
use clap::{CommandFactory, FromArgMatches};
use futures::StreamExt;
use imprint::config::Config;
use imprint::serve::Running;
use serde_json::Value;
pub use standin::{Scenario, StandIn, Turn};

pub struct TestServer {
    pub api: Api,
    pub running: Running,
    pub standin: StandIn,
    _data: tempfile::TempDir,
}

impl std::ops::Deref for TestServer {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

impl TestServer {
    /// A server whose model is a stand-in playing `scenarios`.
    pub async fn start(scenarios: Vec<Scenario>, args: &[&str]) -> Self {
        let standin = StandIn::start(scenarios).await;
        let base = standin.base_url();
        Self::start_with(
            standin,
            &[
                "--chat-provider",
                "openai",
                "--chat-base-url",
                &base,
                "--chat-model",
                "standin",
            ],
            args,
        )
        .await
    }

    /// A server whose stand-in model is reached with the given tool format
    /// (`hermes`, `qwen-xml`, `none`) instead of native tool calls.
    pub async fn start_with_format(scenarios: Vec<Scenario>, format: &str) -> Self {
        let standin = StandIn::start(scenarios).await;
        let base = standin.base_url();
        let model_args = [
            "--chat-provider",
            "vllm",
            "--chat-base-url",
            &base,
            "--chat-tool-format",
            format,
        ];
        Self::start_with(standin, &model_args, &[]).await
    }

    /// A server on planned turns (the built-in model's path): the `local`
    /// provider, reached at a stand-in playing `scenarios`.
    pub async fn start_planned(scenarios: Vec<Scenario>) -> Self {
        Self::start_planned_with(scenarios, &[]).await
    }

    /// [`Self::start_planned`] with more of `imprint`'s arguments.
    async fn start_planned_with(scenarios: Vec<Scenario>, args: &[&str]) -> Self {
        let standin = StandIn::start(scenarios).await;
        let base = standin.base_url();
        let model = [
            "--chat-provider",
            "local",
            "--chat-base-url",
            &base,
            "--chat-model",
            "standin",
        ];
        Self::start_with(standin, &model, args).await
    }

    /// A server on planned turns with finding by meaning on (the real
    /// embedding weights, `scripts/embedding-model.sh ensure`), once the
    /// labelled examples and the memories have their vectors.
    pub async fn start_planned_by_meaning(scenarios: Vec<Scenario>) -> Self {
        let dir = imprint::meaning::cached_model_dir().expect("a cache directory");
        if let Some(missing) = imprint::meaning::minilm::missing_file(&dir) {
            panic!(
                "no {missing} in {}: run scripts/embedding-model.sh ensure",
                dir.display()
            );
        }
        let dir = dir.to_str().unwrap().to_string();
        let server =
            Self::start_planned_with(scenarios, &["--embedding-model-dir", dir.as_str()]).await;
        server.meaning_ready().await;
        server
    }

    /// Waits until finding by meaning is ready with every memory's vector
    /// (on the filler's own status changes).
    pub async fn meaning_ready(&self) {
        let mut status = self.running.engine.meaning.watch();
        // A ceiling, not a wait: loading the model and embedding every
        // labelled example takes seconds alone, minutes on a machine busy
        // with builds.
        let ready = tokio::time::timeout(
            std::time::Duration::from_secs(300),
            status.wait_for(|s| {
                s.state == imprint::meaning::MeaningState::Off
                    || (s.state == imprint::meaning::MeaningState::Ready && s.embedded == s.total)
            }),
        )
        .await
        .expect("finding by meaning was ready in time")
        .expect("the status is kept")
        .clone();
        assert_eq!(
            ready.state,
            imprint::meaning::MeaningState::Ready,
            "{ready:?}"
        );
    }

    pub async fn start_with(standin: StandIn, model_args: &[&str], args: &[&str]) -> Self {
        Self::start_in(tempfile::tempdir().unwrap(), standin, model_args, args).await
    }

    /// Like [`TestServer::start_with`], on the data directory `data` (which
    /// may hold a `config.toml`, or what an earlier server left).
    pub async fn start_in(
        data: tempfile::TempDir,
        standin: StandIn,
        model_args: &[&str],
        args: &[&str],
    ) -> Self {
        Self::start_hearing(data, standin, model_args, args, None).await
    }

    /// A server whose stand-in model plays `scenarios` and whose voice
    /// socket hears audio with `recogniser`.
    pub async fn start_with_recogniser(
        scenarios: Vec<Scenario>,
        recogniser: imprint::voice::Recogniser,
    ) -> Self {
        let standin = StandIn::start(scenarios).await;
        let base = standin.base_url();
        let model_args = [
            "--chat-provider",
            "openai",
            "--chat-base-url",
            &base,
            "--chat-model",
            "standin",
        ];
        let data = tempfile::tempdir().unwrap();
        Self::start_hearing(data, standin, &model_args, &[], Some(recogniser)).await
    }

    async fn start_hearing(
        data: tempfile::TempDir,
        standin: StandIn,
        model_args: &[&str],
        args: &[&str],
        recogniser: Option<imprint::voice::Recogniser>,
    ) -> Self {
        let data_dir = data.path().to_str().unwrap().to_string();
        let mut argv = vec![
            "imprint",
            "--addr",
            "127.0.0.1:0",
            "--data-dir",
            &data_dir,
            "--dist-dir",
            "/nonexistent",
        ];
        argv.extend_from_slice(model_args);
        argv.extend_from_slice(args);
        // Finding by meaning only where a test asks for it: the others
        // test the words' search, and need not load a model each.
        if !args.contains(&"--embedding-model-dir") {
            argv.extend_from_slice(&["--embedding-model-dir", "off"]);
        }
        // As `imprint` reads it: the sources of the model settings are
        // recorded, and a config file in the data directory is read.
        let matches = Config::command().try_get_matches_from(argv).unwrap();
        let config = Config::from_arg_matches(&matches)
            .unwrap()
            .with_file(&matches)
            .unwrap();
        config.validate().unwrap();
        let running = imprint::serve::start_with_speech(config, recogniser)
            .await
            .unwrap();
        Self {
            api: Api::new(format!("http://{}", running.addr)),
            running,
            standin,
            _data: data,
        }
    }

    /// The server's data directory.
    pub fn data_path(&self) -> &std::path::Path {
        self._data.path()
    }

    /// Shuts the server down (as SIGTERM does) and hands back its stand-in
    /// and data directory, for a server started again on them.
    pub async fn stop(self) -> (StandIn, tempfile::TempDir) {
        self.running.shutdown.cancel();
        self.running.task.await.unwrap().unwrap();
        (self.standin, self._data)
    }

    /// Stores a memory, as `imprint import` or a `store` call would.
    pub async fn remember(&self, content: &str, project: Option<&str>) {
        self.running
            .engine
            .store
            .add_memory(imprint::store::NewMemory {
                content: content.into(),
                project: project.map(str::to_string),
                ..imprint::store::NewMemory::default()
            })
            .await
            .unwrap();
    }

    /// Stores each of `contents` as a memory of no project, in order.
    pub async fn remember_all(&self, contents: &[&str]) {
        for content in contents {
            self.remember(content, None).await;
        }
    }

    /// The stored memories a search for `query` finds.
    pub async fn memories_about(&self, query: &str) -> Vec<imprint::store::MemoryHit> {
        self.running
            .engine
            .store
            .search_memories(imprint::store::MemoryQuery {
                query: query.into(),
                ..imprint::store::MemoryQuery::default()
            })
            .await
            .unwrap()
    }

    /// Holds the server's "now" at `at`: the dates its replies work out
    /// no longer move with the wall clock (nor across midnight).
    pub fn set_now(&self, at: chrono::DateTime<chrono::Local>) {
        self.running.engine.clock().set(at);
    }
}

pub async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"))
    };
    (status, body)
}

/// A server-sent event stream, read with the server's own reader
/// ([`imprint::sse`]).
pub struct Events {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    messages: imprint::sse::SseMessages,
    ready: std::collections::VecDeque<Sse>,
}

/// One SSE message: its id (if any) and its data as JSON.
#[derive(Debug, Clone)]
pub struct Sse {
    pub id: Option<u64>,
    pub data: Value,
}

impl Events {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            stream: response.bytes_stream().boxed(),
            messages: imprint::sse::SseMessages::default(),
            ready: std::collections::VecDeque::new(),
        }
    }

    /// The next message, or None when the stream ends. Fails the test if
    /// nothing comes for 10 s (a hang, not a slow machine).
    pub async fn next(&mut self) -> Option<Sse> {
        self.next_within(Duration::from_secs(10)).await
    }

    /// Like [`Events::next`], for a real model on a shared machine: fails
    /// only after 5 minutes without an event.
    pub async fn next_patient(&mut self) -> Option<Sse> {
        self.next_within(Duration::from_secs(300)).await
    }

    async fn next_within(&mut self, limit: Duration) -> Option<Sse> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            let chunk = tokio::time::timeout(limit, self.stream.next())
                .await
                .unwrap_or_else(|_| panic!("no event within {} s", limit.as_secs()));
            let (messages, end) = match chunk {
                Some(Ok(bytes)) => (self.messages.push(&bytes), false),
                _ => (self.messages.finish().into_iter().collect(), true),
            };
            // A message with empty data is a keep-alive.
            let messages = messages.into_iter().filter(|m| !m.data.is_empty());
            self.ready.extend(messages.map(Self::read));
            if end {
                return self.ready.pop_front();
            }
        }
    }

    fn read(message: imprint::sse::SseMessage) -> Sse {
        Sse {
            id: message.id.and_then(|id| id.trim().parse().ok()),
            data: serde_json::from_str(&message.data).unwrap(),
        }
    }

    /// Reads until an event of `kind`, returning everything read (the
    /// event last).
    pub async fn until(&mut self, kind: &str) -> Vec<Value> {
        let mut seen = Vec::new();
        while let Some(message) = self.next().await {
            let done = message.data["type"] == kind;
            seen.push(message.data);
            if done {
                return seen;
            }
        }
        panic!("the stream ended before a {kind} event; saw {seen:?}");
    }

    /// Reads to the end of the stream, which must end after `done`.
    pub async fn until_done(&mut self) -> Vec<Value> {
        let events = self.until("done").await;
        assert!(
            self.next().await.is_none(),
            "the stream must end after done"
        );
        events
    }

    /// Reads messages with their ids until `done`.
    pub async fn all_with_ids(&mut self) -> Vec<Sse> {
        let mut seen = Vec::new();
        while let Some(message) = self.next().await {
            seen.push(message);
        }
        seen
    }
}

/// The event types, in order.
pub fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// The text streamed as tokens.
pub fn streamed_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "token")
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

/// The text of the reply's `assistant_message`, which must be there.
pub fn assistant_text(events: &[Value]) -> &str {
    events
        .iter()
        .find(|e| e["type"] == "assistant_message")
        .and_then(|e| e["text"].as_str())
        .unwrap_or_else(|| panic!("an answer: {events:?}"))
}

/// The "now" of date tests, Monday 2030-06-03 at 10:40 local time: a
/// server held at it ([`TestServer::set_now`]) works out "tomorrow" as
/// 2030-06-04 whatever the wall clock says, midnight included.
/// The options of a `question` event, as the card shows them.
pub fn question_options(question: &serde_json::Value) -> Vec<String> {
    question["options"]
        .as_array()
        .expect("a question's options")
        .iter()
        .map(|o| o.as_str().expect("an option's text").to_string())
        .collect()
}

pub fn now() -> chrono::DateTime<chrono::Local> {
    use chrono::TimeZone;
    chrono::Local
        .with_ymd_and_hms(2030, 6, 3, 10, 40, 0)
        .earliest()
        .expect("a local time")
}

pub fn scenario(trigger: &str, turns: Vec<Turn>) -> Scenario {
    Scenario {
        trigger: trigger.to_string(),
        turns,
        once: false,
    }
}
