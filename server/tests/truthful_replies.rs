//! Issue 14 through real HTTP: a stand-in model replays what the built-in
//! model did ("Remind me to call Anna." → 130 s, false "Saved" lines,
//! cards for questions never asked, markup as the answer), and Imprint's
//! guards keep the page short, true and done.

mod support;

use chrono::{Duration, Local};
use imprint::models::shown_text::shows_markup;
use imprint::store::{MemoryQuery, NewMemory};
use serde_json::{json, Value};
use support::*;

/// The final message of the reply in the issue.
const MANGLED: &str =
    r#"{"name": "ask {"name": "ask_user", "arguments": {"name": "ask_user", "arguments":"#;

/// A time the user never gave, as a small model writes it.
fn invented_time() -> String {
    (Local::now() + Duration::days(1))
        .format("%Y-%m-%dT09:00")
        .to_string()
}

async fn answer(server: &TestServer, sid: &str, id: &Value, text: &str) {
    let (status, body) = server
        .post(
            &format!("/api/chat/sessions/{sid}/answer"),
            json!({"id": id, "answer": text}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

async fn memory_count(server: &TestServer) -> usize {
    server
        .running
        .engine
        .store
        .search_memories(MemoryQuery::default())
        .await
        .unwrap()
        .len()
}

fn results(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect()
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The model of the issue: a guessed time, then (once the reminder is
/// set) refused saves and questions that are not asked, and markup as its
/// last word.
fn anna() -> Scenario {
    let store = || ("store", json!({"content": "Call Anna"}));
    let ask = || {
        (
            "ask_user",
            json!({"question": "Do you want to call Anna?", "options": ["Yes", "No"]}),
        )
    };
    let mut turns = vec![Turn::call(
        "remind",
        json!({"text": "Call Anna", "at": invented_time()}),
    )];
    for _ in 0..6 {
        turns.push(Turn::calls(&[store()]));
        turns.push(Turn::calls(&[ask()]));
    }
    turns.push(Turn::text(MANGLED));
    scenario("call Anna", turns)
}

#[tokio::test]
async fn remind_me_to_call_anna_is_short_true_and_done() {
    let server = TestServer::start(vec![anna()], &[]).await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to call Anna.").await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    let question = seen.last().unwrap().clone();
    assert_eq!(question["origin"], "imprint");
    // The model's guessed time is in its call, never in a result.
    assert!(results(&seen).is_empty(), "{seen:?}");
    answer(&server, &sid, &question["id"], "Tomorrow, 09:00").await;
    let rest = events.until_done().await;

    let reminders = server.get("/api/reminders").await.1["reminders"].clone();
    let reminders = reminders.as_array().unwrap();
    assert_eq!(reminders.len(), 1, "{reminders:?}");
    let set = results(&rest);
    assert_eq!(set[0]["name"], "remind");
    assert_eq!(set[0]["status"], "done");
    assert_eq!(set[0]["row_id"], reminders[0]["id"]);
    assert!(
        set[0]["args"]["at"].as_str().unwrap().contains("T09:00"),
        "{}",
        set[0]
    );
    // Nothing after the reminder reads as done, and no question is posed.
    for later in &set[1..] {
        assert_ne!(later["status"], "done", "{later}");
        assert!(later["row_id"].is_null(), "{later}");
    }
    assert!(!types(&rest).contains(&"question".to_string()), "{rest:?}");
    assert_eq!(memory_count(&server).await, 0);

    // The reply ends when the job is done: the first turn of only
    // refused calls goes to the reserved answer, not to the iteration cap.
    let requests = server.standin.requests_for("call Anna");
    assert!(requests.len() <= 4, "{} model turns", requests.len());
    let last = requests.last().unwrap();
    assert!(
        offered(last).is_empty(),
        "the reserved answer offers no tools"
    );

    // The answer shows no markup; with nothing readable left, Imprint
    // writes it from what was done.
    let answer = rest
        .iter()
        .find(|e| e["type"] == "assistant_message")
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!shows_markup(&answer), "{answer}");
    assert!(!shows_markup(&streamed_text(&rest)), "{rest:?}");
    assert!(answer.starts_with("Done: reminder set for "), "{answer}");
    assert!(answer.contains("09:00 to call Anna."), "{answer}");

    // History: each tool row carries its status; the refused ask_user
    // rows have no question id (the page draws no card for them).
    let messages = server.session(&sid).await["messages"].clone();
    let tools: Vec<&Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tools[0]["tool_args"]["question_id"], question["id"]);
    assert_eq!(tools[1]["tool_name"], "remind");
    assert_eq!(tools[1]["status"], "done");
    assert_eq!(tools[1]["row_id"], reminders[0]["id"]);
    for row in &tools[2..] {
        assert_ne!(row["status"], "done", "{row}");
        assert!(row["tool_args"].get("question_id").is_none(), "{row}");
    }
    let last_message = messages.as_array().unwrap().last().unwrap();
    assert_eq!(last_message["content"], answer);
}

#[tokio::test]
async fn once_the_user_said_when_the_models_next_question_is_not_asked() {
    let ask = |question: &str| {
        Turn::call(
            "ask_user",
            json!({"question": question, "options": ["Yes", "No", "2 to 5 short choices"]}),
        )
    };
    let server = TestServer::start(
        vec![scenario(
            "ring Anna",
            vec![
                ask("What time should I remind you?"),
                ask("Do you want to call Anna?"),
                Turn::call(
                    "remind",
                    json!({"text": "Ring Anna", "at": invented_time()}),
                ),
                Turn::text(MANGLED),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to ring Anna.").await;
    let mut events = server.watch(&sid, None).await;
    // Imprint asks when before the model starts; the model's own
    // questions after the answer are not asked.
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["origin"], "imprint");
    answer(&server, &sid, &question["id"], "Tomorrow, 09:00").await;
    let rest = events.until_done().await;
    assert!(!types(&rest).contains(&"question".to_string()), "{rest:?}");
    let statuses: Vec<&str> = results(&rest)
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["not_asked", "not_asked", "done"], "{rest:?}");
    let answer = rest[rest.len() - 2]["text"].as_str().unwrap();
    assert!(answer.starts_with("Done: reminder set for "), "{answer}");
    assert!(answer.ends_with("09:00: Ring Anna."), "{answer}");
}

#[tokio::test]
async fn a_model_that_never_sets_the_reminder_gets_it_set_by_imprint() {
    let server = TestServer::start(
        vec![scenario(
            "phone Anna",
            vec![
                Turn::text("Sure, I will remind you."),
                Turn::text("Of course!"),
                Turn::text("It is set."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "Remind me to phone Anna.").await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    let question = seen.last().unwrap().clone();
    assert_eq!(question["origin"], "imprint");
    assert_eq!(
        question["question"],
        "What time should I remind you to phone Anna?"
    );
    answer(&server, &sid, &question["id"], "Tomorrow, 09:00").await;
    let rest = events.until_done().await;
    let set = results(&rest);
    assert_eq!(set.len(), 1, "{rest:?}");
    assert_eq!(
        (set[0]["name"].as_str(), set[0]["status"].as_str()),
        (Some("remind"), Some("done"))
    );
    assert_eq!(set[0]["args"]["text"], "Phone Anna");
    let reminders = server.get("/api/reminders").await.1["reminders"].clone();
    assert_eq!(reminders.as_array().unwrap().len(), 1);
    assert_eq!(rest[rest.len() - 2]["type"], "assistant_message");
}

#[tokio::test]
async fn writes_are_offered_only_when_the_request_asks_for_them() {
    let server = TestServer::start(
        vec![
            scenario("what do I know", vec![Turn::text("Little.")]),
            scenario("remind me", vec![Turn::text("When?")]),
            scenario("save that", vec![Turn::text("Saved?")]),
        ],
        &[],
    )
    .await;
    for (message, store, remind) in [
        ("what do I know about tea?", false, false),
        ("remind me to stretch in 2 hours", false, true),
        ("save that Anna likes tea", true, false),
    ] {
        let sid = server.create_session().await;
        server.converse(&sid, message).await;
        let trigger = &message[..9];
        // The first request shows the offer (a last, reserved answer
        // offers no tools at all).
        let request = server.standin.requests_for(trigger).remove(0);
        let tools = offered(&request);
        assert!(tools.contains(&"search".to_string()), "{tools:?}");
        assert_eq!(
            tools.contains(&"store".to_string()),
            store,
            "{message}: {tools:?}"
        );
        assert_eq!(
            tools.contains(&"remind".to_string()),
            remind,
            "{message}: {tools:?}"
        );
    }
}

#[tokio::test]
async fn a_write_that_was_not_asked_for_is_refused_and_reads_as_refused() {
    let server = TestServer::start(
        vec![scenario(
            "about tea",
            vec![
                Turn::call("store", json!({"content": "Anna likes tea"})),
                Turn::text("I found nothing about tea."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "What do I know about tea?").await;
    let result = results(&events)[0];
    assert_eq!(result["status"], "refused", "{result}");
    assert!(result["row_id"].is_null());
    assert_eq!(memory_count(&server).await, 0);
    // Why, for the page: a code in the event, kept with the history row,
    // that the page words.
    let reason = result["reason"].as_str().unwrap_or_default();
    assert_eq!(reason, "save_unasked", "{result}");
    let words = serde_json::from_value::<app::protocol::CallReason>(result["reason"].clone())
        .unwrap()
        .words();
    assert!(
        words.contains("you didn't ask to save anything, so nothing was saved"),
        "{words}"
    );
    let history = server.session(&sid).await;
    let rows = history["messages"].as_array().unwrap();
    let row = rows.iter().find(|m| m["tool_name"] == "store").unwrap();
    assert_eq!(row["status"], "refused", "{row}");
    assert_eq!(row["reason"], reason, "{row}");
}

#[tokio::test]
async fn no_read_runs_twice_with_the_same_arguments() {
    let list = || Turn::call("list_projects", json!({}));
    let server = TestServer::start(
        vec![scenario(
            "List my projects",
            vec![
                list(),
                list(),
                list(),
                list(),
                list(),
                list(),
                list(),
                list(),
                list(),
            ],
        )],
        &[],
    )
    .await;
    server.remember("Invoice template", Some("Billing")).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "List my projects.").await;
    let statuses: Vec<&str> = results(&events)
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses[0], "done");
    assert_eq!(results(&events)[0]["found"], 1);
    assert!(
        statuses[1..].iter().all(|s| *s == "repeated"),
        "{statuses:?}"
    );
    // A turn of only repeats ends research: no nine turns.
    assert!(statuses.len() <= 2, "{statuses:?}");
    assert_eq!(events.last().unwrap()["type"], "done");
    assert!(types(&events).contains(&"assistant_message".to_string()));
}

#[tokio::test]
async fn searching_a_project_for_notes_lists_its_memories_since_the_date() {
    let server = TestServer::start(
        vec![scenario(
            "Search project Billing",
            vec![
                Turn::call(
                    "search",
                    json!({"query": "notes", "project": "Billing", "since": "2026-11-01"}),
                ),
                Turn::text("Two notes."),
            ],
        )],
        &[],
    )
    .await;
    for (content, day) in [
        ("Invoice template agreed", "2026-11-03"),
        ("Old pricing idea", "2026-10-02"),
        ("Tax rates for 2027", "2026-11-20"),
    ] {
        server
            .running
            .engine
            .store
            .add_memory(NewMemory {
                content: content.into(),
                project: Some("Billing".into()),
                created_at: Some(day.into()),
                ..NewMemory::default()
            })
            .await
            .unwrap();
    }
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Search project Billing for notes since 2026-11-01")
        .await;
    let found = results(&events)[0];
    assert_eq!(found["status"], "done");
    assert_eq!(found["found"], 2, "{found}");
    let text = found["result"].as_str().unwrap();
    assert!(
        text.find("Tax rates").unwrap() < text.find("Invoice template").unwrap(),
        "newest first: {text}"
    );
    assert!(!types(&events).contains(&"question".to_string()));
}

#[tokio::test]
async fn markup_in_any_format_never_reaches_the_user() {
    let outputs = [
        MANGLED.to_string(),
        // (Unterminated: hermes still reads the search in it.)
        "Sure! <tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"Anna".into(),
        "<tool_call><function=store><parameter=content>Call Anna</parameter>".into(),
        "{\"name\": \"store\", \"arguments\": {\"content\": \"x\"}} {\"name\": \"ask".into(),
    ];
    for format in ["hermes", "qwen-xml", "native"] {
        let scenarios: Vec<Scenario> = outputs
            .iter()
            .enumerate()
            .map(|(i, output)| {
                // Split mid-markup, as a stream does.
                let cut = output
                    .char_indices()
                    .nth(output.chars().count() / 3)
                    .unwrap()
                    .0;
                scenario(
                    &format!("bad output {i}"),
                    vec![Turn::chunks(&[&output[..cut], &output[cut..]]); 14],
                )
            })
            .collect();
        let server = if format == "native" {
            TestServer::start(scenarios, &[]).await
        } else {
            TestServer::start_with_format(scenarios, format).await
        };
        for i in 0..outputs.len() {
            let sid = server.create_session().await;
            let events = server.converse(&sid, &format!("bad output {i}")).await;
            let shown = streamed_text(&events);
            assert!(!shows_markup(&shown), "{format} {i}: {shown}");
            for event in &events {
                if let Some(text) = event["text"].as_str() {
                    assert!(!shows_markup(text), "{format} {i}: {event}");
                }
            }
            let session = server.session(&sid).await.to_string();
            assert!(!session.contains("<tool_call>"), "{format} {i}: {session}");
            assert_eq!(events.last().unwrap()["type"], "done");
        }
    }
}

/// A model turn of hermes markup that never closes: a search whose query
/// repeats until the stream is dropped (the built-in model did this up to
/// its token limit, minutes with nothing shown).
fn runaway_turn() -> Turn {
    let mut chunks =
        vec!["<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"notes".to_string()];
    chunks.extend(std::iter::repeat_n(" notes notes notes".to_string(), 400));
    Turn {
        chunks,
        // Then it waits forever: only Imprint ending the turn ends it.
        stall: true,
        ..Turn::default()
    }
}

/// Unreadable calls one after another, each on its own line, until the
/// stream is dropped (the built-in model's answer written as calls of a
/// tool that does not exist).
fn unreadable_calls_turn() -> Turn {
    let call =
        "{\"name\": \"answer\", \"arguments\": {\"text\": \"The user asked to find notes.\"}}\n";
    Turn {
        chunks: vec![call.to_string(); 200],
        stall: true,
        ..Turn::default()
    }
}

#[tokio::test]
async fn a_call_that_never_closes_ends_its_turn_instead_of_writing_until_the_token_limit() {
    for (i, runaway) in [runaway_turn(), unreadable_calls_turn()]
        .into_iter()
        .enumerate()
    {
        let trigger = format!("find my runaway notes {i}");
        let server = TestServer::start_with_format(
            vec![scenario(
                &trigger,
                vec![
                    runaway,
                    Turn::text("I could not search your notes just now."),
                ],
            )],
            "hermes",
        )
        .await;
        ends_the_runaway(&server, &trigger).await;
    }
}

async fn ends_the_runaway(server: &TestServer, trigger: &str) {
    let sid = server.create_session().await;
    let events = server.converse(&sid, &format!("Please {trigger}.")).await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let shown = streamed_text(&events);
    assert_eq!(shown, "I could not search your notes just now.");
    // Tried once more after being told, then the reserved answer: three
    // requests, the two runaways dropped (so the model stops writing).
    let requests = server.standin.requests_for(trigger);
    assert_eq!(requests.len(), 3, "{requests:?}");
    server.standin.wait_for_aborts(2).await;
    let retry = requests[1]["messages"].to_string();
    assert!(retry.contains("could not be read"), "{retry}");
    assert!(
        requests[2].get("tools").is_none(),
        "the answer is asked without tools"
    );
    assert!(
        !types(&events).contains(&"tool_call".to_string()),
        "{events:?}"
    );
}

#[tokio::test]
async fn a_long_call_copying_the_users_words_is_not_cut() {
    // 1,500 bytes to keep, written by the model 30 bytes at a time.
    let words: String = (0..100)
        .map(|i| format!("line {i:03} of my poem. "))
        .collect();
    let call =
        serde_json::to_string(&json!({"name": "store", "arguments": {"content": words}})).unwrap();
    let mut chunks = vec!["<tool_call>\n".to_string()];
    chunks.extend(
        call.as_bytes()
            .chunks(30)
            .map(|part| String::from_utf8(part.to_vec()).unwrap()),
    );
    chunks.push("\n</tool_call>".into());
    let server = TestServer::start_with_format(
        vec![scenario(
            "Remember my poem",
            vec![
                Turn {
                    chunks,
                    ..Turn::default()
                },
                Turn::text("Saved your poem."),
            ],
        )],
        "hermes",
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, &format!("Remember my poem: {words}"))
        .await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let stored = results(&events);
    assert_eq!(stored.len(), 1, "{events:?}");
    assert_eq!(stored[0]["status"], "done", "{}", stored[0]);
    assert_eq!(memory_count(&server).await, 1);
    assert_eq!(server.standin.aborted(), 0);
}

#[tokio::test]
async fn a_turn_is_not_read_past_the_calls_that_can_run() {
    // Eight calls, then the stream stays open: the built-in model goes on
    // writing calls like these up to its token limit.
    let mut chunks: Vec<String> = (0..8)
        .map(|i| {
            format!("<tool_call>\n{{\"name\": \"search\", \"arguments\": {{\"query\": \"topic {i}\"}}}}\n</tool_call>\n")
        })
        .collect();
    chunks.push("<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"topic".into());
    let server = TestServer::start_with_format(
        vec![scenario(
            "many searches",
            vec![
                Turn {
                    chunks,
                    stall: true,
                    ..Turn::default()
                },
                Turn::text("Nothing found on those topics."),
            ],
        )],
        "hermes",
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "Do many searches for me.").await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    assert_eq!(results(&events).len(), 4, "{events:?}");
    server.standin.wait_for_aborts(1).await;
    let requests = server.standin.requests_for("many searches");
    let second = requests[1]["messages"].to_string();
    assert!(second.contains("only the first 4 tool calls"), "{second}");
}

#[tokio::test]
async fn the_request_said_back_or_a_question_asked_again_is_not_asked() {
    let server = TestServer::start(
        vec![
            // What the built-in model did: its request copied as the
            // question, the schema's words as options.
            scenario(
                "Find my notes from the Website project.",
                vec![
                    Turn::ask(
                        "Find my notes from the Website project.",
                        &["2 to 5 short choices", "2 to 5 short choices"],
                    ),
                    Turn::text("Here are your Website notes."),
                ],
            ),
            scenario(
                "the draft",
                vec![
                    Turn::ask("Which draft do you mean?", &["The essay", "The letter"]),
                    Turn::ask("Which draft do you mean?", &["The essay", "The letter"]),
                    Turn::text("The letter draft it is."),
                ],
            ),
        ],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Find my notes from the Website project.")
        .await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );
    assert_eq!(results(&events)[0]["status"], "not_asked");
    assert_eq!(streamed_text(&events), "Here are your Website notes.");

    let sid = server.create_session().await;
    server.say(&sid, "Open the draft.").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    answer(&server, &sid, &question["id"], "The letter").await;
    let rest = events.until_done().await;
    assert!(!types(&rest).contains(&"question".to_string()), "{rest:?}");
    let again = results(&rest);
    assert_eq!(again.last().unwrap()["status"], "not_asked", "{rest:?}");
    assert_eq!(streamed_text(&rest), "The letter draft it is.");
}

#[tokio::test]
async fn calls_written_in_the_answer_turn_end_it_instead_of_running_on() {
    // Readable calls, one after another: in the turn meant for the answer
    // (no tools offered) the built-in model wrote these for minutes.
    let call = "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"the plan\"}}\n</tool_call>\n";
    let calls_instead_of_an_answer = Turn {
        chunks: vec![call.to_string(); 200],
        stall: true,
        ..Turn::default()
    };
    let server = TestServer::start_with_format(
        vec![scenario(
            "find the plan",
            vec![runaway_turn(), calls_instead_of_an_answer],
        )],
        "hermes",
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "Please find the plan.").await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let shown = streamed_text(&events);
    assert!(!shows_markup(&shown), "{shown}");
    let requests = server.standin.requests_for("find the plan");
    assert_eq!(requests.len(), 3, "two runaways, then the answer turn");
    assert!(requests[2].get("tools").is_none());
    server.standin.wait_for_aborts(3).await;
    assert!(results(&events).is_empty(), "no call ran: {events:?}");
}

#[tokio::test]
async fn a_turn_is_not_read_past_a_call_it_already_wrote() {
    // The built-in model's habit: search, list, search again with the same
    // words, ask… in one turn, for as long as it may write.
    let search = "{\"name\": \"search\", \"arguments\": {\"query\": \"the plan\"}}\n";
    let list = "{\"name\": \"list_projects\", \"arguments\": {}}\n";
    let ask = "{\"name\": \"ask_user\", \"arguments\": {\"question\": \"Which plan?\"}}\n";
    let server = TestServer::start_with_format(
        vec![scenario(
            "going round",
            vec![
                Turn {
                    chunks: vec![search.into(), list.into(), search.into(), ask.into()],
                    stall: true,
                    ..Turn::default()
                },
                Turn::text("Nothing about the plan."),
            ],
        )],
        "hermes",
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "I am going round in circles.").await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let ran: Vec<&str> = results(&events)
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["search", "list_projects"], "{events:?}");
    assert!(
        !types(&events).contains(&"question".to_string()),
        "the question after the repeat was never read: {events:?}"
    );
    server.standin.wait_for_aborts(1).await;
    assert_eq!(streamed_text(&events), "Nothing about the plan.");
}

#[tokio::test]
async fn an_answer_turn_that_says_its_tools_back_gets_imprints_own_answer() {
    // The built-in model's answer turn, seen in the evaluation: the
    // tools' results as JSON, the prompt's tool list, then more calls.
    let said_back = [
        "{\"response\": \"No results found.\"}",
        "{\"response\": \"1 memories found:\"}\n",
        "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"search\"}}\n</tools>\n",
        "{\"name\": \"search\", \"arguments\": {\"query\": \"plan\"}}",
    ];
    let server = TestServer::start_with_format(
        vec![scenario(
            "launch plan",
            vec![
                // What Imprint's first search already found: nothing new,
                // so the reply goes to its answer.
                Turn::text("<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"launch plan\"}}</tool_call>"),
                Turn {
                    chunks: said_back.iter().map(|c| c.to_string()).collect(),
                    stall: true,
                    ..Turn::default()
                },
            ],
        )],
        "hermes",
    )
    .await;
    server.remember("Launch plan: ship on Friday", None).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "What is the launch plan?").await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let text = assistant_text(&events);
    assert!(!shows_markup(text), "{text}");
    assert!(text.contains("Launch plan: ship on Friday"), "{text}");
    assert!(text.starts_with("Here is what I found"), "{text}");
    let statuses: Vec<&str> = results(&events)
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["done"], "{events:?}");
    // The answer turn was dropped at its first call, not read to its end.
    server.standin.wait_for_aborts(1).await;
    let session = server.session(&sid).await;
    let stored = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(stored["content"].as_str(), Some(text), "{stored}");
}

#[tokio::test]
async fn punctuation_that_ends_an_answer_is_kept() {
    // JSON punctuation alone is held back as what a mangled call left; at
    // the end of real text it is the answer's own.
    let server = TestServer::start_with_format(
        vec![scenario(
            "the quote",
            vec![Turn::chunks(&["The note says ", "\"hi", "\"", "}"])],
        )],
        "hermes",
    )
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "Say the quote.").await;
    assert_eq!(streamed_text(&events), "The note says \"hi\"}");
}

#[tokio::test]
async fn a_memory_the_model_never_stored_is_stored_for_it_once_a_turn_gets_nowhere() {
    // The built-in model listed the projects turn after turn and never
    // stored what the user asked to save: once a turn gets nowhere (the
    // same list again), Imprint stores it, long before research ends.
    let server = TestServer::start(
        vec![scenario(
            "approved the mockups",
            vec![
                Turn::call("list_projects", json!({})),
                Turn::call("list_projects", json!({})),
                // Imprint's own call is the next assistant turn.
                Turn::text("(not asked for)"),
                Turn::text("Saved to the Website project."),
            ],
        )],
        &[],
    )
    .await;
    server
        .remember(
            "Website: the landing page launches in December",
            Some("Website"),
        )
        .await;
    let sid = server.create_session().await;
    let events = server
        .converse(
            &sid,
            "Save to the Website project: the client approved the mockups.",
        )
        .await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let stored = results(&events)
        .into_iter()
        .find(|r| r["name"] == "store")
        .unwrap_or_else(|| panic!("Imprint stored it: {events:?}"));
    assert_eq!(stored["status"], "done", "{stored}");
    let found = server.memories_about("mockups").await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].content, "The client approved the mockups.");
    assert_eq!(found[0].project.as_deref(), Some("Website"));
    // Then the model answers, with no tools.
    let requests = server.standin.requests_for("approved the mockups");
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert!(requests[2].get("tools").is_none());
    assert_eq!(streamed_text(&events), "Saved to the Website project.");
}

#[tokio::test]
async fn a_memory_the_model_answered_without_storing_is_stored_for_it() {
    // The built-in model answered "The password hint … is First Street"
    // in 2 s and stored nothing: the page read as if it was written down.
    let trigger = "password hint";
    let server = TestServer::start(
        vec![scenario(
            trigger,
            vec![
                Turn::text("The password hint for your email account is First Street."),
                Turn::text("Written down."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(
            &sid,
            "Write down the password hint for my email account: the first street.",
        )
        .await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let stored = results(&events)
        .into_iter()
        .find(|r| r["name"] == "store")
        .unwrap_or_else(|| panic!("Imprint stored it: {events:?}"));
    assert_eq!(stored["status"], "done", "{stored}");
    let found = server.memories_about("password hint").await;
    assert_eq!(found.len(), 1, "{found:?}");
    // What it is about stays with what to keep.
    assert_eq!(
        found[0].content,
        "Password hint for my email account: the first street."
    );
    // The job done, the model answers once more, with no tools.
    let requests = server.standin.requests_for(trigger);
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(requests[1].get("tools").is_none());
    let answer = events
        .iter()
        .rev()
        .find(|e| e["type"] == "assistant_message")
        .unwrap();
    assert!(
        answer["text"].as_str().unwrap().ends_with("Written down."),
        "{answer}"
    );
}

#[tokio::test]
async fn a_memory_stored_without_what_it_is_keeps_the_users_words() {
    let trigger = "new PIN";
    let server = TestServer::start(
        vec![scenario(
            trigger,
            vec![
                Turn::call("store", json!({"content": "4321"})),
                Turn::text("Saved."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Save the new PIN 4321 for my bank account.")
        .await;
    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let found = server.memories_about("4321").await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].content, "New PIN 4321 for my bank account.");
    // The page's line says what was stored, not the model's guess.
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(
        result["args"]["content"], "New PIN 4321 for my bank account.",
        "{result}"
    );
}

#[tokio::test]
async fn an_answer_that_says_imprints_notes_back_is_not_shown_as_the_answer() {
    // The built-in model's whole answer once: "The last tool calls found
    // nothing new. Do not call any more tools."
    let trigger = "login for";
    let server = TestServer::start(
        vec![scenario(
            trigger,
            vec![
                Turn::call("search", json!({"query": "login"})),
                Turn::text("The last tool calls found nothing new. Do not call any more tools."),
            ],
        )],
        &[],
    )
    .await;
    server
        .remember("Bank account: online banking login is anna.k", None)
        .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "What's the login for my bank?").await;
    let text = assistant_text(&events);
    assert!(!text.contains("tool"), "{text}");
    assert!(
        text.starts_with("Here is what I found in your memories:"),
        "{text}"
    );
    assert!(text.contains("online banking login is anna.k"), "{text}");
    let session = server.session(&sid).await;
    let stored = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(stored["content"].as_str(), Some(text), "{stored}");
}

#[tokio::test]
async fn a_reminder_the_model_never_set_is_set_for_it_when_research_ends() {
    // The built-in model listed projects until research ended, with the
    // reminder the user asked for (and its time) never set.
    let server = TestServer::start(
        vec![scenario(
            "water the plants",
            vec![
                Turn::call("list_projects", json!({})),
                Turn::call("search", json!({"query": "plants"})),
                // Imprint's own call is the next assistant turn.
                Turn::text("(not asked for)"),
                Turn::text("I set it."),
            ],
        )],
        &["--max-tool-iters", "2"],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Remind me to water the plants tomorrow at 9.")
        .await;

    assert_eq!(events.last().unwrap()["type"], "done", "{events:?}");
    let set = results(&events)
        .into_iter()
        .find(|r| r["name"] == "remind")
        .unwrap_or_else(|| panic!("Imprint set it: {events:?}"));
    assert_eq!(set["status"], "done", "{set}");
    let (_, listed) = server.get("/api/reminders").await;
    let reminders = listed["reminders"].as_array().unwrap();
    assert_eq!(reminders.len(), 1, "{listed}");
    let text = reminders[0]["text"].as_str().unwrap();
    assert!(text.starts_with("Water the plants"), "{text}");
    // At the time the user said (grounded as any call's).
    let at = chrono::DateTime::parse_from_rfc3339(reminders[0]["due_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Local);
    assert_eq!(
        at.date_naive(),
        (Local::now() + Duration::days(1)).date_naive()
    );
    assert_eq!(at.format("%H:%M").to_string(), "09:00");
    assert_eq!(streamed_text(&events), "I set it.");
}
