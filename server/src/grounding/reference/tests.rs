//! The reference finder's and the candidates' tests.

use super::*;

fn find_new(request: &str) -> Option<Reference> {
    find(request, "", &["Website".into(), "Thesis".into()])
}

fn memory(id: i64, content: &str, project: Option<&str>, day: &str) -> Memory {
    Memory {
        id,
        content: content.into(),
        project: project.map(str::to_string),
        tags: Vec::new(),
        created_at: format!("{day}T10:00:00.000Z"),
    }
}

#[test]
fn unnamed_things_are_references() {
    let cases = [
        (
            "What did we decide in the meeting?",
            "the meeting",
            "meeting",
        ),
        (
            "Find the document I mentioned.",
            "the document I mentioned",
            "document",
        ),
        (
            "Write down the password hint for the account.",
            "the account",
            "account",
        ),
        ("Book the usual.", "the usual", "usual"),
        ("What did my colleague say?", "my colleague", "colleague"),
        ("Send the report to Anna", "the report", "document"),
    ];
    for (request, phrase, called) in cases {
        let found = find_new(request).unwrap_or_else(|| panic!("{request}"));
        assert_eq!(found.phrase, phrase, "{request}");
        assert_eq!(found.pointer, Pointer::Thing { called }, "{request}");
        assert!(!found.search.is_empty(), "{request}");
    }
    let account = find_new("Write down the password hint for the account.").unwrap();
    assert!(account.write);
    assert!(account.search.contains(&"account".to_string()));
    let meeting = find_new("What did we decide in the meeting?").unwrap();
    assert!(!meeting.write);
    assert!(meeting.search.contains(&"sync".to_string()));
}

#[test]
fn named_things_are_not() {
    for request in [
        "What did we decide in the billing meeting?",
        "Find the document about hosting.",
        "What did we decide in the meeting with Anna?",
        "Remind me to call Anna tomorrow at 9",
        "Which projects do I have?",
        "What is the survey budget in the Thesis project?",
        "Search my memories for the wifi password.",
        "Save a memory: the meeting moved to Friday",
        "Find my notes about hosting in the Website project.",
        "What does Anna like to drink?",
        "Remember that Anna likes green tea",
        "Save that the deadline moved",
        "What time is it?",
        "Say hello.",
        "Find the invoice and send it to Anna",
        "Save this to my project: the client approved the mockups.",
        "Save this: my bike lock code is 4312",
        "Call Anna and ask her about the keys",
        "Remind me about the doctor appointment tomorrow at 9",
        "Remind me about the dentist next Monday at 10.",
        "Remind me to call my friend tomorrow",
        "Write down the account number 1234 for the bank",
        "What is 2 plus 2?",
    ] {
        assert_eq!(find_new(request), None, "{request}");
    }
}

#[test]
fn a_kind_the_conversation_named_is_no_reference() {
    let request = "What did we decide in the meeting?";
    assert!(find(request, "", &[]).is_some());
    assert!(find(request, "We had the billing meeting today.", &[]).is_none());
    assert!(find(request, "Anna called about the garden.", &[]).is_some());
}

#[test]
fn pronouns_with_and_without_something_before_them() {
    let it = find_new("Remind me about it next week.").unwrap();
    assert_eq!(it.phrase, "it");
    assert_eq!(it.pointer, Pointer::Pronoun { person: false });
    assert!(it.search.is_empty(), "{:?}", it.search);
    assert!(it.write);
    let her = find_new("What's her phone number?").unwrap();
    assert_eq!(her.pointer, Pointer::Pronoun { person: true });
    assert_eq!(her.search, ["phone", "number"]);
    let him = find_new("Remind me to call him tomorrow at 9.").unwrap();
    let Lookup::Ask(need) = him.need(&[]) else {
        panic!("nobody found: a question");
    };
    assert_eq!(
        need.question(),
        "I found nothing in your memories for “him”. Who do you mean by “him”?"
    );
    for request in [
        "Remind me to pay it",
        "Email him the details",
        "Forward it to Tom",
        "When is it due?",
        "Is the meeting still on?",
    ] {
        assert!(find_new(request).is_some(), "{request}");
    }
    for request in ["What time is it?", "Is it raining?"] {
        assert_eq!(find_new(request), None, "{request}");
    }
    // Contracted with its verb, in a note to keep: who is meant?
    let hes = find_new("fyi he's allergic to penicillin too").unwrap();
    assert_eq!(hes.pointer, Pointer::Pronoun { person: true });
    assert_eq!(hes.phrase, "he's");
    let that = find_new("Move that to Friday").unwrap();
    assert_eq!(that.phrase, "that");
    // With turns before it, the conversation says what it is.
    assert_eq!(
        find(
            "Remind me about it next week.",
            "Anna's birthday is on Friday.",
            &[]
        ),
        None
    );
    assert_eq!(
        find("What's her phone number?", "Tell me about Anna", &[]),
        None
    );
}

#[test]
fn earlier_words_search_the_topic() {
    let last = find_new("What did I say about the budget last time?").unwrap();
    assert_eq!(last.phrase, "last time");
    assert_eq!(last.pointer, Pointer::Earlier);
    assert_eq!(last.search, ["budget"]);
    let thing = find_new("Look up the thing we discussed.").unwrap();
    assert_eq!(thing.phrase, "the thing we discussed");
    assert_eq!(thing.pointer, Pointer::Earlier);
    assert!(thing.search.is_empty());
    let one = find_new("Tell me about the one I care about.").unwrap();
    assert_eq!(one.phrase, "the one I care about");
    // A project name filters; it is no topic.
    let in_project = find_new("What did I say about hosting in Website last time?").unwrap();
    assert_eq!(in_project.search, ["hosting"]);
}

#[test]
fn several_matches_are_options_with_their_dates() {
    let reference = find_new("What did we decide in the meeting?").unwrap();
    let hits = [
        memory(
            1,
            "Billing meeting: move invoices to Stripe",
            Some("Billing"),
            "2026-11-12",
        ),
        memory(
            2,
            "Imprint sync. Agreed the release date",
            Some("Imprint"),
            "2026-11-20",
        ),
        memory(
            3,
            "Billing meeting: action items for Anna",
            Some("Billing"),
            "2026-11-12",
        ),
    ];
    let Lookup::Ask(need) = reference.need(&hits) else {
        panic!("several things: a question");
    };
    assert_eq!(need.question(), "Which meeting do you mean?");
    assert_eq!(
        need.options(),
        ["Billing meeting (12 Nov)", "Imprint sync (20 Nov)"]
    );
    let Need::Reference { candidates, .. } = &need else {
        unreachable!()
    };
    // Two notes of one meeting are one candidate, both in hand.
    assert_eq!(candidates[0].memories.len(), 2);
    assert!(candidates[0].memories[0].starts_with("[1] (Billing, 2026-11-12) Billing meeting"));
}

#[test]
fn one_match_is_used_and_none_is_an_open_question() {
    let reference = find_new("What did we decide in the meeting?").unwrap();
    let hits = [memory(
        4,
        "Imprint sync: release on Friday",
        None,
        "2026-11-20",
    )];
    assert_eq!(
        reference.need(&hits),
        Lookup::One(Candidate {
            label: "Imprint sync (20 Nov)".into(),
            memories: vec!["[4] (no project, 2026-11-20) Imprint sync: release on Friday".into()],
        })
    );
    let Lookup::Ask(need) = reference.need(&[]) else {
        panic!("nothing found: a question");
    };
    assert!(need.options().is_empty());
    assert_eq!(
        need.question(),
        "I found nothing in your memories for “the meeting”. Which meeting do you mean?"
    );
    let write = find_new("Write down the password hint for the account.").unwrap();
    let Lookup::Ask(need) = write.need(&[]) else {
        panic!("nothing found: a question");
    };
    assert_eq!(
        need.question(),
        "I found nothing in your memories for “the account”. What do you mean by “the account”?"
    );
}

#[test]
fn labels_are_short_and_carry_the_day() {
    let long = memory(
        9,
        "Thesis: the budget for the survey is 400 EUR and more words",
        Some("Thesis"),
        "2026-11-16",
    );
    assert_eq!(label(&long), "Thesis: the budget for the survey… (16 Nov)");
    let plain = memory(10, "my usual order is a flat white", None, "2026-09-01");
    assert_eq!(label(&plain), "My usual order is a flat… (1 Sep)");
}

#[test]
fn a_requests_topic_leaves_out_asking_words_and_project_names() {
    let projects = ["Website".to_string(), "Thesis".to_string()];
    assert_eq!(
        topic("What's Marta's phone number?", &projects),
        ["marta", "phone", "number"]
    );
    assert!(topic("Show me my notes from the Website project.", &projects).is_empty());
    assert_eq!(
        topic("Search the Thesis project for the budget.", &projects),
        ["budget"]
    );
}

#[test]
fn a_memory_is_about_a_topic_when_it_holds_its_words() {
    let marta = memory(
        1,
        "Marta's phone number is 0176 333 444",
        None,
        "2026-11-02",
    );
    let coffee = memory(2, "My usual: flat white with oat milk", None, "2026-11-03");
    let meetings = memory(3, "Two meetings with the billing team", None, "2026-11-04");
    let words = |w: &[&str]| -> Vec<String> { w.iter().map(|s| s.to_string()).collect() };
    assert!(is_about(&marta, &words(&["marta", "phone", "number"])));
    // All but one of three or more.
    assert!(is_about(
        &coffee,
        &words(&["order", "flat", "white", "oat", "milk"])
    ));
    assert!(!is_about(
        &coffee,
        &words(&["order", "flat", "white", "soy", "milk"])
    ));
    // Two words: both.
    assert!(!is_about(&marta, &words(&["phone", "bill"])));
    // Another ending of the same word.
    assert!(is_about(&meetings, &words(&["billing", "meeting"])));
    assert!(!is_about(&marta, &[]));
}

#[test]
fn a_note_names_the_person_its_pronoun_was_chosen_as() {
    use super::with_the_person_named;
    let named = |content: &str, memory: &str| with_the_person_named(content, memory);
    assert_eq!(
        named(
            "fyi he's allergic to bee stings too",
            "Sipho is allergic to peanuts."
        )
        .as_deref(),
        Some("fyi Sipho's allergic to bee stings too")
    );
    assert_eq!(
        named(
            "She moved to Leeds",
            "Priya Naidoo is our accountant; her number is 083 555 0126."
        )
        .as_deref(),
        Some("Priya Naidoo moved to Leeds")
    );
    assert_eq!(
        named(
            "her rates go up in january",
            "My partner Thabo's sister Ana teaches piano."
        )
        .as_deref(),
        Some("Thabo's rates go up in january")
    );
    assert_eq!(
        named(
            "remember to call her back",
            "Our GP is Dr. Abrahams in Observatory."
        )
        .as_deref(),
        Some("remember to call Dr Abrahams back")
    );
    // No person's pronoun, or no one named: nothing to change.
    assert_eq!(named("the boiler needs a service", "Sipho is 8."), None);
    assert_eq!(named("he's away", "the boiler was serviced in may"), None);
}

#[test]
fn a_person_pronoun_with_nobody_before_it_asks_among_the_people_named() {
    // One memory keeps the family's birthdays: "his" is one of them.
    let his = find_new("when's his birthday?").unwrap();
    assert_eq!(his.pointer, Pointer::Pronoun { person: true });
    let hits = [memory(
        7,
        "Birthdays: Tomasz 3 January, Nana Maureen 9 February, Ines 30 April.",
        None,
        "2026-11-20",
    )];
    let Lookup::Ask(need) = his.need(&hits) else {
        panic!("three people: a question");
    };
    assert_eq!(need.question(), "Who do you mean by “his”?");
    assert_eq!(need.options(), ["Tomasz", "Nana Maureen", "Ines"]);
    // One person named: that is whom "his" means.
    let one = [memory(
        8,
        "Dentist: Tomasz, Tuesday at 15:30",
        None,
        "2026-11-21",
    )];
    let Lookup::One(candidate) = his.need(&one) else {
        panic!("one person: no question");
    };
    assert_eq!(candidate.label, "Tomasz");
    // A name opening a memory says whose it is.
    let whose = [memory(
        9,
        "Ines's dentist: Tuesday at 15:30",
        None,
        "2026-11-21",
    )];
    assert!(matches!(his.need(&whose), Lookup::One(c) if c.label == "Ines"));
    // A thing pointed at is still asked about by its memories.
    let it = find_new("When is it due?").unwrap();
    assert!(matches!(it.need(&hits), Lookup::One(c) if c.label.starts_with("Birthdays")));
}
