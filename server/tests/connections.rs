//! The Model page's API (`/api/connections`), against stand-in servers on
//! loopback answering as Ollama, llama.cpp and an OpenAI-compatible API
//! do: servers found and listed, a switch that applies from the next reply
//! with no restart (and not to a reply already running), keys that never
//! come back, dead servers reported within a second, and bad choices
//! refused with a clear 400.

mod support;

use std::time::{Duration, Instant};

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use support::standin::which_project;
use support::*;

/// A model server answering only its model lists, as Ollama (`/api/tags`
/// and `/v1/models`) or llama.cpp (`/v1/models`, owned by `llamacpp`) do.
async fn lister(tags: Option<Value>, models: Value) -> u16 {
    let mut app = Router::new().route("/v1/models", get(move || async move { Json(models) }));
    if let Some(tags) = tags {
        app = app.route("/api/tags", get(move || async move { Json(tags) }));
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

async fn ollama() -> u16 {
    lister(
        Some(json!({"models": [{"name": "qwen2.5:7b"}, {"name": "llama3.2:3b"}]})),
        json!({"object": "list", "data": [{"id": "qwen2.5:7b", "owned_by": "library"}]}),
    )
    .await
}

async fn llama_cpp() -> u16 {
    lister(
        None,
        json!({"object": "list", "data": [{"id": "qwen2.5-7b-instruct", "object": "model", "owned_by": "llamacpp"}]}),
    )
    .await
}

/// A port where a listener takes connections into its queue but never
/// accepts or answers (a hung server). Kept open while the guard lives.
async fn silent() -> (u16, tokio::net::TcpListener) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    (listener.local_addr().unwrap().port(), listener)
}

/// A loopback port with nothing listening on it.
async fn closed() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

fn port_of(standin: &StandIn) -> u16 {
    standin.addr.port()
}

/// A server whose model no flag or variable fixes: the built-in default,
/// or what `config_toml` says.
async fn unfixed(standin: StandIn, config_toml: Option<&str>, args: &[&str]) -> TestServer {
    let data = tempfile::tempdir().unwrap();
    if let Some(text) = config_toml {
        std::fs::write(data.path().join("config.toml"), text).unwrap();
    }
    TestServer::start_in(data, standin, &[], args).await
}

fn found<'a>(view: &'a Value, base_url: &str) -> Option<&'a Value> {
    view["found"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["base_url"] == base_url)
}

#[tokio::test]
async fn servers_on_loopback_are_found_and_listed_with_their_models() {
    let standin = StandIn::start(vec![]).await;
    let (ollama, llama, openai) = (ollama().await, llama_cpp().await, port_of(&standin));
    let (hung, _keep) = silent().await;
    let ports = format!("{ollama},{llama},{openai},{hung},{}", closed().await);
    let server = unfixed(standin, None, &["--probe-ports", &ports]).await;

    let started = Instant::now();
    let (status, view) = server.get("/api/connections").await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{view}");
    // Probed in parallel, each within 300 ms: a hung port costs no more.
    assert!(took < Duration::from_secs(1), "took {took:?}");

    let ollama = found(&view, &format!("http://127.0.0.1:{ollama}/v1")).expect("Ollama");
    assert_eq!(ollama["provider"], "ollama");
    assert_eq!(ollama["server"], "Ollama");
    assert_eq!(ollama["models"], json!(["qwen2.5:7b", "llama3.2:3b"]));
    let llama = found(&view, &format!("http://127.0.0.1:{llama}/v1")).expect("llama.cpp");
    assert_eq!(
        (&llama["provider"], &llama["server"], &llama["models"]),
        (
            &json!("local"),
            &json!("llama.cpp"),
            &json!(["qwen2.5-7b-instruct"])
        )
    );
    let openai = found(&view, &format!("http://127.0.0.1:{openai}/v1")).expect("the stand-in");
    assert_eq!(
        (&openai["provider"], &openai["models"]),
        (&json!("vllm"), &json!(["standin"]))
    );
    assert!(found(&view, &format!("http://127.0.0.1:{hung}/v1")).is_none());

    // What is in use: the built-in default, from no flag or variable.
    let current = &view["current"];
    assert_eq!(current["provider"], "local");
    assert_eq!(current["source"], "default");
    assert_eq!(current["sources"]["model"], "default");
    assert_eq!(current["turns"], "planned");
    assert!(current["key"].is_null());
    let presets = view["presets"].as_array().unwrap();
    assert_eq!(presets.len(), 6);
    assert!(presets
        .iter()
        .any(|p| p["provider"] == "anthropic" && p["remote"] == true));
}

#[tokio::test]
async fn a_switch_takes_effect_on_the_next_reply_and_a_running_reply_finishes_on_its_model() {
    let first = StandIn::start(vec![which_project(
        "the notes",
        "Here are the Billing notes.",
    )])
    .await;
    let second = StandIn::start(vec![]).await;
    let config_toml = format!(
        "chat_provider = \"openai\"\nchat_base_url = \"{}\"\nchat_model = \"standin\"\n",
        first.base_url()
    );
    let server = unfixed(first.clone(), Some(&config_toml), &[]).await;
    let (_, view) = server.get("/api/connections").await;
    assert_eq!(view["current"]["source"], "config_file");

    // A reply on the first model waits for an answer…
    let waiting = server.create_session().await;
    server.say(&waiting, "find the notes").await;
    let mut events = server.watch(&waiting, None).await;
    let question = events.until("question").await.pop().unwrap();

    // …while the Model page switches to the second.
    let (status, saved) = server
        .put(
            "/api/connections/current",
            json!({"provider": "vllm", "base_url": second.base_url(), "model": "bigger", "tool_format": "native"}),
        )
        .await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["current"]["model"], "bigger");
    assert_eq!(saved["current"]["source"], "page");
    assert_eq!(saved["current"]["sources"]["base_url"], "page");

    // The next reply is written by the second model, with no restart.
    let sid = server.create_session().await;
    let events_next = server.converse(&sid, "hello there").await;
    assert_eq!(assistant_text(&events_next), "You said: hello there");
    let asked = second.requests_for("hello there");
    assert_eq!(asked.len(), 1, "the second model wrote the next reply");
    assert_eq!(asked[0]["model"], "bigger");
    assert!(first.requests_for("hello there").is_empty());
    let (_, status_now) = server.get("/api/chat/status").await;
    assert_eq!(
        (
            status_now["provider"].as_str(),
            status_now["model"].as_str()
        ),
        (Some("vllm"), Some("bigger"))
    );

    // The reply that was running finishes on the first.
    server.answer_ok(&waiting, &question["id"], "Billing").await;
    let rest = events.until_done().await;
    assert_eq!(assistant_text(&rest), "Here are the Billing notes.");
    assert_eq!(first.requests_for("find the notes").len(), 2);
    assert!(second.requests_for("find the notes").is_empty());

    // Kept across a restart, beside an untouched config.toml.
    let (standin, data) = server.stop().await;
    let toml_after = std::fs::read_to_string(data.path().join("config.toml")).unwrap();
    assert_eq!(toml_after, config_toml);
    let saved_file = std::fs::read_to_string(data.path().join("connection.toml")).unwrap();
    assert!(
        saved_file.contains("chat_model = \"bigger\""),
        "{saved_file}"
    );
    let again = TestServer::start_in(data, standin, &[], &[]).await;
    let (_, view) = again.get("/api/connections").await;
    assert_eq!(view["current"]["model"], "bigger");
    assert_eq!(view["current"]["base_url"], second.base_url());
    assert_eq!(view["current"]["source"], "page");
}

#[tokio::test]
async fn the_key_is_kept_on_the_server_sent_only_to_its_server_and_never_returned() {
    const KEY: &str = "sk-imprint-test-SECRET-0123456789WXYZ";
    let keyed = StandIn::start(vec![]).await;
    let other = StandIn::start(vec![]).await;
    let server = unfixed(keyed.clone(), None, &[]).await;
    let choice = json!({"provider": "openai", "base_url": keyed.base_url(), "model": "standin", "api_key": KEY});
    let mut bodies = Vec::new();

    let (status, saved) = server.put("/api/connections/current", choice.clone()).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["current"]["key"]["masked"], "••••WXYZ");
    assert_eq!(saved["current"]["key"]["source"], "page");
    bodies.push(saved);
    // Stored in the data directory, readable by its owner only.
    let keys_file = server.data_path().join("keys.json");
    assert!(std::fs::read_to_string(&keys_file).unwrap().contains(KEY));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&keys_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let choice_file = std::fs::read_to_string(server.data_path().join("connection.toml")).unwrap();
    assert!(!choice_file.contains(KEY));

    // The reply sends it to its server.
    let sid = server.create_session().await;
    bodies.extend(server.converse(&sid, "keyed hello").await);
    assert_eq!(
        keyed.authorizations().last().cloned().flatten().as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    bodies.push(server.session(&sid).await);
    bodies.push(server.get("/api/connections").await.1);
    bodies.push(server.get("/api/chat/status").await.1);
    let (_, test) = server.post("/api/connections/test", choice.clone()).await;
    bodies.push(test);
    let (_, models) = server.post("/api/connections/models", choice.clone()).await;
    assert_eq!(models["models"], json!(["standin"]), "{models}");
    bodies.push(models);
    let function = server
        .http
        .post(format!("{}/api/dashboard/connections", server.url))
        .header("content-type", "application/json")
        .body("{}");
    let (status, through_function) = server.send(function).await;
    assert_eq!(status, 200, "{through_function}");
    bodies.push(through_function);
    for body in &bodies {
        assert!(!body.to_string().contains(KEY), "the key came back: {body}");
    }

    // Another server chosen: the key stays with its own.
    let (status, _) = server
        .put(
            "/api/connections/current",
            json!({"provider": "openai", "base_url": other.base_url(), "model": "standin"}),
        )
        .await;
    assert_eq!(status, 200);
    let sid = server.create_session().await;
    server.converse(&sid, "other hello").await;
    assert_eq!(other.authorizations(), vec![None]);

    // Removed, it is sent no more.
    let query = format!(
        "/api/connections/keys?provider=openai&base_url={}",
        keyed.base_url()
    );
    assert_eq!(server.delete(&query).await.0, 204);
    assert_eq!(server.delete(&query).await.0, 404);
    assert!(!std::fs::read_to_string(&keys_file).unwrap().contains(KEY));
    let (_, view) = server.get("/api/connections").await;
    assert_eq!(view["keys"], json!([]));
    let back = json!({"provider": "openai", "base_url": keyed.base_url(), "model": "standin"});
    assert_eq!(server.put("/api/connections/current", back).await.0, 200);
    let sid = server.create_session().await;
    server.converse(&sid, "unkeyed hello").await;
    assert_eq!(keyed.authorizations().last().cloned().flatten(), None);

    // `api_key: ""` removes a saved key too.
    assert_eq!(
        server
            .put("/api/connections/current", choice.clone())
            .await
            .0,
        200
    );
    let mut cleared = choice.clone();
    cleared["api_key"] = json!("");
    let (status, saved) = server.put("/api/connections/current", cleared).await;
    assert_eq!(status, 200);
    assert!(saved["current"]["key"].is_null(), "{saved}");
}

#[tokio::test]
async fn a_dead_server_is_reported_within_a_second() {
    let server = TestServer::start(vec![], &[]).await;
    let (hung, _keep) = silent().await;
    for port in [closed().await, hung] {
        let choice = json!({"provider": "vllm", "base_url": format!("http://127.0.0.1:{port}/v1"), "model": "m"});
        for path in ["/api/connections/test", "/api/connections/models"] {
            let started = Instant::now();
            let (status, result) = server.post(path, choice.clone()).await;
            let took = started.elapsed();
            assert_eq!(status, 200, "{path}: {result}");
            assert_eq!(result["ok"], false, "{path}: {result}");
            let error = result["error"].as_str().unwrap_or_default();
            assert!(error.contains(&port.to_string()), "{path}: {error}");
            assert!(
                took < Duration::from_secs(1),
                "{path} on port {port} took {took:?}"
            );
        }
    }
}

#[tokio::test]
async fn the_test_reports_the_reply_its_first_token_and_how_the_model_calls_tools() {
    let standin = StandIn::start(vec![]).await;
    let server = unfixed(standin.clone(), None, &[]).await;
    let choice = json!({"provider": "vllm", "base_url": standin.base_url(), "model": "standin"});
    let script = |turn: Turn| {
        standin.replace(vec![scenario("Imprint connection test", vec![turn])]);
    };

    let mut native = Turn::call("connection_check", json!({"status": "ready"}));
    native.chunks = vec!["Hello!".into()];
    script(native);
    let (status, result) = server.post("/api/connections/test", choice.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            &result["ok"],
            &result["tool_calls"],
            &result["tool_format"],
            &result["reply"]
        ),
        (
            &json!(true),
            &json!(true),
            &json!("native"),
            &json!("Hello!")
        ),
        "{result}"
    );
    assert!(result["first_token_ms"].as_u64().is_some(), "{result}");
    assert!(result.get("error").is_none());
    let sent = standin.requests_for("Imprint connection test");
    assert_eq!(sent[0]["tools"][0]["function"]["name"], "connection_check");
    assert_eq!(sent[0]["model"], "standin");

    script(Turn::text(
        "Hi. <tool_call>{\"name\": \"connection_check\", \"arguments\": {\"status\": \"ready\"}}</tool_call>",
    ));
    let (_, result) = server.post("/api/connections/test", choice.clone()).await;
    assert_eq!(
        (
            &result["tool_calls"],
            &result["tool_format"],
            &result["reply"]
        ),
        (&json!(false), &json!("hermes"), &json!("Hi.")),
        "{result}"
    );

    script(Turn::text(
        "<tool_call><function=connection_check><parameter=status>ready</parameter></function></tool_call>",
    ));
    let (_, result) = server.post("/api/connections/test", choice.clone()).await;
    assert_eq!(result["tool_format"], "qwen-xml", "{result}");

    // A server that refuses: the test says what it said.
    script(Turn {
        status: Some(404),
        ..Turn::default()
    });
    let (_, result) = server.post("/api/connections/test", choice).await;
    assert_eq!(result["ok"], false);
    assert!(
        result["error"].as_str().unwrap().contains("404"),
        "{result}"
    );
}

#[tokio::test]
async fn bad_choices_get_a_clear_400_and_nothing_changes() {
    let standin = StandIn::start(vec![]).await;
    let server = unfixed(standin.clone(), None, &[]).await;
    let base = standin.base_url();
    let cases = [
        (
            json!({"provider": "openrouter", "model": "m"}),
            "unknown provider",
        ),
        (json!({"provider": "vllm", "base_url": base}), "model"),
        (
            json!({"provider": "vllm", "base_url": base, "model": "  "}),
            "model",
        ),
        (
            json!({"provider": "vllm", "model": "m", "base_url": "localhost:8000"}),
            "base URL",
        ),
        (
            json!({"provider": "vllm", "model": "m", "base_url": "http://u:p@127.0.0.1/v1"}),
            "password",
        ),
        (
            json!({"provider": "vllm", "model": "m", "tool_format": "xml"}),
            "tool format",
        ),
        (
            json!({"provider": "vllm", "model": "m", "api_key": "two words"}),
            "key",
        ),
        (json!({"provider": "vllm", "model": "m\nx"}), "model"),
        (
            json!({"provider": "vllm", "model": "m", "apikey": "x"}),
            "apikey",
        ),
        (json!(["vllm"]), "object"),
    ];
    for (body, says) in cases {
        for (method, path) in [
            ("PUT", "/api/connections/current"),
            ("POST", "/api/connections/test"),
        ] {
            let request = server
                .http
                .request(method.parse().unwrap(), format!("{}{path}", server.url))
                .json(&body);
            let (status, error) = server.send(request).await;
            // The test takes no model only when there is none to test.
            assert_eq!(status, 400, "{method} {path} {body}: {error}");
            let message = error["error"].as_str().unwrap();
            assert!(message.contains(says), "{body}: {message}");
        }
    }
    let huge = json!({"provider": "vllm", "model": "x".repeat(70 * 1024)});
    assert_eq!(server.put("/api/connections/current", huge).await.0, 413);
    assert_eq!(
        server.delete("/api/connections/keys?provider=vllm").await.0,
        400
    );
    assert_eq!(
        server
            .delete("/api/connections/keys?provider=nope&base_url=http://127.0.0.1:1/v1")
            .await
            .0,
        400
    );
    let (_, view) = server.get("/api/connections").await;
    assert_eq!(view["current"]["source"], "default", "nothing was saved");
    assert!(!server.data_path().join("connection.toml").exists());
}

#[tokio::test]
async fn settings_fixed_by_flags_are_kept_and_the_page_is_told_so() {
    let server = TestServer::start(vec![], &[]).await;
    let base = server.standin.base_url();
    let (_, view) = server.get("/api/connections").await;
    let current = &view["current"];
    assert_eq!(current["source"], "flag");
    for setting in ["provider", "base_url", "model"] {
        assert_eq!(current["sources"][setting], "flag", "{setting}");
    }
    assert_eq!(current["sources"]["tool_format"], "default");

    let other_provider = json!({"provider": "vllm", "base_url": base, "model": "standin"});
    let (status, error) = server.put("/api/connections/current", other_provider).await;
    assert_eq!(status, 400);
    assert!(
        error["error"].as_str().unwrap().contains("--chat-provider"),
        "{error}"
    );
    let other_model = json!({"provider": "openai", "base_url": base, "model": "bigger"});
    let (status, error) = server.put("/api/connections/current", other_model).await;
    assert_eq!(status, 400);
    assert!(
        error["error"].as_str().unwrap().contains("--chat-model"),
        "{error}"
    );

    // What no flag fixes, the page may change.
    let format = json!({"provider": "openai", "base_url": base, "model": "standin", "tool_format": "hermes"});
    let (status, saved) = server.put("/api/connections/current", format).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["current"]["tool_format"], "hermes");
    assert_eq!(saved["current"]["sources"]["tool_format"], "page");
    assert_eq!(saved["current"]["sources"]["model"], "flag");
}

#[tokio::test]
async fn planned_turns_follow_the_model_in_use() {
    let large = StandIn::start(vec![]).await;
    let small = StandIn::start(vec![]).await;
    let server = unfixed(large.clone(), None, &[]).await;

    let choose = |provider: &str, standin: &StandIn| json!({"provider": provider, "base_url": standin.base_url(), "model": "standin"});
    let (_, saved) = server
        .put("/api/connections/current", choose("vllm", &large))
        .await;
    assert_eq!(saved["current"]["turns"], "free");
    assert_eq!(saved["current"]["sources"]["turns"], "default");
    let sid = server.create_session().await;
    server.converse(&sid, "Say hello in French.").await;
    // A larger model drives its own tool loop: it is offered the tools.
    let asked = large.requests_for("Say hello in French.");
    assert!(asked.iter().all(|r| r["tools"].is_array()), "{asked:?}");

    let (_, saved) = server
        .put("/api/connections/current", choose("local", &small))
        .await;
    assert_eq!(saved["current"]["turns"], "planned");
    assert_eq!(saved["current"]["tool_format"], "hermes");
    let sid = server.create_session().await;
    server.converse(&sid, "Say hello in French.").await;
    // The built-in model's plan: a general question is answered with no
    // tools at all.
    let asked = small.requests_for("Say hello in French.");
    assert!(!asked.is_empty());
    assert!(asked.iter().all(|r| r.get("tools").is_none()), "{asked:?}");
}

#[tokio::test]
async fn the_model_page_is_behind_the_same_guard_as_every_route() {
    let server = TestServer::start(vec![], &["--token", "t0ken"]).await;
    let choice = json!({"provider": "vllm", "model": "m"});
    let no_token = server.put("/api/connections/current", choice.clone()).await;
    assert_eq!(no_token.0, 401, "{}", no_token.1);
    let foreign = server
        .http
        .put(format!("{}/api/connections/current", server.url))
        .header("Origin", "http://evil.example")
        .bearer_auth("t0ken")
        .json(&choice);
    assert_eq!(server.send(foreign).await.0, 403);
    let listing = server
        .http
        .get(format!("{}/api/connections", server.url))
        .bearer_auth("t0ken");
    assert_eq!(server.send(listing).await.0, 200);
}
