//! Requests judged by meaning, with the real embedding model and a
//! stand-in chat model on planned turns: a fact given with no verb of
//! keeping is saved in the user's words, and a question two saved things
//! fit equally is asked about, with them as the options, and answered from
//! the one chosen. Needs the embedding weights (`scripts/embedding-model.sh
//! ensure`); a missing one fails here rather than skipping.

mod support;

use serde_json::{json, Value};
use support::*;

/// The stand-in's answer to a constrained step: this JSON value.
fn step(value: Value) -> Turn {
    Turn::text(&value.to_string())
}

/// A scenario played for one request only: the next with the same
/// trigger answers the next step.
fn once(trigger: &str, turn: Turn) -> Scenario {
    Scenario {
        once: true,
        ..scenario(trigger, vec![turn])
    }
}

fn tools_called(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_call")
        .map(|e| e["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fact_given_without_a_verb_of_keeping_is_saved_in_the_users_words() {
    // The examples find a save likely and the rules do not: the model
    // judges whether it tells or asks (the first step), then words the
    // fact (the second).
    let server = TestServer::start_planned_by_meaning(vec![
        once("climbing", step(json!({"kind": "statement"}))),
        once(
            "climbing",
            step(json!({"fact": "Membership number at the climbing gym: CLB-00482-7"})),
        ),
    ])
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(
            &sid,
            "fyi my membership number at the climbing gym is CLB-00482-7",
        )
        .await;
    assert_eq!(tools_called(&events), vec!["store"], "{events:?}");
    let saved = server.memories_about("climbing").await;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(
        saved[0].content,
        "Membership number at the climbing gym: CLB-00482-7"
    );
    let text = assistant_text(&events);
    assert!(text.contains("CLB-00482-7"), "{text}");
    // Both steps were constrained: to whether it tells or asks, then to
    // the fact alone.
    let requests = server.standin.requests_for("climbing");
    assert_eq!(requests.len(), 2, "{requests:?}");
    let schema = |i: usize| requests[i]["response_format"]["json_schema"]["schema"].clone();
    assert_eq!(
        schema(0)["properties"]["kind"]["enum"],
        json!(["statement", "question"]),
        "{requests:?}"
    );
    assert!(schema(1)["properties"]["fact"].is_object(), "{requests:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_by_its_form_is_answered_and_never_judged_a_save() {
    // Its last clause opens with a question word: it asks, whatever the
    // examples make of its words, so the model is not asked whether it
    // tells (the built-in model took "what did we agree with the hotel
    // per week" for a statement and kept it).
    let server = TestServer::start_planned_by_meaning(vec![once(
        "rego",
        step(json!({"memory": 1, "answer": "The van's rego is S 482 KLD."})),
    )])
    .await;
    server.remember("Van rego is S 482 KLD", None).await;
    server.meaning_ready().await;
    let sid = server.create_session().await;
    let events = server.converse(&sid, "what's the rego number").await;
    assert!(tools_called(&events).is_empty(), "nothing kept: {events:?}");
    assert!(
        !events.iter().any(|e| e["type"] == "question"),
        "{events:?}"
    );
    let text = assistant_text(&events);
    assert!(text.contains("S 482 KLD"), "{text}");
    assert_eq!(server.memories_about("rego").await.len(), 1);
    // Only the answer step: no judging, no fact worded.
    assert!(text.contains("The van's rego"), "the answer step's: {text}");
    let requests = server.standin.requests_for("rego");
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(
        requests[0]["response_format"]["json_schema"]["schema"]["properties"]["memory"].is_object(),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fact_the_model_rewords_beyond_the_users_words_is_kept_in_theirs() {
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "locker",
        vec![step(
            json!({"kind": "statement", "fact": "The user rents locker 112 at a premium fitness club"}),
        )],
    )])
    .await;
    let sid = server.create_session().await;
    let reply_id = server
        .say(&sid, "btw my locker at the pool is number 112")
        .await;
    let events = server.watch_reply(&sid, &reply_id).await.until_done().await;
    // The model's story is not kept, nor is the user asked: the message
    // is the fact, in their words, without its "btw".
    assert!(
        !events.iter().any(|e| e["type"] == "question"),
        "{events:?}"
    );
    assert_eq!(tools_called(&events), vec!["store"], "{events:?}");
    let saved = server.memories_about("locker").await;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0].content, "My locker at the pool is number 112");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_things_a_question_fits_equally_are_asked_about_and_the_chosen_one_answers() {
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "appointment",
        vec![step(
            json!({"memory": 1, "answer": "The vet appointment is on Friday at 10am."}),
        )],
    )])
    .await;
    let sid = server.create_session().await;
    let (mut events, question) = asked_which_appointment(&server, &sid).await;
    let options: Vec<String> = question["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap().to_string())
        .collect();
    assert_eq!(options.len(), 2, "{question}");
    assert!(options.iter().any(|o| o.contains("Dentist")), "{options:?}");
    assert!(options.iter().any(|o| o.contains("Vet")), "{options:?}");
    let vet = options.iter().find(|o| o.contains("Vet")).unwrap();
    server.answer_ok(&sid, &question["id"], vet).await;
    let events = events.until_done().await;
    let text = assistant_text(&events);
    assert!(text.contains("10am"), "{text}");
    assert!(!text.contains("3pm"), "only the one chosen: {text}");
}

/// Text typed in the chat while Imprint's question waits, through the
/// dashboard's `say`.
async fn say_under(server: &TestServer, sid: &str, question: &Value, text: &str) -> Value {
    let (status, body) = server
        .send(
            server
                .http
                .post(format!("{}/api/dashboard/say", server.url))
                .json(&json!({"sid": sid, "question_id": question["id"], "text": text})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

/// Two appointments saved alike, so "the appointment on friday" is asked
/// about; the question's events.
async fn asked_which_appointment(server: &TestServer, sid: &str) -> (Events, Value) {
    server
        .remember("Dentist appointment Friday 3pm at Smile Clinic", None)
        .await;
    server
        .remember("Vet appointment for Biscuit Friday 10am", None)
        .await;
    server.remember("Spare door code is 5521", None).await;
    server.meaning_ready().await;
    let reply_id = server
        .say(sid, "what time is the appointment on friday?")
        .await;
    let mut events = server.watch_reply(sid, &reply_id).await;
    let question = events.until("question").await.last().unwrap().clone();
    (events, question)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_request_typed_under_a_question_stops_the_wait_and_is_answered() {
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "door code",
        vec![step(
            json!({"memory": 1, "answer": "The spare door code is 5521."}),
        )],
    )])
    .await;
    let sid = server.create_session().await;
    let (mut events, question) = asked_which_appointment(&server, &sid).await;
    let said = say_under(
        &server,
        &sid,
        &question,
        "what's the code for the door again?",
    )
    .await;
    assert_eq!(said["taken_as"], "new_request", "{said}");
    // The wait ended at once: the reply that asked stopped, unanswered.
    let ended = events.until_done().await;
    assert!(types(&ended).contains(&"stopped".to_string()), "{ended:?}");
    // The new request is a turn of its own, answered.
    let new_reply = said["reply_id"].as_str().unwrap();
    let answered = server.watch_reply(&sid, new_reply).await.until_done().await;
    assert!(assistant_text(&answered).contains("5521"), "{answered:?}");
    let messages = server.session(&sid).await["messages"].clone();
    let users: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        users,
        [
            "what time is the appointment on friday?",
            "what's the code for the door again?"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_typed_under_a_question_answers_it() {
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "appointment",
        vec![step(
            json!({"memory": 1, "answer": "The vet appointment is on Friday at 10am."}),
        )],
    )])
    .await;
    let sid = server.create_session().await;
    let (mut events, question) = asked_which_appointment(&server, &sid).await;
    let said = say_under(&server, &sid, &question, "the one for Biscuit").await;
    assert_eq!(said["taken_as"], "answer", "{said}");
    let events = events.until_done().await;
    assert!(assistant_text(&events).contains("10am"), "{events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_that_names_one_of_two_is_not_asked_about() {
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "dentist",
        vec![step(
            json!({"memory": 1, "answer": "Your dentist appointment is on Friday at 3pm."}),
        )],
    )])
    .await;
    server
        .remember("Dentist appointment Friday 3pm at Smile Clinic", None)
        .await;
    server
        .remember("Vet appointment for Biscuit Friday 10am", None)
        .await;
    server.meaning_ready().await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "what time is the dentist appointment on friday?")
        .await;
    assert!(
        !events.iter().any(|e| e["type"] == "question"),
        "{events:?}"
    );
    let text = assistant_text(&events);
    assert!(text.contains("3pm"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reminder_asked_for_with_no_remind_me_is_set_with_the_users_words() {
    // One answer for each step the stand-in may be asked (the kind, if the
    // examples leave it to the model, then the text): strict schemas keep
    // a real model to one field; the stand-in's extra is not read.
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "bins",
        vec![step(
            json!({"kind": "remind", "text": "putting the bins out"}),
        )],
    )])
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "nudge me tomorrow at 18:30 re putting the bins out")
        .await;
    assert_eq!(tools_called(&events), vec!["remind"], "{events:?}");
    let (status, reminders) = server.api.get("/api/reminders").await;
    assert_eq!(status, 200);
    let reminder = &reminders["reminders"][0];
    assert_eq!(reminder["text"], "Putting the bins out", "{reminders}");
    let due = chrono::DateTime::parse_from_rfc3339(reminder["due_at"].as_str().unwrap())
        .expect("an RFC 3339 time")
        .with_timezone(&chrono::Local);
    let tomorrow = chrono::Local::now().date_naive() + chrono::Duration::days(1);
    assert_eq!(
        due.format("%Y-%m-%d %H:%M").to_string(),
        format!("{} 18:30", tomorrow.format("%Y-%m-%d")),
        "{reminders}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_project_list_and_thanks_in_words_no_rule_lists_are_told_by_the_examples() {
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "brilliant",
        vec![Turn::text("Glad I could help!")],
    )])
    .await;
    server
        .remember("Website: launch is on 4 May", Some("Website"))
        .await;
    server
        .remember("Thesis: survey budget 400 EUR", Some("Thesis"))
        .await;
    server.meaning_ready().await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "which projects have I got on the go at the moment")
        .await;
    assert_eq!(tools_called(&events), vec!["list_projects"], "{events:?}");
    let text = assistant_text(&events);
    assert!(
        text.contains("Website") && text.contains("Thesis"),
        "{text}"
    );

    let events = server.converse(&sid, "cheers, that's brilliant").await;
    assert!(tools_called(&events).is_empty(), "{events:?}");
    assert_eq!(assistant_text(&events), "Glad I could help!");
    // One step: the model's own short answer, with no kind judged and no
    // memory looked up for it.
    let requests = server.standin.requests_for("brilliant");
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(requests[0].get("response_format").is_none(), "{requests:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_read_as_the_users_own_is_not_found_rather_than_answered_by_the_model() {
    // Nothing says "my", and nothing saved is about it; but the examples
    // read it as a question about the user's own things, so the model's
    // general knowledge is not the answer.
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "conservatory",
        vec![Turn::text("A conservatory costs about £20,000.")],
    )])
    .await;
    server
        .remember("Dentist appointment on Friday at 10am", None)
        .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "how much did the builder quote for the conservatory?")
        .await;
    let text = assistant_text(&events);
    assert!(text.starts_with("I found nothing about"), "{text}");
    assert!(!text.contains("20,000"), "{text}");
    assert!(
        server.standin.requests_for("conservatory").is_empty(),
        "the model was asked: {:?}",
        server.standin.requests_for("conservatory")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reaction_read_as_small_talk_first_keeps_nothing() {
    // The examples read it as small talk first and a save next (0.38 and
    // 0.33); the model, asked, would call it a statement: it is not asked,
    // as nothing in it is the user's own.
    let server = TestServer::start_planned_by_meaning(vec![
        once("boxes", step(json!({"kind": "statement"}))),
        once(
            "boxes",
            step(json!({"fact": "That's the last of the boxes"})),
        ),
        scenario("boxes", vec![Turn::text("Well done!")]),
    ])
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "phew, that's the last of the boxes")
        .await;
    assert!(tools_called(&events).is_empty(), "{events:?}");
    assert!(server.memories_about("boxes").await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_save_the_examples_are_sure_of_is_kept_though_the_model_would_call_it_a_question() {
    // The classifier reads it as a save at 0.7 or more, and it does not
    // ask: the model is not asked whether it tells (the built-in model
    // called such a note a question); only the fact is worded.
    let server = TestServer::start_planned_by_meaning(vec![
        once("allotment", step(json!({"kind": "question"}))),
        once(
            "allotment",
            step(json!({"fact": "The allotment gate code is now 4417"})),
        ),
    ])
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, "fyi the allotment gate code is now 4417")
        .await;
    assert_eq!(tools_called(&events), vec!["store"], "{events:?}");
    let saved = server.memories_about("allotment").await;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].content.contains("4417"), "{saved:?}");
    let requests = server.standin.requests_for("allotment");
    assert_eq!(requests.len(), 1, "only the fact worded: {requests:?}");
    assert!(
        requests[0]["response_format"]["json_schema"]["schema"]["properties"]["fact"].is_object(),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thing_asked_for_in_other_words_than_the_memorys_is_found_among_near_misses() {
    // An address is where someone lives, the flight home is the flight
    // back, a birthday the day someone was born, mum and dad's the
    // parents' house. Meaning alone does not carry all of these (session
    // 40: "nana's address" is nearer the landline, 0.743, than "lives
    // at", 0.730; alone, "mum" is nearer "dad" than "parents"), so the
    // words people write for one thing stay a table beside it. No
    // scenario: the stand-in's reply is no answer, so what is said is the
    // memory Imprint itself found.
    let server = TestServer::start_planned_by_meaning(vec![]).await;
    server
        .remember_all(&[
            "Nana Maureen lives at 41 Ashgrove Road",
            "Nana Maureen's landline: 01632 960 118",
            "Flight back from Porto 2 Jan, Ryanair FR8824, booking ref JW4TXA",
            "Hotel in Porto: Casa Azul, booking ref HX22PQ",
            "Theo was born 2018-06-14",
            "Theo's school office phone 0161 555 0190",
            "Parents' house wifi: Bluebell#77",
            "Office wifi password: Quill2026",
        ])
        .await;
    server.meaning_ready().await;
    for (request, wanted, not_wanted) in [
        (
            "nana's adress? want to post her a card",
            "41 Ashgrove Road",
            "01632",
        ),
        (
            "booking code for the flight home from porto?",
            "JW4TXA",
            "HX22PQ",
        ),
        ("when is Theo's birthday?", "2018-06-14", "0190"),
        (
            "what's the wifi password at mum and dad's?",
            "Bluebell#77",
            "Quill2026",
        ),
    ] {
        let sid = server.create_session().await;
        let events = server.converse(&sid, request).await;
        let text = assistant_text(&events);
        assert!(text.contains(wanted), "{request:?}: {text}");
        assert!(!text.contains(not_wanted), "{request:?}: {text}");
        assert!(tools_called(&events).is_empty(), "{request:?}: {events:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_naming_none_of_the_options_is_looked_up_by_its_words() {
    // No scenario: what is said is the memory Imprint itself found.
    let server = TestServer::start_planned_by_meaning(vec![]).await;
    server
        .remember_all(&[
            "Book deadline: final text to the editor by 15 Jan",
            "Book grant report deadline 20 Jan",
            "Print files to Nordtryk by 1 Mar",
            "Spare door code is 5521",
        ])
        .await;
    server.meaning_ready().await;
    let sid = server.create_session().await;
    let reply_id = server.say(&sid, "when's the deadline for the book").await;
    let mut events = server.watch_reply(&sid, &reply_id).await;
    let question = events.until("question").await.last().unwrap().clone();
    let options = question["options"].to_string();
    assert!(options.contains("Book deadline"), "{question}");
    assert!(!options.contains("Nordtryk"), "not an option: {question}");
    // The deadline meant is none of the options, in the user's words.
    server
        .answer_ok(&sid, &question["id"], "the print files to nordtryk")
        .await;
    let events = events.until_done().await;
    let text = assistant_text(&events);
    assert!(text.contains("1 Mar"), "{text}");
    for other in ["15 Jan", "20 Jan", "5521"] {
        assert!(!text.contains(other), "{other}: {text}");
    }
    // The exchange stays in history, the answer as typed.
    let messages = server.session(&sid).await["messages"].to_string();
    assert!(
        messages.contains("the print files to nordtryk"),
        "{messages}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_save_that_names_nothing_to_keep_asks_what() {
    // The model words "got something i need you to remember" as a fact
    // that only asks to keep: nothing is kept unasked, the user is asked
    // what, and the answer is kept.
    let server = TestServer::start_planned_by_meaning(vec![scenario(
        "got something",
        vec![step(
            json!({"kind": "statement", "fact": "I need to remember something"}),
        )],
    )])
    .await;
    let sid = server.create_session().await;
    let reply_id = server
        .say(&sid, "got something i need you to remember")
        .await;
    let mut events = server.watch_reply(&sid, &reply_id).await;
    let question = events.until("question").await.pop().unwrap();
    assert_eq!(question["question"], "What should I save?", "{question}");
    server
        .answer_ok(&sid, &question["id"], "the bin men come on thursdays now")
        .await;
    let events = events.until_done().await;
    assert_eq!(tools_called(&events), vec!["store"], "{events:?}");
    let saved = server.memories_about("bin men").await;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(server.memories_about("something").await.is_empty());
}
