//! References the user left unnamed, through real HTTP: Imprint looks
//! them up in the user's memories before the model starts (one match is
//! handed to the model, several are a question with the memories as
//! options, none an open question), and reminders said to recur.

mod support;

use app::protocol::tool_names::{ASK_USER, LIST_PROJECTS, REMIND, SEARCH, STORE};
use chrono::{Duration, Local, Timelike};
use imprint::store::NewMemory;
use serde_json::{json, Value};
use support::binary::Binary;
use support::*;

/// Memories in three projects, with two meetings, two documents and two
/// people's numbers, so "the meeting" and "her" can mean either.
const MEMORIES: &[(&str, Option<&str>, &str)] = &[
    (
        "Billing meeting: we decided to move invoices to Stripe",
        Some("Billing"),
        "2030-05-12T10:00:00Z",
    ),
    (
        "Imprint sync: agreed to ship the inbox on Friday",
        Some("Imprint"),
        "2030-05-20T10:00:00Z",
    ),
    (
        "Garden plan: garlic in the north bed",
        Some("Garden"),
        "2030-05-01T10:00:00Z",
    ),
    (
        "Anna's phone number is 0176 111 222",
        None,
        "2030-04-01T10:00:00Z",
    ),
    (
        "Marta's phone number is 0176 333 444",
        None,
        "2030-04-02T10:00:00Z",
    ),
    (
        "Hosting report: the VPS costs 12 EUR a month",
        Some("Imprint"),
        "2030-05-15T10:00:00Z",
    ),
];

async fn seed(server: &TestServer, memories: &[(&str, Option<&str>, &str)]) {
    for (content, project, at) in memories {
        server
            .running
            .engine
            .store
            .add_memory(NewMemory {
                content: (*content).into(),
                project: project.map(str::to_string),
                tags: Vec::new(),
                created_at: Some((*at).into()),
            })
            .await
            .unwrap();
    }
}

/// A server whose model plays `scenarios`, holding [`MEMORIES`].
async fn with_memories(scenarios: Vec<Scenario>) -> TestServer {
    let server = TestServer::start(scenarios, &[]).await;
    seed(&server, MEMORIES).await;
    server
}

/// The model answers in one turn, whatever it was told.
fn answers(trigger: &str) -> Scenario {
    scenario(trigger, vec![Turn::text("Here is what I know.")])
}

/// What the model was sent first for a request.
fn first_request(server: &TestServer, trigger: &str) -> String {
    let requests = server.standin.requests_for(trigger);
    assert!(!requests.is_empty(), "the model was asked about {trigger}");
    requests[0].to_string()
}

#[tokio::test]
async fn several_matches_give_a_question_whose_options_are_the_memories() {
    let server = with_memories(vec![answers("in the meeting")]).await;
    let sid = server.create_session().await;
    server.say(&sid, "What did we decide in the meeting?").await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    // Asked before the model starts.
    assert_eq!(types(&seen), ["question"]);
    assert!(server.standin.requests_for("in the meeting").is_empty());
    let question = seen.last().unwrap().clone();
    assert_eq!(question["origin"], "imprint");
    assert_eq!(question["question"], "Which meeting do you mean?");
    assert_eq!(question["allow_other"], true);
    let mut offered = question_options(&question);
    offered.sort();
    assert_eq!(
        offered,
        ["Billing meeting (12 May)", "Imprint sync (20 May)"],
        "the meetings in memory, with their dates"
    );

    server
        .answer_ok(&sid, &question["id"], "Billing meeting (12 May)")
        .await;
    let rest = events.until_done().await;
    assert_eq!(
        types(&rest),
        ["answer", "token", "assistant_message", "done"]
    );
    // The model works with the chosen memory in hand, not the other one.
    let sent = first_request(&server, "in the meeting");
    assert!(
        sent.contains("the user chose Billing meeting (12 May)"),
        "{sent}"
    );
    assert!(sent.contains("move invoices to Stripe"), "{sent}");
    assert!(!sent.contains("ship the inbox"), "{sent}");

    // History keeps Imprint's question with its answer.
    let messages = server.session(&sid).await["messages"].clone();
    let asked = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_name"] == ASK_USER)
        .expect("the question is in history");
    assert_eq!(asked["tool_args"]["origin"], "imprint");
    assert_eq!(asked["tool_args"]["outcome"], "answered");
    assert_eq!(asked["content"], "Billing meeting (12 May)");
}

#[tokio::test]
async fn you_decide_takes_the_first_candidate_and_own_words_are_passed_on() {
    let server = with_memories(vec![answers("in the meeting")]).await;
    let sid = server.create_session().await;
    server.say(&sid, "What did we decide in the meeting?").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    let first = question_options(&question)[0].clone();
    let (status, body) = server
        .post(
            &format!("/api/chat/sessions/{sid}/answer"),
            json!({"id": question["id"], "you_decide": true}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let rest = events.until_done().await;
    assert_eq!(rest[0]["reason"], "left_to_imprint");
    assert_eq!(rest[0]["chosen"], first.as_str());
    let sent = first_request(&server, "in the meeting");
    assert!(
        sent.contains(&format!(
            "the user left it to you, and Imprint took {first}"
        )),
        "{sent}"
    );

    // Own words: the model reads them as the user's.
    let sid = server.create_session().await;
    server
        .say(&sid, "What did we decide in the meeting? (again)")
        .await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    server
        .answer_ok(&sid, &question["id"], "the one with the dentist")
        .await;
    events.until_done().await;
    let sent = first_request(&server, "(again)");
    assert!(
        sent.contains("the user said: the one with the dentist"),
        "{sent}"
    );
}

#[tokio::test]
async fn one_match_is_used_without_a_question() {
    let server = with_memories(vec![answers("the document I mentioned")]).await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Find the document I mentioned.")
        .await;
    assert_eq!(types(&events), ["token", "assistant_message", "done"]);
    let sent = first_request(&server, "the document I mentioned");
    assert!(
        sent.contains("Imprint looked up “the document I mentioned” in the user's memories and found one match"),
        "{sent}"
    );
    assert!(sent.contains("the VPS costs 12 EUR"), "{sent}");
}

#[tokio::test]
async fn no_match_is_an_open_question_that_says_so() {
    let server = with_memories(vec![scenario(
        "for the account",
        vec![Turn::text("Noted: I will keep it.")],
    )])
    .await;
    let sid = server.create_session().await;
    server
        .say(&sid, "Write down the password hint for the account.")
        .await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["origin"], "imprint");
    assert_eq!(
        question["question"],
        "I found nothing in your memories for “the account”. What do you mean by “the account”?"
    );
    assert_eq!(question["options"], json!([]));
    assert_eq!(question["allow_other"], true);
    server
        .answer_ok(&sid, &question["id"], "my bank account")
        .await;
    events.until_done().await;
    let sent = first_request(&server, "for the account");
    assert!(sent.contains("the user said: my bank account"), "{sent}");
}

#[tokio::test]
async fn a_pronoun_is_looked_up_only_with_nothing_before_it() {
    let server = with_memories(vec![
        answers("her phone number"),
        scenario("Tell me about Anna", vec![Turn::text("Anna likes tea.")]),
    ])
    .await;
    // A new chat: "her" is nobody yet, and two numbers are in memory.
    let sid = server.create_session().await;
    server.say(&sid, "What's her phone number?").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["question"], "Who do you mean by “her”?");
    // The options are the people the memories name, not the memories.
    let mut offered = question_options(&question);
    offered.sort();
    assert_eq!(offered, ["Anna", "Marta"]);
    server.answer_ok(&sid, &question["id"], "Marta").await;
    events.until_done().await;
    let sent = first_request(&server, "her phone number");
    assert!(sent.contains("0176 333 444"), "{sent}");
    assert!(!sent.contains("0176 111 222"), "{sent}");

    // After a turn about Anna, "her" is hers: no question.
    let sid = server.create_session().await;
    server.converse(&sid, "Tell me about Anna").await;
    let events = server.converse(&sid, "What's her phone number?").await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );
}

#[tokio::test]
async fn a_note_about_him_or_her_is_kept_naming_the_person_chosen() {
    let server = with_memories(vec![scenario(
        "her phone number changed",
        vec![
            Turn::call(
                STORE,
                json!({"content": "Her phone number changed to 0176 999 000"}),
            ),
            Turn::text("Saved."),
        ],
    )])
    .await;
    let sid = server.create_session().await;
    server
        .say(&sid, "Note that her phone number changed to 0176 999 000")
        .await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["question"], "Who do you mean by “her”?");
    let marta = question_options(&question)
        .into_iter()
        .find(|o| o.starts_with("Marta"))
        .expect("Marta among the options");
    server.answer_ok(&sid, &question["id"], &marta).await;
    events.until_done().await;
    let kept: Vec<String> = server
        .memories_about("0176 999 000")
        .await
        .into_iter()
        .map(|m| m.content)
        .filter(|content| content.contains("999"))
        .collect();
    assert_eq!(kept, ["Marta's phone number changed to 0176 999 000"]);
}

#[tokio::test]
async fn a_note_about_a_first_name_two_people_share_asks_which_and_keeps_the_full_name() {
    let server = with_memories(vec![scenario(
        "rates go up",
        vec![
            Turn::call(
                STORE,
                json!({"content": "Hana's rates go up to £45 an hour"}),
            ),
            Turn::text("Saved."),
        ],
    )])
    .await;
    seed(
        &server,
        &[
            (
                "Hana Kowalski does our accounts",
                None,
                "2030-04-03T10:00:00Z",
            ),
            (
                "Hana Brandt teaches Mia the cello on Mondays",
                None,
                "2030-04-04T10:00:00Z",
            ),
            (
                "Hana Brandt is building the raised beds",
                Some("Garden"),
                "2030-04-05T10:00:00Z",
            ),
        ],
    )
    .await;
    let sid = server.create_session().await;
    server
        .say(&sid, "Note that hana's rates go up to £45 an hour")
        .await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["question"], "Which Hana do you mean?");
    let mut offered = question_options(&question);
    offered.sort();
    assert_eq!(offered, ["Hana Brandt", "Hana Kowalski"]);
    server.answer_ok(&sid, &question["id"], "Hana Brandt").await;
    events.until_done().await;
    let kept: Vec<String> = server
        .memories_about("rates")
        .await
        .into_iter()
        .map(|m| m.content)
        .filter(|content| content.contains("£45"))
        .collect();
    assert_eq!(kept, ["Hana Brandt's rates go up to £45 an hour"]);

    // Named whole, with a surname's start, or in a project whose memories
    // name one Hana: nothing is asked.
    for note in [
        "Note that Hana Kowalski's rates go up to £45 an hour",
        "Note that hana k's rates go up to £45 an hour",
        "Garden project: note that hana's rates go up to £45 an hour",
    ] {
        let sid = server.create_session().await;
        let events = server.converse(&sid, note).await;
        assert!(
            !types(&events).contains(&"question".to_string()),
            "{note}: {events:?}"
        );
    }
}

#[tokio::test]
async fn a_question_about_a_first_name_two_people_share_asks_which_unless_its_words_say() {
    let server = with_memories(vec![
        scenario("number", vec![Turn::text("Her number is 07700 900 222.")]),
        scenario("cello", vec![Turn::text("Her number is 07700 900 222.")]),
        scenario(
            "alarm code",
            vec![Turn::text("The studio alarm code is 4821.")],
        ),
    ])
    .await;
    seed(
        &server,
        &[
            ("Studio alarm code: 4821", None, "2030-04-02T10:00:00Z"),
            (
                "Hana Kowalski does our accounts, 07700 900 111",
                None,
                "2030-04-03T10:00:00Z",
            ),
            (
                "Hana van Dijk teaches Mia the cello on Mondays, 07700 900 222",
                None,
                "2030-04-04T10:00:00Z",
            ),
        ],
    )
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "whats hana's number").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["question"], "Which Hana do you mean?");
    let mut offered = question_options(&question);
    offered.sort();
    assert_eq!(offered, ["Hana Kowalski", "Hana van Dijk"]);
    server
        .answer_ok(&sid, &question["id"], "Hana van Dijk")
        .await;
    events.until_done().await;
    // The model reads the one chosen, not the other.
    let sent = server
        .standin
        .requests_for("number")
        .pop()
        .unwrap()
        .to_string();
    assert!(sent.contains("07700 900 222"), "{sent}");
    assert!(!sent.contains("07700 900 111"), "{sent}");

    // Its other words say which: nothing is asked.
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "whats the number of hana who teaches the cello")
        .await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );

    // Named only in the story told after the question: it asks nothing
    // of her.
    let sid = server.create_session().await;
    let events = server
        .converse(
            &sid,
            "hey whats the alarm code, hana is opening up the studio",
        )
        .await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );
    let answer = events.iter().find(|e| e["type"] == "assistant_message");
    assert!(
        answer.is_some_and(|m| m.to_string().contains("4821")),
        "{events:?}"
    );
}

#[tokio::test]
async fn a_named_thing_is_left_to_the_model() {
    let server = with_memories(vec![scenario(
        "billing meeting",
        vec![
            Turn::call(SEARCH, json!({"query": "billing meeting"})),
            Turn::text("You decided to move invoices to Stripe."),
        ],
    )])
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "What did we decide in the billing meeting?")
        .await;
    assert_eq!(
        types(&events),
        [
            "tool_call",
            "tool_result",
            "token",
            "assistant_message",
            "done"
        ]
    );
    let sent = first_request(&server, "billing meeting");
    assert!(!sent.contains("Imprint looked up"), "{sent}");
}

/// The tool row of the reminder the reply set.
async fn remind_row(server: &TestServer, sid: &str) -> Value {
    let messages = server.session(sid).await["messages"].clone();
    messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_name"] == REMIND)
        .cloned()
        .expect("a remind row")
}

#[tokio::test]
async fn a_recurring_reminder_is_read_as_recurring_and_its_time_asked_when_missing() {
    let invented = (now() + Duration::minutes(5))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let server = TestServer::start(
        vec![scenario(
            "take my pills",
            vec![
                // The model's time and repeat are guesses.
                Turn::call(
                    REMIND,
                    json!({"text": "Take my pills", "at": invented, "repeat": "weekly"}),
                ),
                Turn::text("Set."),
            ],
        )],
        &[],
    )
    .await;
    server.set_now(now());
    // A time given: no question; the reminder is daily, at 08:00 from
    // tomorrow (08:00 today has passed).
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Remind me every day at 8 to take my pills")
        .await;
    assert!(!types(&events).contains(&"question".to_string()));
    let row = remind_row(&server, &sid).await;
    assert_eq!(row["tool_args"]["repeat"], "daily");
    let at = row["tool_args"]["at"].as_str().unwrap();
    assert!(at.starts_with("2030-06-04T08:00"), "{at}");

    // "Every weekday" with no time: asked before the model starts.
    let sid = server.create_session().await;
    server
        .say(&sid, "Remind me every weekday to take my pills")
        .await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    assert_eq!(types(&seen), ["question"]);
    let question = seen.last().unwrap();
    assert_eq!(
        question["question"],
        "What time should I remind you every weekday to take my pills?"
    );
    server.answer_ok(&sid, &question["id"], "at 7:30").await;
    events.until_done().await;
    let row = remind_row(&server, &sid).await;
    assert_eq!(row["tool_args"]["repeat"], "weekdays");
    let at = chrono::DateTime::parse_from_rfc3339(row["tool_args"]["at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Local);
    assert_eq!((at.hour(), at.minute()), (7, 30));
    assert_eq!(at.date_naive(), now().date_naive().succ_opt().unwrap());

    // Said once: the model's repeat is dropped.
    let sid = server.create_session().await;
    server
        .converse(&sid, "Remind me tomorrow at 9 to take my pills")
        .await;
    let row = remind_row(&server, &sid).await;
    assert_eq!(row["tool_args"].get("repeat"), None, "{row}");
}

#[tokio::test]
async fn a_reference_question_waits_again_after_a_kill_with_its_options() {
    let standin = StandIn::start(vec![answers("in the meeting")]).await;
    let data = tempfile::tempdir().unwrap();
    // The memories, imported as a user would.
    let seed = data.path().join("seed.jsonl");
    let lines: Vec<String> = MEMORIES
        .iter()
        .map(|(content, project, at)| {
            json!({"content": content, "project": project, "created_at": at}).to_string()
        })
        .collect();
    std::fs::write(&seed, lines.join("\n")).unwrap();
    let imported = std::process::Command::new(env!("CARGO_BIN_EXE_imprint"))
        .args(["import", seed.to_str().unwrap()])
        .env("IMPRINT_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert!(imported.status.success(), "{imported:?}");

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let sid = imprint.create_session().await;
    imprint
        .say(&sid, "What did we decide in the meeting?")
        .await;
    let question = imprint
        .watch(&sid, None)
        .await
        .until("question")
        .await
        .pop()
        .unwrap();
    imprint.kill().await;

    let imprint = Binary::start(data.path(), &standin.base_url(), &[]).await;
    let session = imprint.session(&sid).await;
    assert_eq!(session["reply"]["state"], "waiting");
    let waiting = &session["reply"]["question"];
    assert_eq!(waiting["id"], question["id"]);
    assert_eq!(waiting["options"], question["options"]);
    assert_eq!(waiting["origin"], "imprint");
    let mut events = imprint.watch(&sid, None).await;
    let (status, body) = imprint
        .answer(&sid, &question["id"], "Imprint sync (20 May)")
        .await;
    assert_eq!(status, 200, "{body}");
    let seen = events.until_done().await;
    // Settled once: the restored reply does not ask again.
    assert_eq!(
        seen.iter().filter(|e| e["type"] == "question").count(),
        1,
        "{seen:?}"
    );
    let requests = standin.requests_for("in the meeting");
    assert_eq!(requests.len(), 1);
    let sent = requests[0].to_string();
    assert!(sent.contains("ship the inbox on Friday"), "{sent}");
    assert_eq!(sent.matches("Imprint asked what").count(), 1, "{sent}");
    imprint.kill().await;
}

#[tokio::test]
async fn once_the_user_answered_imprints_question_the_models_same_question_is_not_asked() {
    let server = with_memories(vec![scenario(
        "in the meeting",
        vec![
            Turn::ask("Which meeting?", &["Billing", "Imprint"]),
            Turn::text("You moved invoices to Stripe."),
        ],
    )])
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "What did we decide in the meeting?").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    server
        .answer_ok(&sid, &question["id"], "Billing meeting (12 May)")
        .await;
    let rest = events.until_done().await;
    assert!(
        !types(&rest).contains(&"question".to_string()),
        "asked twice: {rest:?}"
    );
    let result = rest.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["status"], "not_asked");
}

#[tokio::test]
async fn the_memory_the_user_chose_found_again_is_no_news_and_research_ends() {
    let trigger = "in the meeting";
    let server = with_memories(vec![scenario(
        trigger,
        vec![
            // A small model searches for what it was handed, then lists
            // the projects and searches again with other words.
            Turn::call(SEARCH, json!({"query": "billing meeting"})),
            Turn::call(LIST_PROJECTS, json!({})),
            Turn::call(SEARCH, json!({"query": "meeting decisions"})),
            Turn::text("You moved invoices to Stripe."),
        ],
    )])
    .await;
    let sid = server.create_session().await;
    server.say(&sid, "What did we decide in the meeting?").await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    server
        .answer_ok(&sid, &question["id"], "Billing meeting (12 May)")
        .await;
    let rest = events.until_done().await;
    // The chosen meeting found again taught nothing: the next turn is the
    // answer, and the call it wrote there ends it.
    let results: Vec<&Value> = rest.iter().filter(|e| e["type"] == "tool_result").collect();
    assert_eq!(results.len(), 1, "{rest:?}");
    assert_eq!(server.standin.requests_for(trigger).len(), 2);
    assert_eq!(
        assistant_text(&rest),
        "Here is what I found in your memories:\n\n\
         - Billing meeting: we decided to move invoices to Stripe (Billing, saved 12 May 2030)"
    );
}

#[tokio::test]
async fn the_users_own_words_for_what_they_meant_are_searched_for_the_model() {
    let trigger = "the one I care about";
    let server = with_memories(vec![scenario(trigger, vec![Turn::text("")])]).await;
    let sid = server.create_session().await;
    server
        .say(&sid, "Tell me about the one I care about.")
        .await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["options"], json!([]), "nothing found to offer");
    server.answer_ok(&sid, &question["id"], "Anna").await;
    let rest = events.until_done().await;
    let sent = first_request(&server, trigger);
    assert!(
        sent.contains("the user said: Anna. Imprint searched the user's memories for it."),
        "{sent}"
    );
    assert!(sent.contains("0176 111 222"), "{sent}");
    assert!(!sent.contains("0176 333 444"), "Marta's number: {sent}");
    // A model that then says nothing: Imprint answers with what it found.
    assert_eq!(
        assistant_text(&rest),
        "Here is what I found in your memories:\n\n- Anna's phone number is 0176 111 222 (saved 1 April 2030)"
    );
}

#[tokio::test]
async fn a_reminder_about_something_nobody_named_is_not_set() {
    let server = TestServer::start(
        vec![scenario(
            "about it next week",
            vec![
                Turn::call(REMIND, json!({"text": "it", "at": "2030-06-10T09:00"})),
                Turn::text("I could not set it."),
            ],
        )],
        &["--answer-timeout-s", "0.3"],
    )
    .await;
    server.set_now(now());
    seed(&server, MEMORIES).await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "Remind me about it next week.").await;
    // What "it" is was asked and never answered: when is not asked, and
    // the model's reminder about it is not set.
    let questions: Vec<&Value> = events.iter().filter(|e| e["type"] == "question").collect();
    assert_eq!(questions.len(), 1, "{events:?}");
    assert_eq!(
        questions[0]["question"],
        "I found nothing in your memories for “it”. What do you mean by “it”?"
    );
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["status"], "refused");
    let (_, list) = server.get("/api/reminders").await;
    assert_eq!(list["reminders"], json!([]));
}

#[tokio::test]
async fn a_reminders_text_holds_whom_the_user_said_a_pronoun_means() {
    let tomorrow_at_nine = (now() + Duration::days(1))
        .with_hour(9)
        .and_then(|t| t.with_minute(0))
        .unwrap()
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let server = with_memories(vec![scenario(
        "call him",
        vec![
            // The built-in model's text for it: the wrong person.
            Turn::call(REMIND, json!({"text": "call me", "at": tomorrow_at_nine})),
            Turn::text("Done."),
        ],
    )])
    .await;
    server.set_now(now());
    let sid = server.create_session().await;
    server
        .say(&sid, "Remind me to call him tomorrow at 9.")
        .await;
    let mut events = server.watch(&sid, None).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(
        question["question"],
        "I found nothing in your memories for “him”. Who do you mean by “him”?"
    );
    server.answer_ok(&sid, &question["id"], "Tom").await;
    events.until_done().await;
    let (_, list) = server.get("/api/reminders").await;
    let reminders = list["reminders"].as_array().unwrap();
    assert_eq!(reminders.len(), 1, "{list}");
    // Tom, and no "tomorrow at 9" in the text of a reminder due then.
    assert_eq!(reminders[0]["text"], "Call Tom");
}

#[tokio::test]
async fn a_request_about_the_users_own_things_is_searched_before_the_model_starts() {
    let server = with_memories(vec![answers("phone number"), answers("Garden project")]).await;
    let sid = server.create_session().await;

    let events = server.converse(&sid, "What's Marta's phone number?").await;
    // Nothing is asked and no call is shown: the search is Imprint's own
    // preparation, handed over with the request.
    assert_eq!(types(&events), ["token", "assistant_message", "done"]);
    let sent = first_request(&server, "phone number");
    assert!(
        sent.contains("Imprint searched the user's memories first"),
        "{sent}"
    );
    assert!(sent.contains("0176 333 444"), "Marta's number: {sent}");
    assert!(
        !sent.contains("0176 111 222"),
        "not Anna's, which holds fewer of its words: {sent}"
    );
    assert!(!sent.contains("Stripe"), "only what matches: {sent}");

    // A project named and nothing more: its newest memories.
    let sid = server.create_session().await;
    server
        .converse(&sid, "Show me my notes from the Garden project.")
        .await;
    let sent = first_request(&server, "Garden project");
    assert!(sent.contains("garlic in the north bed"), "{sent}");
    assert!(!sent.contains("0176"), "only the Garden project: {sent}");
}

#[tokio::test]
async fn browsing_after_imprint_found_what_the_request_is_about_is_no_news() {
    let trigger = "Marta's phone";
    let server = with_memories(vec![scenario(
        trigger,
        vec![
            // The newest memories, then the projects, then a search with
            // other words: what a small model does with the answer in hand.
            Turn::call(SEARCH, json!({"query": "everything"})),
            Turn::call(LIST_PROJECTS, json!({})),
            Turn::call(SEARCH, json!({"query": "phone numbers"})),
            Turn::text("Marta's number is 0176 333 444."),
        ],
    )])
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "What's Marta's phone number?").await;
    // The newest memories were new to the reply, but no news about Marta's
    // number: research ended after that turn, and the turn after it, the
    // answer, wrote a call and got Imprint's answer from its own search.
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 1, "{events:?}");
    assert_eq!(results[0]["status"], "done");
    assert_eq!(
        assistant_text(&events),
        "Here is what I found in your memories:\n\n- Marta's phone number is 0176 333 444 (saved 2 April 2030)"
    );
}

#[tokio::test]
async fn other_memories_found_after_imprint_found_what_the_request_is_about_are_no_news() {
    let trigger = "Marta's phone";
    let server = with_memories(vec![scenario(
        trigger,
        vec![
            // Searches with other words, each finding other memories.
            Turn::call(SEARCH, json!({"query": "Stripe invoices"})),
            Turn::call(SEARCH, json!({"query": "garlic"})),
            Turn::call(SEARCH, json!({"query": "inbox"})),
            Turn::text("Marta's number is 0176 333 444."),
        ],
    )])
    .await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "What's Marta's phone number?").await;
    // The billing meeting was new to the reply but says nothing about
    // Marta's number: research ended after that turn.
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 1, "{events:?}");
    assert_eq!(results[0]["found"], 1, "{events:?}");
    assert_eq!(
        assistant_text(&events),
        "Here is what I found in your memories:\n\n- Marta's phone number is 0176 333 444 (saved 2 April 2030)"
    );
}

#[tokio::test]
async fn a_general_question_or_a_write_is_not_searched_first() {
    let server = with_memories(vec![
        answers("capital"),
        answers("Save this"),
        answers("phone bill"),
    ])
    .await;
    for request in [
        "What is the capital of Japan?",
        "Save this: Marta's phone number is now 0176 999 000.",
        "How do I read a phone bill?",
    ] {
        let sid = server.create_session().await;
        server.converse(&sid, request).await;
    }
    for trigger in ["capital", "Save this"] {
        let sent = first_request(&server, trigger);
        assert!(!sent.contains("searched the user's memories"), "{sent}");
    }
    // Words that match no memory ("read", "bill") bring no note either,
    // though "phone" alone would: every memory found must be about the
    // request, or the model is handed noise.
    let sent = first_request(&server, "phone bill");
    assert!(!sent.contains("searched the user's memories"), "{sent}");
}

#[tokio::test]
async fn the_models_question_about_what_imprint_found_as_one_thing_is_not_asked() {
    // The built-in model asked "What project do you need help with?" of a
    // request naming the project, with its memories in hand.
    let server = with_memories(vec![
        scenario(
            "Garden project",
            vec![
                Turn::ask("What project do you need help with?", &[]),
                Turn::text("Garlic goes in the north bed."),
            ],
        ),
        // Budgets in two projects: which one is a fair question.
        scenario(
            "my budget",
            vec![
                Turn::ask("Which budget do you mean?", &["Website", "Thesis"]),
                Turn::text("The Thesis survey budget is 400 EUR."),
            ],
        ),
    ])
    .await;
    seed(
        &server,
        &[
            (
                "Website: the hosting budget is 20 EUR a month",
                Some("Website"),
                "2030-05-02T10:00:00Z",
            ),
            (
                "Thesis: the survey budget is 400 EUR",
                Some("Thesis"),
                "2030-05-03T10:00:00Z",
            ),
        ],
    )
    .await;

    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "Show me my notes from the Garden project.")
        .await;
    assert!(
        !types(&events).contains(&"question".to_string()),
        "{events:?}"
    );
    let refused = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == ASK_USER)
        .expect("the call is answered");
    assert_eq!(refused["status"], "not_asked", "{refused}");
    assert!(
        refused["result"]
            .as_str()
            .unwrap()
            .contains("Imprint's search already found"),
        "{refused}"
    );
    assert_eq!(streamed_text(&events), "Garlic goes in the north bed.");

    let sid = server.create_session().await;
    server.say(&sid, "What is my budget?").await;
    let mut events = server.watch(&sid, None).await;
    let seen = events.until("question").await;
    let question = seen.last().unwrap().clone();
    assert_eq!(question["question"], "Which budget do you mean?");
    server.answer_ok(&sid, &question["id"], "Thesis").await;
    let rest = events.until_done().await;
    assert_eq!(streamed_text(&rest), "The Thesis survey budget is 400 EUR.");
}
