use super::*;

fn fixed(minutes: i32) -> Zone {
    Zone::Fixed(FixedOffset::east_opt(minutes * 60).unwrap())
}

#[test]
fn written_offsets_are_read() {
    assert_eq!(
        said("tomorrow 9:00 +05:00"),
        Said::In(fixed(300), "tomorrow 9:00".into())
    );
    assert_eq!(
        said("tomorrow at 9 UTC+5"),
        Said::In(fixed(300), "tomorrow at 9".into())
    );
    assert_eq!(
        said("tomorrow at 9 GMT+2"),
        Said::In(fixed(120), "tomorrow at 9".into())
    );
    assert_eq!(said("at 9 utc -3:30"), Said::In(fixed(-210), "at 9".into()));
    assert_eq!(said("at 9 -0430"), Said::In(fixed(-270), "at 9".into()));
    assert!(matches!(said("at 9 UTC+15"), Said::Refused(_)));
    // Not after a clock time, or not an offset: no zone.
    assert_eq!(said("call +5 people"), Said::Nothing);
    assert_eq!(said("at 9 +5"), Said::Nothing);
}

/// The zone `text` says, as minutes east of UTC on the 15th of `month`
/// 2030, and the words left.
fn minutes_in(text: &str, month: u32) -> (i32, String) {
    match said(text) {
        Said::In(zone, rest) => {
            let at = Utc.with_ymd_and_hms(2030, month, 15, 12, 0, 0).unwrap();
            (zone.offset_at(at) / 60, rest)
        }
        other => panic!("{text}: {other:?}"),
    }
}

/// Why `text`'s zone is refused.
fn refused(text: &str) -> String {
    match said(text) {
        Said::Refused(why) => why,
        other => panic!("{text} is not refused: {other:?}"),
    }
}

#[test]
fn abbreviations_are_read_after_a_clock_time_or_refused_by_name() {
    assert_eq!(
        said("tomorrow at 9 EST"),
        Said::In(fixed(-300), "tomorrow at 9".into())
    );
    // PST is the Pacific clock: its summer time applies in July.
    assert_eq!(minutes_in("9am PST", 1), (-480, "9am".into()));
    assert_eq!(minutes_in("9am PST", 7).0, -420);
    assert_eq!(said("at 9 pm CET"), Said::In(fixed(60), "at 9 pm".into()));
    assert_eq!(minutes_in("at 10 BST", 7), (60, "at 10".into()));
    for ambiguous in ["at 9 IST", "tomorrow at 9 CST"] {
        let why = refused(ambiguous);
        assert!(why.contains("IST") || why.contains("CST"), "{why}");
    }
    // Not after a time: a word like any other.
    assert_eq!(said("ask the PT team tomorrow"), Said::Nothing);
    assert_eq!(said("call est at 9"), Said::Nothing);
}

#[test]
fn abbreviations_come_from_the_zone_database_in_any_case() {
    assert_eq!(minutes_in("9 est", 1), (-300, "9".into()));
    assert_eq!(minutes_in("9 pst", 1), (-480, "9".into()));
    assert_eq!(minutes_in("9 WIB", 1), (420, "9".into()));
    assert_eq!(minutes_in("9 wib", 7), (420, "9".into()));
    assert_eq!(minutes_in("at 9 JST", 1).0, 540);
    assert_eq!(minutes_in("at 9 AEST", 1).0, 600);
    assert_eq!(minutes_in("at 9 ChST", 1).0, 600);
    assert_eq!(minutes_in("at 9 chst", 1).0, 600);
    assert_eq!(minutes_in("at 9 msk", 1).0, 180);
    assert_eq!(minutes_in("at 9 utc", 1).0, 0);
    assert_eq!(minutes_in("at 9 GMT", 7).0, 0);
    // An abbreviation zones with different clocks show is its own
    // offset all year: CET (Algiers keeps it in summer) in July.
    assert_eq!(minutes_in("at 9 CET", 7).0, 60);
    // One shown by one clock only is that clock: CEST in January is
    // the Central European clock, then on CET.
    assert_eq!(minutes_in("at 9 CEST", 7).0, 120);
    assert_eq!(minutes_in("at 9 CEST", 1).0, 60);
    // One zone's clock: its summer time applies (AKST in July).
    assert_eq!(minutes_in("at 9 AKST", 7).0, -480);
    // Kept from before tzdata wrote "+08" for Singapore.
    assert_eq!(minutes_in("at 9 SGT", 1).0, 480);
    // The US short forms, in capitals.
    assert_eq!(minutes_in("at 9 ET", 7).0, -240);
    assert_eq!(minutes_in("at 9 PT", 1).0, -480);
    assert!(refused("9 ist").contains("IST"));
}

#[test]
fn a_shared_abbreviation_is_the_many_zones_clock_only_against_one_other() {
    // Manila's PST and Cuba's CDT lose to the US clocks.
    assert_eq!(minutes_in("at 9 PST", 1).0, -480);
    assert_eq!(minutes_in("at 9 CDT", 7).0, -300);
    // China and Cuba against US Central: refused, naming all three.
    let why = refused("at 9 cst");
    for offset in ["-06:00", "+08:00", "-05:00"] {
        assert!(why.contains(offset), "{why}");
    }
    let why = refused("at 9 IST");
    for offset in ["+05:30", "+01:00", "+02:00", "Europe/Dublin"] {
        assert!(why.contains(offset), "{why}");
    }
    // Arabia's AST, which tzdata no longer writes, is still meant.
    assert!(refused("at 9 AST").contains("Arabia"));
}

#[test]
fn ordinary_words_are_not_zones() {
    for text in [
        "9 at",
        "at 9 am",
        "at 9 eat breakfast",
        "at 9 wet the plants",
        "go west at 9 west",
        "at 9 pt",
        "at 9 et al",
        "at 9 bt",
        "at 9 NEXT week",
        "at 9 IT standup",
        "at 9 lunch time",
        "9am Local time",
        "at 7 Dinner time",
        "at 9 same time",
        "AT 9 EAT",
        "meet in EST",
        "in 2 hours",
        "at 9 in the morning",
    ] {
        assert_eq!(said(text), Said::Nothing, "{text}");
    }
    // In a text all in capitals, a zone's abbreviation still is one.
    assert_eq!(minutes_in("AT 9 EST", 1), (-300, "AT 9".into()));
}

#[test]
fn a_citys_time_is_its_zone() {
    let paris: Tz = "Europe/Paris".parse().unwrap();
    assert_eq!(
        said("9 Paris time"),
        Said::In(Zone::Named(paris), "9".into())
    );
    assert_eq!(
        minutes_in("tomorrow at 9 London time", 7),
        (60, "tomorrow at 9".into())
    );
    assert_eq!(minutes_in("at 9 new york time", 1), (-300, "at 9".into()));
    assert_eq!(minutes_in("at 9am, Tokyo time", 1).0, 540);
    assert_eq!(minutes_in("at 9 Los Angeles time", 7).0, -420);
    // A name no zone has is left to the words ("Dinner time" is no
    // place either).
    assert_eq!(said("at 9 Gotham time"), Said::Nothing);
}

#[test]
fn a_zone_after_in_takes_the_in_with_it() {
    assert_eq!(minutes_in("at 9 in EST", 1), (-300, "at 9".into()));
    assert_eq!(
        minutes_in("tomorrow at 9 in est", 1),
        (-300, "tomorrow at 9".into())
    );
    assert_eq!(minutes_in("at 9 in London time", 1), (0, "at 9".into()));
    assert_eq!(minutes_in("at 9 in pacific time", 1), (-480, "at 9".into()));
    assert_eq!(minutes_in("at 9 in +05:00", 1), (300, "at 9".into()));
    assert_eq!(minutes_in("at 9 in Europe/Paris", 1), (60, "at 9".into()));
    assert!(refused("at 9 in IST").contains("IST"));
}

#[test]
fn an_unknown_abbreviation_is_refused_by_name() {
    assert!(refused("9 XYZT").contains("XYZT"));
    // tzdata writes "-03" for Brasília now: BRT is refused, not dropped.
    assert!(refused("tomorrow at 9 BRT").contains("BRT"));
}

#[test]
fn no_input_breaks_the_reading() {
    let long = format!("9 {} time", "A".repeat(10_000));
    let many_ins = format!("at 9 {}EST", "in ".repeat(1_000));
    let hostile = [
        "",
        " ",
        "9",
        "in",
        "at 9 in",
        "time",
        "9 time",
        "9 UTC+a€",
        "9 UTC +é€",
        "9 GMT-€€",
        "9 +é€1",
        "9 +99:99",
        "9 UTC-",
        "9 GMT+ 5",
        "9 - time",
        "9 / time",
        "9 a/b/c/ time",
        "9 Europe/ time",
        "9 🙂 time",
        "9 \u{0}T",
        "\u{202e}9 EST",
        long.as_str(),
        many_ins.as_str(),
    ];
    let now = Local.with_ymd_and_hms(2030, 1, 10, 12, 0, 0).unwrap();
    for text in hostile {
        if let Said::Refused(why) = said(text) {
            assert!(why.len() < 400, "{text}: {why}");
        }
        let _ = read_in_zone(text, now, super::super::stated);
    }
}

#[test]
fn zone_names_come_from_the_database() {
    let paris: Tz = "Europe/Paris".parse().unwrap();
    assert_eq!(
        said("2030-01-01T09:00 Europe/Paris"),
        Said::In(Zone::Named(paris), "2030-01-01T09:00".into())
    );
    assert_eq!(
        said("at 9 europe/paris"),
        Said::In(Zone::Named(paris), "at 9".into())
    );
    let la: Tz = "America/Los_Angeles".parse().unwrap();
    assert_eq!(
        said("tomorrow at 9 pacific time"),
        Said::In(Zone::Named(la), "tomorrow at 9".into())
    );
    assert!(matches!(said("at 9 Europe/Atlantis"), Said::Refused(_)));
    assert_eq!(said("call Anna and/or Tom at 9"), Said::Nothing);
    assert!(!is_known_zone("Mars/Olympus"));
}

#[test]
fn a_time_in_a_zone_is_the_moment_its_clock_shows_it() {
    use chrono::Timelike;
    let now = Local.with_ymd_and_hms(2030, 1, 10, 12, 0, 0).unwrap();
    let read = |text: &str, now: DateTime<Local>| super::super::stated(text, now);
    let at = |text: &str| match read_in_zone(text, now, read) {
        Some(Stated::At(t)) => t.with_timezone(&Utc),
        other => panic!("{text}: {other:?}"),
    };
    let nine_est = at("tomorrow at 9 EST");
    assert_eq!((nine_est.hour(), nine_est.minute()), (14, 0));
    assert_eq!(at("tomorrow 9:00 +05:00").hour(), 4);
    // Winter in Paris: UTC+1.
    assert_eq!(at("2030-01-11T09:00 Europe/Paris").hour(), 8);
    // A span is the same span wherever it is said.
    let span = at("in 2 hours UTC+5");
    assert_eq!(span, now.with_timezone(&Utc) + Duration::hours(2));
    assert!(read_in_zone("at 9 IST", now, read).is_none());
    // The audit's cases: each in its zone (January: Paris UTC+1).
    assert_eq!(at("tomorrow at 9 est").hour(), 14);
    assert_eq!(at("tomorrow at 9 pst").hour(), 17);
    assert_eq!(at("tomorrow at 9 in EST").hour(), 14);
    assert_eq!(at("tomorrow at 9 WIB").hour(), 2);
    assert_eq!(at("tomorrow at 9 Paris time").hour(), 8);
    assert_eq!(at("tomorrow at 9 London time").hour(), 9);
    assert!(read_in_zone("tomorrow at 9 BRT", now, read).is_none());
}
