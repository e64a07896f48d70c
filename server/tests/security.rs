//! Issue 13's attacks, each tried over real HTTP and WebSocket against a
//! running server: pages on other origins, bad bodies, settings that used
//! to panic, a resume past the log, and voice past its caps.

mod support;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use support::*;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{self, Message};

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn ws_url(server: &TestServer) -> String {
    format!("{}/api/voice/ws", server.url.replace("http://", "ws://"))
}

/// Opens Echo's socket with the given `Origin` (none: no header); the
/// refusal's status when the upgrade is refused.
async fn open_voice(server: &TestServer, origin: Option<&str>) -> Result<Socket, u16> {
    let mut request = ws_url(server).into_client_request().unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
        Err(other) => panic!("the upgrade failed oddly: {other}"),
    }
}

async fn send(socket: &mut Socket, message: Value) {
    socket
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
}

/// The next text message, or `None` when the socket ends.
async fn next(socket: &mut Socket) -> Option<Value> {
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_secs(10), socket.next())
            .await
            .expect("no voice message within 10 s");
        match message {
            Some(Ok(Message::Text(text))) => return Some(serde_json::from_str(&text).unwrap()),
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
            Some(Ok(_)) => {}
        }
    }
}

async fn until(socket: &mut Socket, kind: &str) -> Value {
    loop {
        let message = next(socket)
            .await
            .unwrap_or_else(|| panic!("the socket ended before {kind}"));
        if message["type"] == kind {
            return message;
        }
    }
}

async fn hello(server: &TestServer, hello: Value) -> (Socket, Value) {
    let mut socket = open_voice(server, None).await.unwrap();
    send(&mut socket, hello).await;
    let snapshot = until(&mut socket, "snapshot").await;
    (socket, snapshot)
}

/// A server function called as the dashboard does (a JSON body).
fn server_fn(
    server: &TestServer,
    name: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::RequestBuilder {
    server
        .http
        .post(format!("{}/api/dashboard/{name}", server.url))
        .header("content-type", "application/json")
        .body(body)
}

fn port(server: &TestServer) -> u16 {
    server.running.addr.port()
}

// ----- exact origins -----

#[tokio::test]
async fn a_page_on_another_local_port_cannot_drive_imprint() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    for origin in [
        "http://localhost:3000",
        "http://127.0.0.1:3000",
        &format!("http://localhost:{}", port(&server)),
        &format!("https://127.0.0.1:{}", port(&server)),
        "null",
    ] {
        let rest = server
            .http
            .post(format!("{}/api/chat/sessions/{sid}/messages", server.url))
            .header("Origin", origin)
            .json(&json!({"message": "search my memories for passwords"}));
        let (status, body) = server.send(rest).await;
        assert_eq!(status, 403, "{origin}: {body}");
        assert!(body["error"].as_str().unwrap().contains("other sites"));
        let function = server_fn(&server, "list_sessions", "{}").header("Origin", origin);
        assert_eq!(
            server.send(function).await.0,
            403,
            "server function from {origin}"
        );
        let stop = server
            .http
            .post(format!("{}/api/chat/sessions/{sid}/stop", server.url))
            .header("Origin", origin);
        assert_eq!(server.send(stop).await.0, 403, "{origin}");
    }
    assert_eq!(
        server.session(&sid).await["messages"]
            .as_array()
            .unwrap()
            .len(),
        0,
        "no message was taken"
    );
}

#[tokio::test]
async fn a_star_localhost_page_cannot_drive_imprint() {
    let server = TestServer::start(vec![], &[]).await;
    let evil = format!("http://evil.localhost:{}", port(&server));
    let request = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .header("Origin", &evil);
    assert_eq!(server.send(request).await.0, 403);
    assert_eq!(open_voice(&server, Some(&evil)).await.err(), Some(403));
}

#[tokio::test]
async fn a_websocket_upgrade_from_another_port_is_refused() {
    let server = TestServer::start(vec![], &[]).await;
    assert_eq!(
        open_voice(&server, Some("http://localhost:3000"))
            .await
            .err(),
        Some(403)
    );
    assert_eq!(
        open_voice(&server, Some("http://127.0.0.1:1")).await.err(),
        Some(403)
    );
    let own = server.url.clone();
    let mut socket = open_voice(&server, Some(&own)).await.expect("our own page");
    send(&mut socket, json!({"type": "hello"})).await;
    until(&mut socket, "snapshot").await;
}

#[tokio::test]
async fn our_own_origin_and_requests_without_one_are_served() {
    let server = TestServer::start(vec![], &[]).await;
    let own = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .header("Origin", &server.url);
    assert_eq!(server.send(own).await.0, 201);
    let function = server_fn(&server, "list_sessions", "{}").header("Origin", &server.url);
    assert_eq!(server.send(function).await.0, 200);
    // curl and the CLI send no Origin: today's rules.
    let missing = server
        .http
        .post(format!("{}/api/chat/sessions", server.url));
    assert_eq!(server.send(missing).await.0, 201);
    assert_eq!(
        server
            .send(server_fn(&server, "list_sessions", "{}"))
            .await
            .0,
        200
    );
    assert!(open_voice(&server, None).await.is_ok());
    // The IPv6 loopback name, as a browser sends it.
    let v6 = server
        .http
        .get(format!("{}/api/chat/sessions", server.url))
        .header("Host", format!("[::1]:{}", port(&server)));
    assert_eq!(server.send(v6).await.0, 200);
}

#[tokio::test]
async fn allowed_origins_and_hosts_are_configurable() {
    let server = TestServer::start(
        vec![],
        &[
            "--allowed-origins",
            "http://127.0.0.1:8421",
            "--allowed-hosts",
            "imprint.home:8420,box.lan",
        ],
    )
    .await;
    let dev = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .header("Origin", "http://127.0.0.1:8421");
    assert_eq!(server.send(dev).await.0, 201, "the Trunk dev server");
    assert!(open_voice(&server, Some("http://127.0.0.1:8421"))
        .await
        .is_ok());
    for (host, status) in [
        ("imprint.home:8420", 200),
        ("imprint.home:9999", 403),
        ("box.lan:1234", 200),
        ("evil.example", 403),
    ] {
        let request = server
            .http
            .get(format!("{}/api/chat/sessions", server.url))
            .header("Host", host);
        assert_eq!(server.send(request).await.0, status, "{host}");
    }
    // Served as imprint.home:8420, that is its own origin.
    let named = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .header("Host", "imprint.home:8420")
        .header("Origin", "http://imprint.home:8420");
    assert_eq!(server.send(named).await.0, 201);
}

// ----- headers -----

fn assert_security_headers(response: &reqwest::Response, what: &str) {
    let headers = response.headers();
    let csp = headers
        .get("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no CSP"))
        .to_str()
        .unwrap();
    for part in [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
    ] {
        assert!(csp.contains(part), "{what}: {part} missing from {csp}");
    }
    assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
    assert_eq!(headers["x-frame-options"], "DENY", "{what}");
    assert_eq!(headers["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(headers["referrer-policy"], "no-referrer", "{what}");
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let server = TestServer::start(vec![], &[]).await;
    let get = |path: &str| server.http.get(format!("{}{path}", server.url));
    for (what, request) in [
        ("the page", get("/chat")),
        ("an API answer", get("/api/chat/sessions")),
        ("a 404", get("/api/no/such/route")),
        (
            "a refused host",
            get("/api/chat/sessions").header("Host", "evil.example"),
        ),
        (
            "a refused origin",
            server
                .http
                .post(format!("{}/api/chat/sessions", server.url))
                .header("Origin", "http://localhost:3000"),
        ),
        (
            "a server function",
            server_fn(&server, "list_sessions", "{}"),
        ),
    ] {
        let response = request.send().await.unwrap();
        assert_security_headers(&response, what);
    }
}

#[tokio::test]
async fn the_csp_allows_the_built_pages_inline_loader_by_its_hash() {
    use base64::Engine as _;
    use sha2::Digest as _;
    let dist = tempfile::tempdir().unwrap();
    let loader =
        "\nimport init from '/app-1.js';\nawait init({ module_or_path: '/app-1_bg.wasm' });\n";
    std::fs::write(
        dist.path().join("index.html"),
        format!("<!DOCTYPE html><html><head><script type=\"module\">{loader}</script></head><body></body></html>"),
    )
    .unwrap();
    let (running, _data) = serve_site(dist.path()).await;
    let response = reqwest::get(format!("http://{}/voice", running.addr))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_security_headers(&response, "the built page");
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(loader));
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains(&format!("'sha256-{hash}'")), "{csp}");
    running.shutdown.cancel();
}

/// Imprint serving `dist` as the built site, with a fresh data directory
/// (kept alive by the returned guard).
async fn serve_site(dist: &std::path::Path) -> (imprint::serve::Running, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    use clap::Parser;
    let config = imprint::config::Config::try_parse_from([
        "imprint",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data.path().to_str().unwrap(),
        "--dist-dir",
        dist.to_str().unwrap(),
    ])
    .unwrap();
    (imprint::serve::start(config).await.unwrap(), data)
}

#[tokio::test]
async fn the_wasm_goes_compressed_to_browsers_that_accept_it_with_the_same_headers() {
    use flate2::{read::GzDecoder, write::GzEncoder, Compression};
    use std::io::{Read as _, Write as _};
    let dist = tempfile::tempdir().unwrap();
    std::fs::write(
        dist.path().join("index.html"),
        "<!DOCTYPE html><html><head></head><body></body></html>",
    )
    .unwrap();
    // A wasm header and then bytes that compress well, as a build's do.
    let wasm: Vec<u8> = b"\0asm\x01\0\0\0"
        .iter()
        .copied()
        .chain((0..20_000u32).flat_map(|i| (i % 251).to_le_bytes()))
        .collect();
    let mut gzip = GzEncoder::new(Vec::new(), Compression::best());
    gzip.write_all(&wasm).unwrap();
    let gzipped = gzip.finish().unwrap();
    std::fs::write(dist.path().join("app-1_bg.wasm"), &wasm).unwrap();
    std::fs::write(dist.path().join("app-1_bg.wasm.gz"), &gzipped).unwrap();
    let (running, _data) = serve_site(dist.path()).await;
    let url = format!("http://{}/app-1_bg.wasm", running.addr);
    let client = reqwest::Client::new();

    let response = client
        .get(&url)
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_security_headers(&response, "the gzipped wasm");
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert_eq!(response.headers()["vary"], "accept-encoding");
    // The type of the file, not of its copy: browsers compile it streaming.
    assert_eq!(response.headers()["content-type"], "application/wasm");
    let body = response.bytes().await.unwrap();
    assert_eq!(body.len(), gzipped.len());
    let mut unzipped = Vec::new();
    GzDecoder::new(&body[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, wasm);

    // A client that does not say it accepts gzip gets the file as it is.
    let plain = client.get(&url).send().await.unwrap();
    assert_eq!(plain.status(), 200);
    assert_security_headers(&plain, "the plain wasm");
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.bytes().await.unwrap(), wasm);

    // With a brotli copy too, a browser that takes both gets brotli (the
    // smaller), as written: the server only picks, the build compresses.
    let brotli_copy = b"the build's brotli copy".to_vec();
    std::fs::write(dist.path().join("app-1_bg.wasm.br"), &brotli_copy).unwrap();
    let both = client
        .get(&url)
        .header("Accept-Encoding", "gzip, deflate, br, zstd")
        .send()
        .await
        .unwrap();
    assert_security_headers(&both, "the brotli wasm");
    assert_eq!(both.headers()["content-encoding"], "br");
    assert_eq!(both.bytes().await.unwrap(), brotli_copy);
    let gzip_only = client
        .get(&url)
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gzip_only.headers()["content-encoding"], "gzip");
    assert_eq!(gzip_only.bytes().await.unwrap(), gzipped);
    running.shutdown.cancel();
}

// ----- bad input -----

#[tokio::test]
async fn bad_bodies_get_400_413_or_404_never_500() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    let (status, body) = server
        .send(server_fn(&server, "send_message", vec![0xffu8]))
        .await;
    assert_eq!(status, 400, "an undecodable body: {body}");
    assert!(body["error"].is_string());
    let big = json!({"sid": sid, "message": "x".repeat(70 * 1024)}).to_string();
    let chunked = futures::stream::iter(
        big.into_bytes()
            .chunks(8 * 1024)
            .map(|c| Ok::<_, std::io::Error>(bytes::Bytes::copy_from_slice(c)))
            .collect::<Vec<_>>(),
    );
    let (status, body) = server
        .send(server_fn(
            &server,
            "send_message",
            reqwest::Body::wrap_stream(chunked),
        ))
        .await;
    assert_eq!(status, 413, "a chunked body over 64 KiB: {body}");
    let (status, body) = server
        .send(server_fn(&server, "no_such_function", "{}"))
        .await;
    assert_eq!((status, body["error"].is_string()), (404, true), "{body}");
    let path = format!("{}/api/chat/sessions/{sid}/messages", server.url);
    for bad in ["[1,2", "[1,2]", "{\"message\": 3}", "\u{0}"] {
        let request = server
            .http
            .post(&path)
            .header("content-type", "application/json")
            .body(bad);
        let (status, body) = server.send(request).await;
        assert_eq!(status, 400, "{bad:?}: {body}");
        assert!(!body["error"].as_str().unwrap().is_empty());
    }
    let raw = server
        .http
        .post(&path)
        .header("content-type", "application/json")
        .body(vec![0xffu8]);
    assert_eq!(server.send(raw).await.0, 400);
    assert_eq!(
        server.session(&sid).await["messages"]
            .as_array()
            .unwrap()
            .len(),
        0,
        "nothing was half-written"
    );
}

#[tokio::test]
async fn a_duration_past_its_maximum_is_refused_at_start() {
    let data = tempfile::tempdir().unwrap();
    for (variable, value) in [
        ("IMPRINT_RESEARCH_BUDGET_S", "1e19"),
        ("IMPRINT_ANSWER_TIMEOUT_S", "1e300"),
        ("IMPRINT_MODEL_IDLE_TIMEOUT_S", "inf"),
        ("IMPRINT_VOICE_TURN_TIMEOUT_S", "86400"),
        ("IMPRINT_VOICE_IDLE_S", "1e9"),
    ] {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_imprint"))
            .env_clear()
            .env("IMPRINT_ADDR", "127.0.0.1:0")
            .env("IMPRINT_DATA_DIR", data.path())
            .env(variable, value)
            .output()
            .await
            .unwrap();
        assert!(
            !output.status.success(),
            "{variable}={value} must not start"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(variable) && stderr.contains("at most"),
            "{variable}: {stderr}"
        );
    }
}

#[tokio::test]
async fn an_unknown_config_file_key_is_refused_by_name_at_start() {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("config.toml"), "research_budget = 30\n").unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_imprint"))
        .env_clear()
        .env("IMPRINT_ADDR", "127.0.0.1:0")
        .env("IMPRINT_DATA_DIR", data.path())
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("research_budget"), "{stderr}");
}

// ----- a resume past the end -----

#[tokio::test]
async fn a_resume_past_the_log_replays_nothing_then_follows_or_ends() {
    let mut stalling = Turn::text("Thinking.");
    stalling.stall = true;
    let server = TestServer::start(
        vec![
            scenario("quick", vec![Turn::text("Done quickly.")]),
            scenario("slow", vec![stalling]),
        ],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let resume = |reply_id: Option<&str>| {
        let query = reply_id
            .map(|id| format!("?reply_id={id}"))
            .unwrap_or_default();
        server
            .http
            .get(format!(
                "{}/api/chat/sessions/{sid}/reply{query}",
                server.url
            ))
            .header("Last-Event-ID", "9999")
    };
    // Finished: the stream ends at once, with nothing replayed.
    let reply_id = server.say(&sid, "quick one").await;
    server.watch_reply(&sid, &reply_id).await.until_done().await;
    let response = resume(Some(&reply_id)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = tokio::time::timeout(std::time::Duration::from_secs(10), response.text())
        .await
        .expect("a resume past the end of a finished reply must end")
        .unwrap();
    assert!(!text.contains("data:"), "nothing replayed: {text}");
    // Live: nothing replayed, then the live events to done.
    server.say(&sid, "slow one").await;
    server.watch(&sid, None).await.until("token").await;
    let response = resume(None).send().await.unwrap();
    let (status, _) = server
        .post(&format!("/api/chat/sessions/{sid}/stop"), json!({}))
        .await;
    assert_eq!(status, 200);
    let mut seen = Vec::new();
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    while let Some(chunk) = tokio::time::timeout(std::time::Duration::from_secs(10), stream.next())
        .await
        .expect("the resumed stream must follow the reply to its end")
    {
        buffer.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    for line in buffer.lines() {
        if let Some(data) = line.strip_prefix("data: ") {
            let event: Value = serde_json::from_str(data).unwrap();
            seen.push(event["type"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(
        seen,
        vec!["stopped", "done"],
        "no replay, then live to done"
    );
}

// ----- voice caps -----

#[tokio::test]
async fn a_voice_session_is_written_at_its_first_turn_not_at_hello() {
    let server = TestServer::start(vec![], &[]).await;
    let (mut socket, snapshot) = hello(&server, json!({"type": "hello"})).await;
    let id = snapshot["conversation_id"].as_str().unwrap().to_string();
    assert!(!id.is_empty(), "the id is reserved at hello");
    let (_, list) = server.get("/api/chat/sessions").await;
    assert_eq!(list["sessions"], json!([]), "hello alone stores nothing");
    assert_eq!(server.get(&format!("/api/chat/sessions/{id}")).await.0, 404);
    send(&mut socket, json!({"type": "typed", "text": "hello there"})).await;
    until(&mut socket, "done").await;
    let session = server.session(&id).await;
    assert_eq!(session["id"], id.as_str(), "written with the reserved id");
    assert_eq!(session["messages"][0]["content"], "hello there");
}

#[tokio::test]
async fn an_utterance_past_its_cap_is_refused_and_a_frame_past_64_kib_closes_the_socket() {
    let server = TestServer::start(vec![], &[]).await;
    let (mut socket, _) = hello(&server, json!({"type": "hello"})).await;
    let long = "word ".repeat(imprint::voice::MAX_UTTERANCE_CHARS / 5 + 1);
    send(
        &mut socket,
        json!({"type": "utterance", "text": long, "confidence": 0.9}),
    )
    .await;
    let error = until(&mut socket, "error").await;
    assert!(
        error["error"].as_str().unwrap().contains("longer than"),
        "{error}"
    );
    send(
        &mut socket,
        json!({"type": "speaking", "text": "x".repeat(70 * 1024)}),
    )
    .await;
    assert_eq!(next(&mut socket).await, None, "the socket is closed");
}

#[tokio::test]
async fn the_queue_is_capped_with_a_clear_queue_full() {
    let mut stalling = Turn::text("Thinking.");
    stalling.stall = true;
    let server = TestServer::start(vec![scenario("long story", vec![stalling])], &[]).await;
    let (mut socket, _) = hello(&server, json!({"type": "hello"})).await;
    send(
        &mut socket,
        json!({"type": "typed", "text": "a long story"}),
    )
    .await;
    until(&mut socket, "token").await;
    for i in 0..imprint::voice::MAX_QUEUE {
        send(
            &mut socket,
            json!({"type": "typed", "text": format!("then question {i}")}),
        )
        .await;
        assert_eq!(
            until(&mut socket, "queued").await["text"],
            format!("then question {i}")
        );
    }
    send(
        &mut socket,
        json!({"type": "typed", "text": "one too many"}),
    )
    .await;
    let ignored = until(&mut socket, "ignored").await;
    assert_eq!(
        (ignored["text"].as_str(), ignored["reason"].as_str()),
        (Some("one too many"), Some("queue_full"))
    );
}

#[tokio::test]
async fn open_voice_sockets_are_capped() {
    let server = TestServer::start(vec![], &[]).await;
    let mut open = Vec::new();
    for _ in 0..imprint::voice::MAX_SOCKETS {
        open.push(open_voice(&server, None).await.expect("under the cap"));
    }
    assert_eq!(open_voice(&server, None).await.err(), Some(503));
    let mut first = open.remove(0);
    first.close(None).await.unwrap();
    // The server frees the place before it drops the connection.
    while first.next().await.is_some() {}
    assert!(
        open_voice(&server, None).await.is_ok(),
        "a freed place is reused"
    );
}

#[tokio::test]
async fn sockets_that_never_say_hello_are_closed_and_free_their_places() {
    let server = TestServer::start(vec![], &[]).await;
    let mut silent = Vec::new();
    for _ in 0..imprint::voice::MAX_SOCKETS {
        silent.push(open_voice(&server, None).await.expect("under the cap"));
    }
    assert_eq!(open_voice(&server, None).await.err(), Some(503));
    // The server says why and closes each one at the hello deadline.
    let mut first = silent.remove(0);
    let closing = tokio::time::timeout(imprint::http::voice::HELLO_DEADLINE * 3, async {
        let mut said = None;
        while let Some(Ok(message)) = first.next().await {
            if let Message::Text(text) = message {
                said = Some(text.to_string());
            }
        }
        said
    })
    .await
    .expect("a silent socket is closed");
    assert!(closing.unwrap_or_default().contains("hello"));
    for mut socket in silent {
        while let Some(Ok(_)) = socket.next().await {}
    }
    let (mut socket, snapshot) = hello(&server, json!({"type": "hello"})).await;
    assert_eq!(snapshot["type"], "snapshot", "the places are free again");
    socket.close(None).await.unwrap();
}

// ----- tokens -----

#[tokio::test]
async fn a_token_in_the_address_becomes_a_cookie_and_leaves_the_address() {
    let server = TestServer::start(vec![], &["--token", "a/b+c=d", "--trust-proxy", "true"]).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client
        .get(format!("{}/chat?x=1&token=a%2Fb%2Bc%3Dd", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303, "percent-decoded and accepted");
    assert_eq!(response.headers()["location"], "/chat?x=1");
    let cookie = response.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("imprint_token=a/b+c=d;"), "{cookie}");
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    let behind_tls = client
        .get(format!("{}/chat?token=a%2Fb%2Bc%3Dd", server.url))
        .header("X-Forwarded-Proto", "https")
        .send()
        .await
        .unwrap();
    assert!(behind_tls.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("Secure"));
    // An API call with the token is answered, not redirected.
    let api = client
        .get(format!(
            "{}/api/chat/sessions?token=a%2Fb%2Bc%3Dd",
            server.url
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 200);
    // Every imprint_token cookie counts: another local app may set one.
    let two_cookies = client
        .get(format!("{}/api/chat/sessions", server.url))
        .header(
            "Cookie",
            "imprint_token=someone-elses; imprint_token=a/b+c=d",
        );
    assert_eq!(two_cookies.send().await.unwrap().status(), 200);
    let wrong = client
        .get(format!("{}/api/chat/sessions", server.url))
        .header("Cookie", "imprint_token=someone-elses");
    assert_eq!(wrong.send().await.unwrap().status(), 401);
}
