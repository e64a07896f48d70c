//! Grounding's tests: times, projects, references' answers, recurrence.

use super::when::tests::now;
use super::*;
use app::protocol::QuestionReason;

#[test]
fn a_request_asks_for_the_writes_its_words_ask_for() {
    assert_eq!(writes_asked("What do I know about tea?"), WritesAsked::NONE);
    assert_eq!(
        writes_asked("Remind me to call Anna."),
        WritesAsked {
            save: false,
            remind: true
        }
    );
    assert_eq!(
        writes_asked("Save that Anna likes green tea"),
        WritesAsked {
            save: true,
            remind: false
        }
    );
}

#[test]
fn a_reminders_text_leaves_out_a_time_set_against_an_event() {
    for (request, text) in [
        (
            "remind me at 8am the day before the audit to print the receipts",
            "Print the receipts",
        ),
        (
            "remind me at 3pm on the day of the recital to tune the violin",
            "Tune the violin",
        ),
        (
            "remind me at 6pm the evening before the ferry to pack the bags",
            "Pack the bags",
        ),
    ] {
        assert_eq!(reminder_text(request).as_deref(), Some(text), "{request}");
    }
}

#[test]
fn the_reminders_text_comes_from_the_request() {
    assert_eq!(
        reminder_text("Remind me to call Anna.").as_deref(),
        Some("Call Anna")
    );
    assert_eq!(
        reminder_text("please remind me about the dentist!").as_deref(),
        Some("The dentist")
    );
    // "Don't let me forget …": what follows, with or without "that".
    assert_eq!(
        reminder_text("don't let me forget that the boiler engineer is coming").as_deref(),
        Some("The boiler engineer is coming")
    );
    assert_eq!(
        reminder_text("Don't let me forget my passport").as_deref(),
        Some("My passport")
    );
    // Politeness that closes the request is no part of it.
    assert_eq!(
        reminder_text("remind me to water the plants pls").as_deref(),
        Some("Water the plants")
    );
    // A date with dots and the Nordic clock word between "remind me" and
    // what to do.
    assert_eq!(
        reminder_text("remind me 4.1. kl 10:00 to send the vat papers").as_deref(),
        Some("Send the vat papers")
    );
    // The time first, after "for", and when said by another event (the
    // ask evaluation's prompts, session 12).
    assert_eq!(
        reminder_text("Set a reminder for December 3 at 10:00 to renew my passport.").as_deref(),
        Some("Renew my passport")
    );
    assert_eq!(
        reminder_text("Remind me before the flight to check in.").as_deref(),
        Some("Check in")
    );
    assert_eq!(reminder_text("Set a reminder"), None);
    // A time, and nothing to be reminded of.
    assert_eq!(
        reminder_text("reminder for tmrw, half 3 in the afternoon"),
        None
    );
    assert_eq!(reminder_text("remind me tomorrow at 5pm"), None);
    // Nothing said but when, against an event: the event.
    assert_eq!(
        reminder_text("remind me an hour before the school play pls").as_deref(),
        Some("The school play")
    );
    assert_eq!(
        reminder_text("remind me at 7am on the day of the marathon").as_deref(),
        Some("The marathon")
    );
    // Jotted as a time, a mark, then what to do.
    for (request, text) in [
        ("1 hr 20 min - check the kiln", "Check the kiln"),
        ("fri 5pm: email the Carters", "Email the Carters"),
        ("tmrw 8am, call the school pls", "Call the school"),
        ("18:00 - take the bins out", "Take the bins out"),
    ] {
        assert!(asks_for_reminder(request), "{request}");
        assert_eq!(reminder_text(request).as_deref(), Some(text), "{request}");
    }
    // A time before a fact, a question, or words of no time are no such
    // reminder.
    for request in [
        "2pm - meeting moved to room 4",
        "tomorrow, can you check the kiln?",
        "later - check the kiln",
        "Note: check the kiln",
    ] {
        assert!(!asks_for_reminder(request), "{request}");
    }
    assert_eq!(reminder_text("remind me"), None);
}
use serde_json::json;

fn words(request: &str) -> UserWords<'_> {
    UserWords {
        request,
        answers: &[],
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    }
}

fn projects() -> Vec<String> {
    vec!["Website".into(), "Thesis".into(), "Garden".into()]
}

fn run_at(verdict: Verdict) -> String {
    match verdict {
        Verdict::Run(args) => args["at"].as_str().unwrap().to_string(),
        other => panic!("expected a run, got {other:?}"),
    }
}

#[test]
fn a_time_the_user_gave_replaces_the_models_guess() {
    let args = json!({"text": "Call Anna", "at": "2026-11-30T10:00"});
    let at = run_at(check(
        REMIND,
        &args,
        &words("Remind me tomorrow at 9 to call Anna."),
        &[],
        now(),
    ));
    assert!(at.starts_with("2026-12-01T09:00:00"), "{at}");
    let at = run_at(check(
        REMIND,
        &args,
        &words("remind me in 2 hours to stretch"),
        &[],
        now(),
    ));
    assert!(at.starts_with("2026-11-30T12:40:00"), "{at}");
}

#[test]
fn a_day_alone_keeps_the_models_time_on_that_day_or_asks_what_time() {
    let request = words("Remind me on Friday to submit the report");
    let on_friday = json!({"text": "report", "at": "2026-12-04T14:00"});
    assert!(run_at(check(REMIND, &on_friday, &request, &[], now())).starts_with("2026-12-04T14:00"));
    let wrong_day = json!({"text": "report", "at": "2026-11-30T14:00"});
    let Verdict::Ask(need) = check(REMIND, &wrong_day, &request, &[], now()) else {
        panic!("a time on another day is the model's guess: asked");
    };
    assert_eq!(need.options()[0], "4 Dec (Fri), 09:00");
}

#[test]
fn a_time_the_user_never_gave_is_a_question() {
    for request in [
        "Remind me about the dentist.",
        "Remind me to send the invoice",
        "Set a reminder to call Anna",
        "Please remind me to water the plants",
    ] {
        let args = json!({"text": "x", "at": "2026-11-30T10:40:00Z"});
        let Verdict::Ask(need) = check(REMIND, &args, &words(request), &[], now()) else {
            panic!("{request}: expected a question");
        };
        assert!(
            need.question().starts_with("What time should I remind you"),
            "{request}"
        );
        assert!(need.options().len() >= 3, "{request}: {:?}", need.options());
    }
    let Verdict::Ask(need) = check(
        REMIND,
        &json!({"text": "Send the invoice"}),
        &words("Remind me to send the invoice."),
        &[],
        now(),
    ) else {
        panic!("expected a question");
    };
    assert_eq!(
        need.question(),
        "What time should I remind you to send the invoice?"
    );
}

#[test]
fn an_answer_grounds_the_time() {
    let answers = vec!["tomorrow at 10".to_string()];
    let words = UserWords {
        request: "Remind me about the dentist",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let at = run_at(check(
        REMIND,
        &json!({"text": "dentist", "at": "x"}),
        &words,
        &[],
        now(),
    ));
    assert!(at.starts_with("2026-12-01T10:00"), "{at}");
}

#[test]
fn time_answers_resolve_from_options_and_own_words() {
    let need = time_need(
        &json!({"text": "dentist"}),
        &words("remind me about the dentist"),
        None,
        now(),
    );
    assert_eq!(
        need.options(),
        vec![
            "This evening, 18:00",
            "Tomorrow, 09:00",
            "Tomorrow, 18:00",
            "Monday, 09:00"
        ]
    );
    let Ok(Resolved::Time(t)) = need.resolve("tomorrow, 09:00", now()) else {
        panic!("an option resolves");
    };
    assert_eq!(iso(t).get(..16), Some("2026-12-01T09:00"));
    let Ok(Resolved::Time(t)) = need.resolve("Friday at 3pm", now()) else {
        panic!("own words resolve");
    };
    assert_eq!(iso(t).get(..16), Some("2026-12-04T15:00"));
    assert!(need
        .resolve("whenever", now())
        .unwrap_err()
        .contains("could not read"));
    assert!(need
        .resolve("2020-01-01T09:00", now())
        .unwrap_err()
        .contains("passed"));
}

#[test]
fn projects_follow_the_users_words() {
    let p = projects();
    // Named: the model's guess is corrected.
    let v = check(
        SEARCH,
        &json!({"query": "hosting", "project": "Notes"}),
        &words("What did I note about hosting in the website project?"),
        &p,
        now(),
    );
    assert_eq!(
        v,
        Verdict::Run(json!({"query": "hosting", "project": "Website"}))
    );
    // Never mentioned: the model's project is dropped.
    let v = check(
        SEARCH,
        &json!({"query": "wifi", "project": "Home"}),
        &words("Search my memories for the wifi password"),
        &p,
        now(),
    );
    assert_eq!(v, Verdict::Run(json!({"query": "wifi"})));
    let v = check(
        STORE,
        &json!({"content": "bike code 4312", "project": "Bike"}),
        &words("Save a memory: my bike lock code is 4312"),
        &p,
        now(),
    );
    assert_eq!(v, Verdict::Run(json!({"content": "bike code 4312"})));
    // "the project" among several: a question with recent projects.
    for request in [
        "Find my notes from the project.",
        "Add to my project notes that the deadline moved",
        "What did we decide in this project?",
    ] {
        let v = check(
            SEARCH,
            &json!({"query": "notes", "project": "Website"}),
            &words(request),
            &p,
            now(),
        );
        assert_eq!(
            v,
            Verdict::Ask(Need::Project { options: p.clone() }),
            "{request}"
        );
    }
    let v = check(
        LIST_PROJECTS,
        &json!({}),
        &words("Find my notes from the project."),
        &p,
        now(),
    );
    assert!(matches!(v, Verdict::Ask(Need::Project { .. })));
    // A project the user named is kept even when it is new.
    let v = check(
        STORE,
        &json!({"content": "c", "project": "Bakery"}),
        &words("Save c in my Bakery project"),
        &p,
        now(),
    );
    assert_eq!(
        v,
        Verdict::Run(json!({"content": "c", "project": "Bakery"}))
    );
    let v = check(
        STORE,
        &json!({"content": "c", "project": "Notes"}),
        &words("Save my notes to the project"),
        &p,
        now(),
    );
    assert!(matches!(v, Verdict::Ask(Need::Project { .. })), "{v:?}");
    assert!(named_as_project("put it in project Big Plan", "big plan"));
    // With one project there is nothing to ask.
    let one = vec!["Thesis".to_string()];
    let v = check(
        STORE,
        &json!({"content": "c"}),
        &words("Store this in the project: c"),
        &one,
        now(),
    );
    assert_eq!(
        v,
        Verdict::Run(json!({"content": "c", "project": "Thesis"}))
    );
    // Listing projects is not a reference to one.
    assert!(!refers_to_a_project("Which projects do I have?"));
    assert!(!refers_to_a_project("list my projects"));
    // A name inside another word is not a mention.
    assert_eq!(position_of("gardening tips", "Garden"), None);
    assert_eq!(position_of("the Garden bed", "garden"), Some(4));
}

#[test]
fn an_unnamed_project_among_several_is_settled_first() {
    let p = projects();
    assert!(unnamed_project("What did we decide in the project?", &p).is_some());
    assert!(unnamed_project("Save this to my project: approved", &p).is_some());
    assert_eq!(
        unnamed_project("What did we decide in the Thesis project?", &p),
        None
    );
    assert_eq!(unnamed_project("What did we decide?", &p), None);
    assert_eq!(unnamed_project("the project", &p[..1]), None);
}

#[test]
fn project_answers_resolve_to_a_known_name_or_the_users_own() {
    let need = Need::Project {
        options: projects(),
    };
    assert_eq!(
        need.resolve("thesis", now()),
        Ok(Resolved::Project("Thesis".into()))
    );
    assert_eq!(
        need.resolve("the garden one", now()),
        Ok(Resolved::Project("Garden".into()))
    );
    assert_eq!(
        need.resolve("Bakery", now()),
        Ok(Resolved::Project("Bakery".into()))
    );
    assert!(need.resolve("  ", now()).is_err());
}

/// Imprint's "Which one do you mean?" about `phrase`, between
/// candidates of one memory each, as (label, memory line).
fn which_one(phrase: &str, candidates: &[(&str, &str)]) -> Need {
    Need::Reference {
        phrase: phrase.into(),
        question: "Which one do you mean?".into(),
        candidates: candidates
            .iter()
            .map(|(label, memory)| reference::Candidate {
                label: (*label).into(),
                memories: vec![(*memory).into()],
            })
            .collect(),
    }
}

#[test]
fn reference_answers_resolve_to_a_candidate_or_the_users_words() {
    let candidate = |label: &str, id: i64| reference::Candidate {
        label: label.into(),
        memories: vec![format!("[{id}] {label}")],
    };
    let need = Need::Reference {
        phrase: "the meeting".into(),
        question: "Which meeting do you mean?".into(),
        candidates: vec![
            candidate("Billing meeting (12 Nov)", 1),
            candidate("Imprint sync (20 Nov)", 2),
        ],
    };
    assert_eq!(need.kind(), NeedKind::Reference);
    let memory = |label: &str, id: i64| {
        Ok(Resolved::Memory {
            label: label.into(),
            memories: vec![format!("[{id}] {label}")],
            phrase: "the meeting".into(),
        })
    };
    assert_eq!(
        need.resolve("billing meeting (12 nov)", now()),
        memory("Billing meeting (12 Nov)", 1)
    );
    assert_eq!(
        need.resolve("the imprint one", now()),
        memory("Imprint sync (20 Nov)", 2)
    );
    assert_eq!(
        need.resolve("the one with the dentist", now()),
        Ok(Resolved::Meant("the one with the dentist".into()))
    );
    assert!(need.resolve(" ", now()).is_err());
    // A name points at its possessive: "Marta" is "Marta's phone number".
    let numbers = Need::Reference {
        phrase: "her".into(),
        question: "Who do you mean by “her”?".into(),
        candidates: vec![
            candidate("Anna's phone number is 1 (1 Apr)", 3),
            candidate("Marta's phone number is 2 (2 Apr)", 4),
        ],
    };
    // The chosen memory keeps the phrase Imprint asked about.
    assert_eq!(
        numbers.resolve("Marta", now()),
        Ok(Resolved::Memory {
            label: "Marta's phone number is 2 (2 Apr)".into(),
            memories: vec!["[4] Marta's phone number is 2 (2 Apr)".into()],
            phrase: "her".into(),
        })
    );
    // Words both share point at neither.
    assert_eq!(
        numbers.resolve("the phone number", now()),
        Ok(Resolved::Meant("the phone number".into()))
    );
    // Words no label holds point at the memory that holds most of them.
    let orders = which_one(
        "the order number",
        &[
            (
                "Order PX-118 (3 Apr)",
                "[5] Order PX-118: spring seed potatoes for the allotment",
            ),
            (
                "Order PX-181 (4 Apr)",
                "[6] Order PX-181: a new hose and two watering cans",
            ),
        ],
    );
    assert!(matches!(
        orders.resolve("the seed potatoes for the allotment", now()),
        Ok(Resolved::Memory { label, .. }) if label == "Order PX-118 (3 Apr)"
    ));
    assert_eq!(
        orders.resolve("the cheaper one", now()),
        Ok(Resolved::Meant("the cheaper one".into()))
    );
    // Labels that share the answer's name point at neither; the memory
    // that holds most of what it says does ("ines ruas, who rents us the
    // flat" is the rent's memory, not Ines's car).
    let ines = which_one(
        "ines's number",
        &[
            (
                "Ines's car (3 Apr)",
                "[7] Ines's car: a red Fiat Panda, 06-KL-93",
            ),
            (
                "Flat rent (4 Apr)",
                "[8] Flat rent: 950 a month to Ines Ruas, 912 044 377",
            ),
            (
                "Ines's sister (5 Apr)",
                "[9] Ines's sister Joana lives in Braga",
            ),
        ],
    );
    assert!(matches!(
        ines.resolve("ines ruas, the flat", now()),
        Ok(Resolved::Memory { label, .. }) if label == "Flat rent (4 Apr)"
    ));
    // A polite word names nothing: "the car please" is Ines's car.
    assert!(matches!(
        ines.resolve("the car please", now()),
        Ok(Resolved::Memory { label, .. }) if label == "Ines's car (3 Apr)"
    ));
    // One label shares a name, but its memory holds little else of the
    // answer: the one meant is not among them, in the user's words.
    let bikes = which_one(
        "rakel's number",
        &[
            (
                "Rakel's bike (1 May)",
                "[10] Rakel's bike: green, lock code 4411",
            ),
            ("Garden shed (2 May)", "[11] Garden shed: padlock 2290"),
        ],
    );
    assert_eq!(
        bikes.resolve("rakel dias, the bride", now()),
        Ok(Resolved::Meant("rakel dias, the bride".into()))
    );
    // A polite word or a verb of saying is not what the answer names.
    assert!(matches!(
        bikes.resolve("i mean rakel's bike thanks", now()),
        Ok(Resolved::Memory { label, .. }) if label == "Rakel's bike (1 May)"
    ));
    // A reference changes no argument of a call.
    let args = json!({"query": "x"});
    assert_eq!(Resolved::Meant("y".into()).apply(&args), args);
    assert_eq!(
        memory("Imprint sync (20 Nov)", 2).unwrap().describe(),
        "Imprint sync (20 Nov)"
    );
}

#[test]
fn a_reminder_with_no_time_is_asked_before_the_model_starts() {
    for (request, about) in [
        ("Remind me to send the invoice.", "to send the invoice"),
        (
            "Remind me every day to take my medicine",
            "every day to take my medicine",
        ),
        ("Set a reminder to call Anna", "to call Anna"),
        (
            "Remind me before the flight to check in",
            "before the flight to check in",
        ),
        ("Remind me about it next week.", "about it next week"),
    ] {
        let need = unstated_time(&words(request), now())
            .unwrap_or_else(|| panic!("{request}: a question"));
        assert_eq!(
            need.question(),
            format!("What time should I remind you {about}?"),
            "{request}"
        );
    }
    // A day with no time of day is asked about too, with times on it.
    let need = unstated_time(&words("Remind me on Friday to submit the report"), now())
        .expect("what time on Friday");
    assert_eq!(
        need.question(),
        "What time on Friday 4 December should I remind you to submit the report?"
    );
    for request in [
        "Remind me tomorrow at 9 to call Anna",
        "Remind me every day at 8 to stretch",
        "Remind me on Friday at 4pm to submit the report",
        "Remind me on Friday morning to submit the report",
        "What did we decide in the meeting?",
    ] {
        assert_eq!(unstated_time(&words(request), now()), None, "{request}");
    }
    // "Next week": days of next week, read back as the same moments.
    let need = unstated_time(&words("Remind me next week to water the plants"), now()).unwrap();
    assert_eq!(
        need.options(),
        [
            "7 Dec (Mon), 09:00",
            "9 Dec (Wed), 09:00",
            "11 Dec (Fri), 09:00"
        ]
    );
    for option in need.options() {
        let Ok(Resolved::Time(t)) = need.resolve(&option, now()) else {
            panic!("{option} resolves");
        };
        assert_eq!(
            when::stated(&option, now()).and_then(when::Stated::moment),
            Some(t),
            "{option}"
        );
    }
    // An answer that says when settles it.
    let answers = vec!["tomorrow at 10".to_string()];
    let answered = UserWords {
        request: "Remind me to send the invoice",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    assert_eq!(unstated_time(&answered, now()), None);
}

#[test]
fn a_date_that_reads_two_ways_is_asked_with_both_readings() {
    // No locale to say whether "3/4" is 3 April or March 4.
    let said = words("Remind me on 3/4 to pay the rent");
    let (written, options) = two_way_options(&said, now(), None).expect("two readings");
    assert_eq!(written, "3/4");
    let labels: Vec<&str> = options.iter().map(|(label, _)| label.as_str()).collect();
    assert_eq!(labels, ["4 Mar (Thu), 09:00", "3 Apr (Sat), 09:00"]);
    // Each option reads back as its own moment.
    for (label, t) in &options {
        assert_eq!(
            when::stated(label, now()).and_then(Stated::moment),
            Some(*t),
            "{label}"
        );
    }
    // A locale that says which, or a date that reads one way: no choice.
    let day_first = Some(when::DateOrder::DayFirst);
    assert_eq!(two_way_options(&said, now(), day_first), None);
    assert_eq!(
        two_way_options(&words("Remind me on 14/12 to pay"), now(), None),
        None
    );
    let need = Need::Time {
        about: "to pay the rent".into(),
        day: None,
        options,
        two_way: Some(written),
        unread_zone: None,
    };
    assert_eq!(
        need.question(),
        "Which day is “3/4”: when should I remind you to pay the rent?"
    );
    assert_eq!(
        need.reason().words(),
        "“3/4” could have the day or the month first"
    );
    assert_eq!(need.options(), ["4 Mar (Thu), 09:00", "3 Apr (Sat), 09:00"]);
}

#[test]
fn a_searchs_dates_come_from_the_users_words() {
    let args = json!({"query": "notes", "project": "Website", "since": "2026-11-30", "until": "2026-11-30"});
    let guessed = dates_from_user(&args, &words("Find my notes from the project."), now());
    assert_eq!(guessed, json!({"query": "notes", "project": "Website"}));
    let said = dates_from_user(
        &args,
        &words("Search project Website for notes since 2026-11-01"),
        now(),
    );
    assert_eq!(said, args);
}

#[test]
fn a_reminders_recurrence_comes_from_the_users_words() {
    let at = |t: &str| json!({"text": "pills", "at": t, "repeat": "weekly"});
    // Said: kept as said, and 09:00 today (passed) moves to tomorrow.
    let daily = recurring(
        &at("2026-11-30T09:00:00"),
        &words("Remind me every day at 9 to take my pills"),
        now(),
    );
    assert_eq!(daily["repeat"], "daily");
    assert!(
        daily["at"]
            .as_str()
            .unwrap()
            .starts_with("2026-12-01T09:00"),
        "{daily}"
    );
    // Never said: the model's guess is dropped.
    let once = recurring(
        &at("2026-12-01T09:00:00"),
        &words("Remind me tomorrow at 9 to take my pills"),
        now(),
    );
    assert_eq!(once.get("repeat"), None);
    assert!(once["at"].as_str().unwrap().starts_with("2026-12-01T09:00"));
    let weekdays = recurring(
        &at("2026-12-05T08:00:00"),
        &words("remind me on weekdays at 8 to stand up"),
        now(),
    );
    assert_eq!(weekdays["repeat"], "weekdays");
    assert!(weekdays["at"]
        .as_str()
        .unwrap()
        .starts_with("2026-12-07T08:00"));
    // The user's answer may say it too.
    let answers = vec!["every Monday at 10".to_string()];
    let answered = UserWords {
        request: "Remind me to take out the bins",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    assert_eq!(
        recurring(&at("2026-12-07T10:00:00"), &answered, now())["repeat"],
        "weekly"
    );
}

#[test]
fn writes_the_user_never_asked_for_are_refused() {
    let p = projects();
    for request in [
        "Find my notes from the project.",
        "What did we decide?",
        "Remind me later",
    ] {
        let v = check(STORE, &json!({"content": "x"}), &words(request), &p, now());
        assert!(matches!(v, Verdict::Refuse(_)), "{request}: {v:?}");
    }
    for request in [
        "Find my notes from the project.",
        "Save that the deadline moved",
        "What time is it?",
    ] {
        let v = check(
            REMIND,
            &json!({"text": "x", "at": "2026-12-01T09:00"}),
            &words(request),
            &p,
            now(),
        );
        assert!(matches!(v, Verdict::Refuse(_)), "{request}: {v:?}");
    }
    for request in [
        "Save a memory: bike code 4312",
        "Remember that Anna likes tea",
        "Please note that the deadline moved",
        "Add to my notes: buy milk",
        "Write this down: 42",
        "Don't forget my locker is 12",
    ] {
        assert!(asks_to_save(request), "{request}");
    }
    for request in [
        "Set a reminder to call Anna",
        "Remind me tomorrow",
        "Wake me at 7",
        "Don't let me forget the keys",
        "I need a reminder",
        "set an alarm for 6:30 tomorrow",
        "alarm 6am tomorrow",
        "an alert on friday at 9 pls",
        "ping me about the bins",
    ] {
        assert!(asks_for_reminder(request), "{request}");
    }
    // An alarm or an alert of something else asks for no reminder.
    for request in [
        "new alarm code for the studio is 7731",
        "the smoke alarm is beeping",
        // A time in a story told after it.
        "hey whats the alarm code at the shed, ben is opening up tomorrow",
        "the alarm company is coming friday at 10, is that right?",
    ] {
        assert!(!asks_for_reminder(request), "{request}");
    }
}

#[test]
fn other_tools_and_odd_arguments_pass_through() {
    let v = check(
        "ask_user",
        &json!({"question": "q"}),
        &words("x"),
        &[],
        now(),
    );
    assert_eq!(v, Verdict::Run(json!({"question": "q"})));
    let v = check(REMIND, &json!("text"), &words("remind me"), &[], now());
    assert_eq!(v, Verdict::Run(json!("text")));
}

#[test]
fn the_one_option_the_user_named() {
    let options: Vec<String> = vec!["Website".into(), "Thesis".into()];
    let named = |request: &str| words(request).the_one_named(&options).map(str::to_string);
    assert_eq!(
        named("Find my notes from the Website project."),
        Some("Website".into())
    );
    // Whole words only, and not when the user named several.
    assert_eq!(named("Find my websites."), None);
    assert_eq!(named("Website or Thesis, whichever is newer."), None);
    assert_eq!(named("Find my notes."), None);
    // An answer given during the reply counts too.
    let answers = vec!["the thesis one".to_string()];
    let with_answer = UserWords {
        request: "Find my notes from the project.",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    assert_eq!(with_answer.the_one_named(&options), Some("Thesis"));
}

#[test]
fn what_to_save_comes_from_the_users_words() {
    let cases = [
        // A clock time's colon is no separator, and keeping words that
        // close the request are not kept.
        (
            "Lena's train gets in at 16:40 on Saturday, save that",
            Some("Lena's train gets in at 16:40 on Saturday"),
        ),
        // A sentence that ends with "!" before the keeping words.
        (
            "our choir came second at the county festival!! save it pls",
            Some("Our choir came second at the county festival"),
        ),
        (
            "Note: the gate code is 12:34 until Friday",
            Some("The gate code is 12:34 until Friday"),
        ),
        (
            "Save to the Website project: the client approved the mockups.",
            Some("The client approved the mockups."),
        ),
        (
            "Remember that Anna likes green tea",
            Some("Anna likes green tea"),
        ),
        ("Please note that the VPS moved", Some("The VPS moved")),
        // What it is about, said before the colon, is kept with it.
        (
            "Write down the password hint for my email account: the first street.",
            Some("Password hint for my email account: the first street."),
        ),
        (
            "Note this: the gate code is 4711",
            Some("The gate code is 4711"),
        ),
        ("Add to my notes: buy oat milk", Some("Buy oat milk")),
        // A polite wrapper before the verb, or words between the verb and
        // "that" (helper-written requests, session 12).
        (
            "could you jot down that my new bike lock combination is 3092",
            Some("My new bike lock combination is 3092"),
        ),
        (
            "Can you make a note that the boiler was serviced on 3 May",
            Some("The boiler was serviced on 3 May"),
        ),
        (
            "don't forget that Mia's flat is number 14B",
            Some("Mia's flat is number 14B"),
        ),
        // Keeping words that close it, with words after them that say
        // nothing of what to keep, and a spoken lead-in.
        (
            "ok so the tracking number for the kettle parcel is RM884123070GB, keep that somewhere for me",
            Some("The tracking number for the kettle parcel is RM884123070GB"),
        ),
        // Courtesy is one list (`courtesy`): the same words open a save,
        // and close it, as open any other request.
        (
            "hi Imprint, kindly write down that the gate code is 4711",
            Some("The gate code is 4711"),
        ),
        (
            "the gate code is 4711, save that please, thank you!",
            Some("The gate code is 4711"),
        ),
        // What to keep is not said plainly, or nothing is to be kept.
        ("Save the hosting report", None),
        ("Save this:", None),
        ("What is the time: now?", None),
    ];
    for (request, expected) in cases {
        assert_eq!(what_to_save(request).as_deref(), expected, "{request}");
    }
}

#[test]
fn a_memorys_content_holds_what_the_user_said_to_keep() {
    let stored = |request: &str, content: &str| {
        let words = UserWords {
            request,
            answers: &[],
            judged: crate::tools::WritesAsked::NONE,
            event: None,
        };
        memory_content_from_user(&json!({"content": content}), &words)["content"].clone()
    };
    // The built-in model kept the number and lost what it is.
    assert_eq!(
        stored("Save the new PIN 4321 for my bank account.", "4321"),
        "New PIN 4321 for my bank account."
    );
    assert_eq!(
        stored(
            "Write down the password hint for my email account: the first street.",
            "the first street"
        ),
        "Password hint for my email account: the first street."
    );
    // Said in other words, but said: kept as the model wrote it.
    for (request, content) in [
        (
            "Please remember my wifi password is hunter2",
            "Wifi password: hunter2",
        ),
        (
            "Note the meeting moved to Friday",
            "The meeting has been moved to Friday",
        ),
        (
            "Remember that Anna likes green tea",
            "Anna likes green tea.",
        ),
    ] {
        assert_eq!(stored(request, content), content, "{request}");
    }
    // A closing clause that only asks to keep: what comes before it, in
    // the user's words, whatever the model wrote.
    for request in [
        "My wifi password is hunter2, can you keep it?",
        "My wifi password is hunter2 - jot it down for me somewhere safe",
        "My wifi password is hunter2, save that pls",
    ] {
        assert_eq!(
            stored(request, "hunter2"),
            "My wifi password is hunter2",
            "{request}"
        );
    }
    // A closing clause that says more is not only asking to keep.
    assert_ne!(
        stored(
            "My wifi password is hunter2, keep the old one too",
            "hunter2"
        ),
        "My wifi password is hunter2"
    );
}

#[test]
fn a_reminders_text_shares_the_users_words_or_is_theirs() {
    let answers = vec!["Tom".to_string()];
    let words = UserWords {
        request: "Remind me to call him tomorrow at 9.",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    // Imprint's note copied as the text: nothing the user said.
    let copied =
        json!({"text": "remind now with the text and that time", "at": "2030-01-01T09:00"});
    assert_eq!(
        reminder_text_from_user(&copied, &words, None, None)["text"],
        "Call him"
    );
    for kept in ["Call Tom", "call him"] {
        let args = json!({"text": kept, "at": "2030-01-01T09:00"});
        assert_eq!(
            reminder_text_from_user(&args, &words, None, None)["text"],
            kept
        );
    }
    // A note, not a sentence.
    let words_said = UserWords {
        request: "Remind me to send the invoice.",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let args = json!({"text": "Send the invoice.", "at": "2030-01-01T09:00"});
    assert_eq!(
        reminder_text_from_user(&args, &words_said, None, None)["text"],
        "Send the invoice"
    );
    // The time is the reminder's `at`, not its text.
    let args = json!({"text": "Call Tom tomorrow at 9", "at": "2030-01-01T09:00"});
    assert_eq!(
        reminder_text_from_user(&args, &words, None, None)["text"],
        "Call Tom"
    );
    // The request copied: what it asks to be reminded of.
    let words = UserWords {
        request: "Remind me about the dentist next Monday at 10.",
        answers: &[],
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let args =
        json!({"text": "Remind me about the dentist next Monday at 10", "at": "2030-01-07T10:00"});
    assert_eq!(
        reminder_text_from_user(&args, &words, None, None)["text"],
        "The dentist"
    );
    // "him" said to be Tom: a text of no substance ("call me") is the
    // request's, with Tom in it.
    let words = UserWords {
        request: "Remind me to call him tomorrow at 9.",
        answers: &[],
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    for text in ["call me", "Call him"] {
        let args = json!({"text": text, "at": "2030-01-01T09:00"});
        assert_eq!(
            reminder_text_from_user(&args, &words, Some("Tom"), None)["text"],
            "Call Tom",
            "{text}"
        );
    }
    // A long answer is not put in the text.
    let args = json!({"text": "call him", "at": "2030-01-01T09:00"});
    assert_eq!(
        reminder_text_from_user(
            &args,
            &words,
            Some("the man who fixed our roof last spring"),
            None
        )["text"],
        "call him"
    );
    // "Remind me about it": a text that is only the reference is the
    // user's answer, however long.
    let words = UserWords {
        request: "remind me about it tomorrow at 9",
        answers: &[],
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    for text in ["It", "it.", ""] {
        let args = json!({"text": text, "at": "2030-01-01T09:00"});
        assert_eq!(
            reminder_text_from_user(
                &args,
                &words,
                Some("picking up the parcel from the post office"),
                None
            )["text"],
            "picking up the parcel from the post office",
            "{text:?}"
        );
    }
    // Or the thing the user chose from Imprint's options.
    let args = json!({"text": "It", "at": "2030-01-01T09:00"});
    assert_eq!(
        reminder_text_from_user(
            &args,
            &words,
            None,
            Some("Parcel at the post office (3 Dec)")
        )["text"],
        "Parcel at the post office (3 Dec)"
    );
}

#[test]
fn a_time_in_a_zone_that_means_several_offsets_is_asked_again_naming_it() {
    let words = UserWords {
        request: "remind me tomorrow at 9 IST to call the Bangalore office",
        answers: &[],
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let need = unstated_time(&words, now()).expect("the time is asked again");
    let reason = need.reason().words();
    assert!(reason.contains("IST"), "{reason}");
    assert!(reason.contains("+05:30"), "{reason}");
    // Without a zone, the usual reason.
    let words = UserWords {
        request: "remind me to call the Bangalore office",
        answers: &[],
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    assert_eq!(
        unstated_time(&words, now()).expect("asked").reason(),
        QuestionReason::NoTime
    );
}

#[test]
fn a_day_without_a_time_of_day_asks_what_time_on_that_day() {
    // now() is Monday 2026-11-30, 10:40.
    let request = "remind me to call Ines on saturday";
    let need = unstated_time(&words(request), now()).expect("a time is asked for");
    assert_eq!(
        need.reason(),
        QuestionReason::NoTimeOfDay {
            day: "2026-12-05".into()
        }
    );
    assert_eq!(
        need.reason().words(),
        "Your request says Saturday 5 December, but no time of day"
    );
    assert_eq!(
        need.options(),
        vec![
            "5 Dec (Sat), 09:00",
            "5 Dec (Sat), 12:00",
            "5 Dec (Sat), 18:00"
        ]
    );
    // The user's own "10am" is 10:00 on that Saturday, not tomorrow's.
    let Ok(Resolved::Time(t)) = need.resolve("10am", now()) else {
        panic!("10am is read on the day asked about");
    };
    assert_eq!(t.format("%Y-%m-%d %H:%M").to_string(), "2026-12-05 10:00");
    // So is the answer given after the request, when the call is checked.
    let answers = ["10am".to_string()];
    let said = UserWords {
        request,
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    assert!(said.say_a_moment(now()));
    assert!(unstated_time(&said, now()).is_none());
    let Verdict::Run(args) = check_time(&json!({"text": "Call Ines"}), &said, now()) else {
        panic!("the time is given");
    };
    assert!(
        args["at"].as_str().unwrap().starts_with("2026-12-05T10:00"),
        "{args}"
    );
    // A bare hour answers too: "10 in the morning" on that Saturday.
    let Ok(Resolved::Time(t)) = need.resolve("10 in the morning", now()) else {
        panic!("a bare hour is read on the day asked about");
    };
    assert_eq!(t.format("%Y-%m-%d %H:%M").to_string(), "2026-12-05 10:00");
    let Ok(Resolved::Time(t)) = need.resolve("6", now()) else {
        panic!("a bare hour");
    };
    assert_eq!(t.format("%H:%M").to_string(), "06:00");
    // With no day said, a bare hour is the next time the clock shows it.
    let answers = ["10".to_string()];
    let said = UserWords {
        request: "remind me to call Ines",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let Verdict::Run(args) = check_time(&json!({"text": "Call Ines"}), &said, now()) else {
        panic!("a bare hour answers what time");
    };
    assert!(
        args["at"].as_str().unwrap().starts_with("2026-12-01T10:00"),
        "{args}"
    );
    // An answer naming its own day is that day.
    let answers = ["sunday at 8".to_string()];
    let said = UserWords {
        request,
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let Verdict::Run(args) = check_time(&json!({"text": "Call Ines"}), &said, now()) else {
        panic!("the time is given");
    };
    assert!(
        args["at"].as_str().unwrap().starts_with("2026-12-06T08:00"),
        "{args}"
    );
    // A moment in the request asks nothing.
    assert!(unstated_time(&words("remind me to call Ines on saturday at 10"), now()).is_none());
}

#[test]
fn a_slip_of_the_keys_in_a_long_verb_of_keeping_is_still_a_save() {
    let request = "rember my reading glasses are +1.75 in both eyes";
    assert!(asks_to_save(request));
    assert_eq!(
        content_to_save(request).as_deref(),
        Some("Reading glasses are +1.75 in both eyes")
    );
    assert!(asks_to_save("remeber that the gate code is 4471"));
    // Short verbs take no slips: "same", "nose", "stone" are words.
    assert!(!asks_to_save("same time as last week?"));
    assert!(!asks_to_save("stone walls in the garden"));
    assert!(slip_of("remnd", "remind") && slip_of("rember", "remember"));
    assert!(!slip_of("rewind", "remember") && !slip_of("remind", "remind"));
}

#[test]
fn a_save_names_its_project_loosely_in_the_words_before_what_it_keeps() {
    let projects = [
        "Lakeside Clinic".to_string(),
        "Orchard lane houses".to_string(),
    ];
    let of = |request: &str| project_of_a_save(request, &projects).map(|(p, _)| p);
    assert_eq!(
        of("for lakeside - the nurse wants two more sinks, save it").as_deref(),
        Some("Lakeside Clinic")
    );
    assert_eq!(
        of("note for the lane houses job: gutters are zinc").as_deref(),
        Some("Orchard lane houses")
    );
    assert_eq!(
        of("add to orchard: skip fits on the verge").as_deref(),
        Some("Orchard lane houses")
    );
    // A word of one name only, wherever it stands in it.
    assert_eq!(
        of("clinic job - the lift is booked for the 3rd").as_deref(),
        Some("Lakeside Clinic")
    );
    assert_eq!(
        of("the houses one: skip fits on the verge").as_deref(),
        Some("Orchard lane houses")
    );
    // The whole name anywhere, as before.
    assert_eq!(
        of("Save: Lakeside Clinic opens in May").as_deref(),
        Some("Lakeside Clinic")
    );
    // Short words and whoever's: "the lane's", "the clinics'".
    let projects = ["Beach bar rebuild".to_string(), "Turay reunion".to_string()];
    let of = |request: &'static str| project_of_a_save(request, &projects);
    assert_eq!(
        of("for the bar job: counter top is mahogany now"),
        Some(("Beach bar rebuild".to_string(), Some("for the bar job")))
    );
    assert_eq!(
        of("add to the turays' booking: 2 more people coming"),
        Some((
            "Turay reunion".to_string(),
            Some("add to the turays' booking")
        ))
    );
    // The whole name as the lead-in is the lead-in too (not kept).
    assert_eq!(
        of("turay reunion - mrs turay wants a cake on the 26th"),
        Some(("Turay reunion".to_string(), Some("turay reunion")))
    );
    assert_eq!(
        note_lead_in("beach bar rebuild: the painter is osman", &projects),
        Some("beach bar rebuild")
    );
    // Nor a word that only starts like one ("barbecue", "turayville").
    assert_eq!(of("for the barbecue: bring charcoal"), None);
    let projects = [
        "Lakeside Clinic".to_string(),
        "Orchard lane houses".to_string(),
    ];
    let of = |request: &str| project_of_a_save(request, &projects).map(|(p, _)| p);
    // A word of a name in the fact itself names no project, nor does a
    // lead-in that names two.
    assert_eq!(of("remember that the lakeside path floods in March"), None);
    assert_eq!(
        of("for lakeside and orchard: invoices go out monthly"),
        None
    );
    // A note's lead-in names a project loosely, or points at one.
    assert_eq!(
        note_lead_in("clinic job - the lift is booked", &projects),
        Some("clinic job")
    );
    assert_eq!(
        note_lead_in(
            "put this under the project pls: gutters are zinc",
            &projects
        ),
        Some("put this under the project pls")
    );
    assert_eq!(note_lead_in("fyi - gutters are zinc", &projects), None);
    // The save's call keeps the project so named.
    let request = "for lakeside - the nurse wants two more sinks, save it";
    let args = json!({"content": "The nurse wants two more sinks", "project": "Lakeside Clinic"});
    let Verdict::Run(checked) = check(STORE, &args, &words(request), &projects, now()) else {
        panic!("the save runs");
    };
    assert_eq!(checked["project"], "Lakeside Clinic");
    // What named it is not kept.
    let (_, lead_in) =
        project_of_a_save("for lakeside - the nurse wants two more sinks", &projects).unwrap();
    assert_eq!(
        without_project_lead_in(
            "For lakeside - the nurse wants two more sinks".into(),
            lead_in.unwrap()
        ),
        "The nurse wants two more sinks"
    );
    // What is left of it once "add" was taken as the verb of keeping.
    assert_eq!(
        without_project_lead_in(
            "To the lane houses job: gutters are zinc".into(),
            "add to the lane houses job"
        ),
        "Gutters are zinc"
    );
    // A tail of it that the fact goes on from is the fact's.
    assert_eq!(
        without_project_lead_in(
            "Houses job is late again".into(),
            "add to the lane houses job"
        ),
        "Houses job is late again"
    );
}

#[test]
fn what_an_answer_says_beyond_the_time_is_kept_in_the_reminder() {
    let answers = vec!["thursday at 5pm, for the boiler service".to_string()];
    let words = UserWords {
        request: "set a reminder about the plumber",
        answers: &answers,
        judged: crate::tools::WritesAsked::NONE,
        event: None,
    };
    let args = json!({"text": "The plumber", "at": "2030-01-01T17:00"});
    assert_eq!(
        reminder_text_from_user(&args, &words, None, None)["text"],
        "The plumber, for the boiler service"
    );
    // Of an answer, only its clauses that say no time.
    let answers = vec!["on the 1st of March next year at 9am, for the boiler service".to_string()];
    let words_said = UserWords {
        answers: &answers,
        ..words
    };
    assert_eq!(
        reminder_text_from_user(&args, &words_said, None, None)["text"],
        "The plumber, for the boiler service"
    );
    // A time alone adds nothing, nor do words the text already holds.
    for answer in ["thursday at 5pm", "thursday at 5pm for the plumber"] {
        let answers = vec![answer.to_string()];
        let words = UserWords {
            answers: &answers,
            ..words
        };
        assert_eq!(
            reminder_text_from_user(&args, &words, None, None)["text"],
            "The plumber",
            "{answer}"
        );
    }
}

#[test]
fn a_reminder_against_an_event_is_due_at_its_moment_or_at_the_time_answered_on_its_day() {
    use chrono::TimeZone;
    let day = NaiveDate::from_ymd_opt(2026, 12, 15).unwrap();
    let at = Local
        .from_local_datetime(&day.and_hms_opt(17, 0, 0).unwrap())
        .unwrap();
    let said = |answers: &[String], event| {
        UserWords {
            request: "remind me an hour before the recital",
            answers,
            judged: crate::tools::WritesAsked::NONE,
            event: Some(event),
        }
        .when(now())
    };
    // The moment the memory gives; an answer that named which event is
    // no time of the reminder's.
    let which = vec!["the 6pm one".to_string()];
    assert_eq!(said(&which, Stated::At(at)), Some(Stated::At(at)));
    // Only its day known: the time answered, on that day.
    let answered = vec!["10am".to_string()];
    let ten = Local
        .from_local_datetime(&day.and_hms_opt(10, 0, 0).unwrap())
        .unwrap();
    assert_eq!(said(&answered, Stated::Day(day)), Some(Stated::At(ten)));
    assert_eq!(said(&[], Stated::Day(day)), Some(Stated::Day(day)));
}

#[test]
fn a_save_that_names_nothing_gives_nothing_to_keep() {
    for request in [
        "can you save something for me pls",
        "could you remember this for me",
        "pls note something down",
    ] {
        assert!(asks_to_save(request), "{request}");
        assert_eq!(content_to_save(request), None, "{request}");
    }
    assert_eq!(
        content_to_save("can you save the gate code for me, 4471").as_deref(),
        Some("Gate code for me, 4471")
    );
}

#[test]
fn a_word_of_keeping_after_a_thing_named_is_a_noun() {
    for request in [
        "vat number pls, the bank wants it for the supplier file",
        "the garage wants our log book for the van",
        // After a word that points at a thing: the shop, not a save.
        "ran out of milk at the store, what's the delivery day",
        "tidied the file room, where is the spare van key",
    ] {
        assert!(!asks_to_save(request), "{request}");
    }
    for request in [
        "pls file this under the van: tyres done at 40k",
        "can you note that the gate code is 4471",
        "make a note that the boiler was serviced",
        "the gate code is 4471, save it",
        "i want to add that gran prefers tea",
    ] {
        assert!(asks_to_save(request), "{request}");
    }
    // "the record" is a noun: "for the record, …" is a save by its
    // examples (`meaning/examples.tsv`), not by a verb of keeping.
    assert!(!asks_to_save("for the record, the van tyres take 55 psi"));
}

#[test]
fn a_project_is_not_named_loosely_by_a_word_that_names_nothing_kept() {
    let projects = ["New website".to_string(), "Garden shed".to_string()];
    // "new" says what kind of news, not which project.
    assert_eq!(
        project_of_a_save(
            "dana has a new email, dana@example.org - save it",
            &projects
        ),
        None
    );
    // A word of its own still names it.
    assert_eq!(
        project_of_a_save("for the website - hosting renews in may", &projects)
            .map(|(project, _)| project),
        Some("New website".to_string())
    );
}
