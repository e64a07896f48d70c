//! Properties of every parser of untrusted text in the server: the time
//! grammar (`grounding::when`), `iso8601`, the tool-markup parser and the
//! config file. Whatever the text, none panics; what has a writer reads
//! back what was written.
//!
//! The same parsers have `cargo fuzz` targets (see `fuzz/README.md`); a
//! crash found there is kept here as a regression case.

use std::fmt::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, Local, NaiveDate, NaiveDateTime, SecondsFormat,
    TimeZone, Timelike, Utc,
};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Value};

use imprint::config::{FileConfig, Provider, ToolFormat, ToolPrompt, Turns};
use imprint::grounding::when::{self, Recurrence, Stated};
use imprint::iso8601::{self, IsoTime};
use imprint::models::markup::{MarkupEvent, MarkupFormat, MarkupParser};

/// Modest case counts: the suite runs on two cores. `PROPTEST_CASES=N`
/// sets every count, for a longer run.
/// A failing case is kept in `tests/*.proptest-regressions` and tried
/// first on the next run.
fn config(cases: u32) -> ProptestConfig {
    let config = ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_some() {
        config
    } else {
        ProptestConfig { cases, ..config }
    }
}

// --- shared strategies --------------------------------------------------

/// Text made of pieces the parser at hand reacts to, mixed with any
/// characters: random text alone rarely reaches the interesting paths.
fn text_of(pieces: &'static [&'static str], max_pieces: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => select(pieces).prop_map(str::to_string),
        1 => "\\PC{0,4}",
        1 => any::<String>().prop_map(|s| s.chars().take(4).collect::<String>()),
    ];
    prop::collection::vec(piece, 0..max_pieces).prop_map(|pieces| pieces.concat())
}

/// Seconds since the epoch of the earliest and latest moment chrono holds.
fn chrono_range() -> (i64, i64) {
    (
        DateTime::<Utc>::MIN_UTC.timestamp(),
        DateTime::<Utc>::MAX_UTC.timestamp(),
    )
}

/// A "now": mostly ordinary, sometimes at the very ends of what chrono
/// holds (where date arithmetic overflows). A day is kept from each end:
/// chrono panics on a `DateTime<Local>` whose local date it cannot hold,
/// and no clock says such a now.
fn any_now() -> impl Strategy<Value = DateTime<Local>> {
    let (min, max) = chrono_range();
    let (min, max) = (min + 86_400, max - 86_400);
    prop_oneof![
        4 => 0i64..4_102_444_800, // 1970..2100
        1 => min..=max,
        1 => min..=min + 400 * 86_400,
        1 => max - 400 * 86_400..=max,
    ]
    .prop_map(|secs| Utc.timestamp_opt(secs, 0).unwrap().with_timezone(&Local))
}

/// An ordinary now, far from chrono's ends: 1990..2090.
fn ordinary_now() -> impl Strategy<Value = DateTime<Local>> {
    (631_152_000i64..3_786_912_000)
        .prop_map(|secs| Utc.timestamp_opt(secs, 0).unwrap().with_timezone(&Local))
}

// --- the time grammar ---------------------------------------------------

const TIME_WORDS: &[&str] = &[
    " ",
    " ",
    " ",
    ",",
    ".",
    "!",
    "?",
    "'",
    "\"",
    "(",
    ")",
    "in ",
    "at ",
    "by ",
    "on ",
    "within ",
    "until ",
    "around ",
    "the ",
    "a ",
    "an ",
    "of ",
    "to ",
    "@",
    "-",
    "today",
    "tomorrow",
    "tmrw",
    "tonight",
    "day",
    "days",
    "after",
    "next",
    "this",
    "every",
    "each",
    "once",
    "week",
    "weeks",
    "weekly",
    "daily",
    "nightly",
    "everyday",
    "weekday",
    "weekdays",
    "workdays",
    "working",
    "business",
    "mon-fri",
    "morning",
    "noon",
    "midday",
    "afternoon",
    "evening",
    "night",
    "midnight",
    "half",
    "hour",
    "hours",
    "h",
    "hr",
    "min",
    "minutes",
    "mn",
    "wk",
    "o'clock",
    "oclock",
    "am",
    "pm",
    "a.m.",
    "p.m.",
    "0",
    "1",
    "9",
    "12",
    "13",
    "23",
    "24",
    "59",
    "60",
    "99",
    "1000",
    "1001",
    "-1",
    "00",
    "007",
    "2147483647",
    "9223372036854775808",
    "ten",
    "twelve",
    "forty-five",
    "9:30",
    "23:59",
    "24:00",
    "9:60",
    "8.05pm",
    "18.30",
    "1.5",
    "9h",
    "9h30",
    "2h",
    "30min",
    "2147483647weeks",
    "1000weeks",
    "3rd",
    "1st",
    "31st",
    "29th",
    "32",
    "december",
    "dec",
    "feb",
    "february",
    "may",
    "mar.",
    "monday",
    "mondays",
    "mon",
    "fri",
    "sat",
    "sun",
    "friday",
    "sundays",
    "2026-12-01",
    "2026-12-01T09:00",
    "2026-12-01 09:00",
    "2026-02-30",
    "9999-12-31T23:59:59Z",
    "0000-01-01T00:00+01:00",
    "0000-01-01",
    "+10000-01-01T00:00",
    "-0001-12-31",
    "2030-01-02t03:04:05z",
    "exactly",
    "about",
    "roughly",
    "later",
    "soon",
    "sometime",
    "Europe/Paris",
    "Mars/",
    "a/b/c",
    "/",
    "call",
    "tom",
    "ü",
    "ß",
    "İ",
    "\u{130}",
    "ǅ",
    "½",
    "٣",
    "\n",
    "\t",
    "\u{a0}",
    "“",
    "”",
    "’",
];

fn time_text() -> impl Strategy<Value = String> {
    text_of(TIME_WORDS, 16)
}

proptest! {
    #![proptest_config(config(512))]

    /// The grammar reads any text at any "now" without panicking, and what
    /// it reads is a moment chrono can hold.
    #[test]
    fn time_grammar_never_panics(text in time_text(), now in any_now()) {
        if let Some(stated) = when::stated(&text, now) {
            let _ = stated.moment();
        }
        let _ = when::recurrence(&text);
        let _ = when::is_only_time(&text);
        let _ = when::zone_name(&text);
        let without = when::without_the_time(&text);
        // Only words of the text go, none is added.
        prop_assert!(without.len() <= text.len(), "{text:?} -> {without:?}");
    }

    #[test]
    fn time_grammar_never_panics_on_any_string(text in any::<String>(), now in any_now()) {
        let _ = when::stated(&text, now).map(Stated::moment);
        let _ = when::recurrence(&text);
        let _ = when::is_only_time(&text);
        let _ = when::without_the_time(&text);
        let _ = when::zone_name(&text);
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// "in N hours" (or minutes, days) is now plus N of them.
    #[test]
    fn a_span_from_now_is_added_to_now(
        n in 1i64..=1000,
        unit in select(&[("minutes", 60i64), ("hours", 3600), ("days", 86_400)][..]),
        lead in select(&["remind me ", "call Tom ", ""][..]),
        now in ordinary_now(),
    ) {
        let (name, seconds) = unit;
        let text = format!("{lead}in {n} {name}");
        let expected = now + Duration::seconds(n * seconds);
        prop_assert_eq!(when::stated(&text, now), Some(Stated::At(expected)), "{}", text);
    }

    /// "at H:MM" is the next time the clock shows it, within a day. In a
    /// zone with clock changes, a time the clock skips that day ("at 2:30"
    /// on the morning the clocks skip 2:00–3:00, `TZ=Europe/Berlin`) is
    /// taken an hour later, as the clock shows it.
    #[test]
    fn a_clock_time_is_the_next_one(hour in 0u32..24, minute in 0u32..60, now in ordinary_now()) {
        let text = format!("call Anna at {hour}:{minute:02}");
        let Some(Stated::At(t)) = when::stated(&text, now) else {
            return Err(TestCaseError::fail(format!("{text:?} read no moment at {now}")));
        };
        let asked = chrono::NaiveTime::from_hms_opt(hour, minute, 0).unwrap();
        let skipped = Local.from_local_datetime(&t.date_naive().and_time(asked)).earliest().is_none();
        let shown = (t.hour(), t.minute());
        prop_assert!(
            shown == (hour, minute) || (skipped && shown == ((hour + 1) % 24, minute)),
            "{}: {} from {}", text, t, now
        );
        prop_assert!(t > now && t - now <= Duration::days(1) + Duration::hours(1), "{text}: {t} from {now}");
    }

    /// An ISO 8601 date-time in the text is read back as the moment it
    /// writes.
    #[test]
    fn an_iso_moment_in_the_text_reads_back(t in moment_in_years(1, 9998), now in ordinary_now()) {
        let t = t.with_nanosecond(0).unwrap();
        let written = t.to_rfc3339_opts(SecondsFormat::Secs, true);
        let text = format!("call Anna {written} please");
        prop_assert_eq!(
            when::stated(&text, now),
            Some(Stated::At(t.with_timezone(&Local))),
            "{}", text
        );
    }

    /// The recurrences said the usual ways, among other words.
    #[test]
    fn recurrences_are_read_among_other_words(
        said in select(&[
            ("every day", Recurrence::Daily),
            ("daily", Recurrence::Daily),
            ("each morning", Recurrence::Daily),
            ("on weekdays", Recurrence::Weekdays),
            ("Monday to Friday", Recurrence::Weekdays),
            ("every week", Recurrence::Weekly),
            ("every Monday", Recurrence::Weekly),
            ("on Fridays", Recurrence::Weekly),
        ][..]),
        before in select(&["water the plants", "call Mum", ""][..]),
        after in select(&["at 9", "please", "", "in the evening"][..]),
    ) {
        let (words, recurrence) = said;
        let text = format!("{before} {words} {after}");
        prop_assert_eq!(when::recurrence(&text), Some(recurrence), "{}", text);
    }
}

// --- ISO 8601 ----------------------------------------------------------

/// A moment in the years `from..=to` (UTC), to the millisecond.
fn moment_in_years(from: i32, to: i32) -> impl Strategy<Value = DateTime<Utc>> {
    let start = Utc
        .with_ymd_and_hms(from, 1, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis();
    let end = Utc
        .with_ymd_and_hms(to, 12, 31, 23, 59, 59)
        .unwrap()
        .timestamp_millis()
        + 999;
    (start..=end).prop_map(|ms| DateTime::<Utc>::from_timestamp_millis(ms).unwrap())
}

/// An offset of whole minutes, as ISO 8601 writes them (within ±23:59).
fn any_offset() -> impl Strategy<Value = FixedOffset> {
    (-1439i32..=1439).prop_map(|minutes| FixedOffset::east_opt(minutes * 60).unwrap())
}

/// Text shaped like ISO 8601, with years far outside 0000–9999, signs,
/// odd widths and separators, and offsets: random text alone rarely parses.
fn iso_shaped() -> impl Strategy<Value = String> {
    let year = prop_oneof![
        0i64..=9999,
        -99_999i64..=99_999,
        Just(-1i64),
        Just(10_000i64),
        Just(262_143i64),
        Just(-262_144i64),
        any::<i64>(),
    ];
    let year_text = (
        year,
        select(&["{:04}", "{:+05}", "{}", "{:06}", "{:+}"][..]),
    )
        .prop_map(|(y, form)| match form {
            "{:04}" => format!("{y:04}"),
            "{:+05}" => format!("{y:+05}"),
            "{:06}" => format!("{y:06}"),
            "{:+}" => format!("{y:+}"),
            _ => format!("{y}"),
        });
    let two = prop_oneof![0u32..=99, Just(0u32), Just(12), Just(31), Just(60)]
        .prop_map(|n| format!("{n:02}"));
    let fraction = select(&["", ".5", ".123", ".123456789", ".1234567890123", "."][..]);
    let separator = select(&["T", "t", " ", "  ", "_"][..]);
    let offset = select(
        &[
            "",
            "Z",
            "z",
            "+01:00",
            "-23:59",
            "+24:00",
            "+0530",
            "+05",
            "-00:00",
            "+99:99",
            "+01:00:30",
        ][..],
    );
    let rest = select(&["", " ", "\t", "x", "Z trailing"][..]);
    let shape = select(&["date", "minutes", "seconds", "seconds+frac"][..]);
    (
        year_text,
        two.clone(),
        two.clone(),
        separator,
        two.clone(),
        two.clone(),
        two,
        fraction,
        offset,
        (rest, shape),
    )
        .prop_map(
            |(y, mo, d, sep, h, mi, s, frac, off, (rest, shape))| match shape {
                "date" => format!("{y}-{mo}-{d}{rest}"),
                "minutes" => format!("{y}-{mo}-{d}{sep}{h}:{mi}{off}{rest}"),
                "seconds" => format!("{y}-{mo}-{d}{sep}{h}:{mi}:{s}{off}{rest}"),
                _ => format!("{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}{off}{rest}"),
            },
        )
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn iso8601_never_panics(
        text in prop_oneof![any::<String>(), iso_shaped()],
        now in any_now(),
        zone in any_offset(),
    ) {
        if let Some(t) = iso8601::parse(&text) {
            let _ = t.moment_in(&Utc);
            let _ = t.moment_in(&zone);
            let _ = t.moment_in(&Local);
        }
        let _ = iso8601::parse_date_time(&text, now);
    }

    /// Surrounding whitespace and letter case change nothing.
    #[test]
    fn iso8601_ignores_case_and_surrounding_space(
        text in iso_shaped(),
        space in select(&["", " ", "\t", "\n ", "\u{3000}"][..]),
    ) {
        let parsed = iso8601::parse(&text);
        prop_assert_eq!(iso8601::parse(&format!("{space}{text}{space}")), parsed, "{:?}", text);
        prop_assert_eq!(iso8601::parse(&text.to_ascii_lowercase()), parsed, "{:?}", text);
    }

    /// `parse_date_time` is `parse` with the moment taken in now's zone: a
    /// date alone, or nothing, is an error.
    #[test]
    fn parse_date_time_agrees_with_parse(text in iso_shaped(), now in any_now()) {
        let moment = match iso8601::parse(&text) {
            Some(IsoTime::Date(_)) | None => None,
            Some(t) => t.moment_in(&now.timezone()),
        };
        prop_assert_eq!(iso8601::parse_date_time(&text, now).ok(), moment, "{:?}", text);
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A moment in 0000–9999 written as RFC 3339 (milliseconds, `Z`) reads
    /// back as the same moment.
    #[test]
    fn iso8601_utc_moments_round_trip(t in moment_in_years(0, 9999)) {
        let written = t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let read = iso8601::parse(&written);
        prop_assert!(matches!(read, Some(IsoTime::Exact(_))), "{written} read as {read:?}");
        prop_assert_eq!(read.and_then(|r| r.moment_in(&Utc)), Some(t), "{}", written);
    }

    /// With any offset (the written year also in 0000–9999), with seconds
    /// or without, the moment is the same.
    #[test]
    fn iso8601_moments_with_offsets_round_trip(
        t in moment_in_years(0, 9999),
        zone in any_offset(),
        form in select(&[SecondsFormat::Secs, SecondsFormat::Millis, SecondsFormat::Nanos][..]),
    ) {
        let t = match form {
            SecondsFormat::Secs => t.with_nanosecond(0).unwrap(),
            _ => t,
        };
        let there = t.with_timezone(&zone);
        prop_assume!((0..=9999).contains(&there.year()));
        let written = there.to_rfc3339_opts(form, false);
        prop_assert_eq!(iso8601::parse(&written), Some(IsoTime::Exact(there)), "{}", written);
        // Without seconds: the minute.
        let minutes = there.format("%Y-%m-%dT%H:%M%:z").to_string();
        let expected = there.with_second(0).unwrap().with_nanosecond(0).unwrap();
        prop_assert_eq!(iso8601::parse(&minutes), Some(IsoTime::Exact(expected)), "{}", minutes);
    }

    /// Wall-clock date-times and dates alone in 0000–9999 read back.
    #[test]
    fn iso8601_wall_times_and_dates_round_trip(
        t in moment_in_years(0, 9999),
        separator in select(&["T", " "][..]),
    ) {
        let wall: NaiveDateTime = t.naive_utc();
        let written = wall.format(&format!("%Y-%m-%d{separator}%H:%M:%S%.f")).to_string();
        prop_assert_eq!(iso8601::parse(&written), Some(IsoTime::Wall(wall)), "{}", written);
        let date: NaiveDate = wall.date();
        let written = date.format("%Y-%m-%d").to_string();
        prop_assert_eq!(iso8601::parse(&written), Some(IsoTime::Date(date)), "{}", written);
        prop_assert_eq!(IsoTime::Date(date).moment_in(&Utc), None);
    }

    /// Whatever reads as a date or a moment lies in the years 0000–9999.
    ///
    /// Depends on the change that refuses years outside 0000–9999 in
    /// `iso8601` (`+10000-01-01`, or `0000-01-01T00:00+01:00`, which is in
    /// the year -1 in UTC); fails until it lands.
    #[test]
    fn iso8601_reads_only_years_0000_to_9999(text in iso_shaped(), zone in any_offset()) {
        let years = 0..=9999;
        match iso8601::parse(&text) {
            None => {}
            Some(IsoTime::Date(d)) => prop_assert!(years.contains(&d.year()), "{text:?}: {d}"),
            Some(IsoTime::Wall(t)) => prop_assert!(years.contains(&t.year()), "{text:?}: {t}"),
            Some(IsoTime::Exact(t)) => prop_assert!(years.contains(&t.year()), "{text:?}: {t}"),
        }
        if let Some(t) = iso8601::parse(&text) {
            for moment in [t.moment_in(&Utc), t.moment_in(&zone)].into_iter().flatten() {
                prop_assert!(years.contains(&moment.year()), "{text:?} is the moment {moment}");
            }
        }
    }
}

// --- the tool markup ---------------------------------------------------

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {
                "query": {"type": "string"},
                "options": {"type": "array", "items": {"type": "string"}},
                "limit": {"type": "integer"},
                "weight": {"type": "number"},
                "exact": {"type": "boolean"},
                "filters": {"type": "object"},
                "note": {"type": ["string", "null"]}
            }, "required": ["query"]}
        }}),
        json!({"type": "function", "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {
                "path": {"type": "string"},
                "lines": {"type": "array", "items": {"type": "integer"}}
            }}
        }}),
        json!({"type": "function", "function": {"name": "get_time"}}),
    ]
}

const MARKUP_PIECES: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<tool_call",
    "<tool_",
    "</tool_",
    "<",
    ">",
    "</",
    "<function=search>",
    "<function=get_time>",
    "<function=",
    "</function>",
    "<parameter=query>",
    "<parameter=limit>",
    "<parameter=options>",
    "<parameter=",
    "</parameter>",
    "</param",
    "<tool_response>",
    "</tool_response>",
    "```",
    "```json\n",
    "```python\n",
    "``",
    "`",
    "{",
    "{{",
    "}",
    "}}",
    "[",
    "]",
    "\"",
    "\\",
    "\\u00e9",
    "\\u",
    ":",
    ",",
    "\"name\"",
    "\"arguments\"",
    "\"parameters\"",
    "\"search\"",
    "\"get_time\"",
    "\"sear",
    "\"query\"",
    "\"function\"",
    "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}",
    "{\"name\": \"get_time\"}",
    "{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"/x\\\"}\"}",
    "[{\"name\": \"get_time\"}]",
    "true",
    "false",
    "null",
    "12",
    "-3.5e2",
    " ",
    " ",
    "\n",
    "\r\n",
    "\t",
    "x",
    "ü",
    "🦀",
];

fn markup_text() -> impl Strategy<Value = String> {
    text_of(MARKUP_PIECES, 24)
}

fn any_format() -> impl Strategy<Value = MarkupFormat> {
    prop_oneof![Just(MarkupFormat::Hermes), Just(MarkupFormat::QwenXml)]
}

/// `text` cut at the given places (snapped to character boundaries), empty
/// chunks included.
fn chunks<'a>(text: &'a str, cuts: &[Index]) -> Vec<&'a str> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut i = cut.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    at.sort_unstable();
    let mut pieces = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for i in at {
        pieces.push(&text[from..i]);
        from = i;
    }
    pieces.push(&text[from..]);
    pieces
}

/// Feeds the chunks, then finishes; the events with adjacent texts merged.
/// Checks what every event must be: no empty text, arguments an object.
fn parse_markup(format: MarkupFormat, chunks: &[&str]) -> Result<Vec<MarkupEvent>, TestCaseError> {
    let mut parser = MarkupParser::new(format, &tools());
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.push(chunk));
    }
    events.extend(parser.finish());
    let mut merged: Vec<MarkupEvent> = Vec::new();
    for event in events {
        match &event {
            MarkupEvent::Text(t) => prop_assert!(!t.is_empty(), "an empty text event"),
            MarkupEvent::Call(call) => {
                prop_assert!(call.arguments.is_object(), "arguments {call:?}");
                prop_assert!(!call.name.trim().is_empty(), "a call without a name");
            }
            MarkupEvent::Malformed(_) => {}
        }
        match (merged.last_mut(), event) {
            (Some(MarkupEvent::Text(last)), MarkupEvent::Text(t)) => last.push_str(&t),
            (_, event) => merged.push(event),
        }
    }
    Ok(merged)
}

proptest! {
    #![proptest_config(config(512))]

    /// Any text in any chunks: no panic, and the same events as the text
    /// fed whole (texts merged: where a text event ends depends on the
    /// chunks, by design), and as fed one character at a time.
    #[test]
    fn markup_does_not_depend_on_the_chunks(
        format in any_format(),
        text in prop_oneof![3 => markup_text(), 1 => any::<String>()],
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let whole = parse_markup(format, &[&text])?;
        let split = parse_markup(format, &chunks(&text, &cuts))?;
        prop_assert_eq!(&split, &whole, "{:?} cut at {:?}", text, cuts);
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        prop_assert_eq!(&parse_markup(format, &chars)?, &whole, "{:?} by characters", text);
    }

    /// Text without a character that can start markup (`<`, `{`, a
    /// backtick) comes back as it is, and is not held back.
    #[test]
    fn plain_text_comes_back_as_it_is(
        format in any_format(),
        text in "[^<{`]{0,200}",
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let mut parser = MarkupParser::new(format, &tools());
        let mut read = String::new();
        for chunk in chunks(&text, &cuts) {
            for event in parser.push(chunk) {
                match event {
                    MarkupEvent::Text(t) => read.push_str(&t),
                    other => return Err(TestCaseError::fail(format!("{other:?} in {text:?}"))),
                }
            }
        }
        prop_assert_eq!(&read, &text, "pushed");
        prop_assert_eq!(parser.finish(), vec![]);
    }

    /// A call written in either markup, among plain text, is read as
    /// written, in any chunks.
    #[test]
    fn a_written_call_reads_back(
        format in any_format(),
        query in "[a-zA-Z0-9üß][a-zA-Z0-9üß .,!?'/:-]{0,38}[a-zA-Z0-9üß]",
        before in "[^<{`]{0,30}",
        cuts in prop::collection::vec(any::<Index>(), 0..6),
    ) {
        let call = match format {
            MarkupFormat::Hermes => format!(
                "<tool_call>{}</tool_call>",
                json!({"name": "search", "arguments": {"query": query}})
            ),
            MarkupFormat::QwenXml => format!(
                "<tool_call><function=search><parameter=query>{query}</parameter></function></tool_call>"
            ),
        };
        let text = format!("{before}{call}");
        let events = parse_markup(format, &chunks(&text, &cuts))?;
        let calls: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                MarkupEvent::Call(c) => Some((c.name.as_str(), c.arguments.clone())),
                _ => None,
            })
            .collect();
        // (qwen-xml trims one space or line break at each end of a value:
        // the query has none there.)
        prop_assert_eq!(calls, vec![("search", json!({"query": query}))], "{:?}", text);
        let shown: String = events
            .iter()
            .filter_map(|e| match e {
                MarkupEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        prop_assert_eq!(shown, before, "{:?}", text);
    }
}

// --- the config file ---------------------------------------------------

const CONFIG_KEYS: &[&str] = &[
    "addr",
    "data_dir",
    "dist_dir",
    "token",
    "allowed_hosts",
    "allowed_origins",
    "trust_proxy",
    "chat_provider",
    "chat_base_url",
    "chat_model",
    "chat_api_key",
    "chat_tool_format",
    "chat_tool_prompt",
    "chat_max_tokens",
    "chat_turns",
    "research_budget_s",
    "max_tool_iters",
    "answer_timeout_s",
    "writing_slots",
    "voice_turn_timeout_s",
    "voice_confirm_timeout_s",
    "voice_idle_s",
    "model_idle_timeout_s",
    "local_model_url",
    "probe_ports",
    "speech_model_dir",
    "embedding_model_dir",
];

/// The config file's settings as written: the same fields, in the same
/// order and of the same types as [`FileConfig`] (whose fields are
/// private), so that the two `Debug` texts are equal exactly when every
/// field is.
mod written {
    use super::*;

    #[derive(Debug)]
    pub struct FileConfig {
        pub addr: Option<SocketAddr>,
        pub data_dir: Option<PathBuf>,
        pub dist_dir: Option<PathBuf>,
        pub token: Option<String>,
        pub allowed_hosts: Option<Vec<String>>,
        pub allowed_origins: Option<Vec<String>>,
        pub trust_proxy: Option<bool>,
        pub chat_provider: Option<Provider>,
        pub chat_base_url: Option<String>,
        pub chat_model: Option<String>,
        pub chat_api_key: Option<String>,
        pub chat_tool_format: Option<ToolFormat>,
        pub chat_tool_prompt: Option<ToolPrompt>,
        pub chat_max_tokens: Option<u32>,
        pub chat_turns: Option<Turns>,
        pub research_budget_s: Option<f64>,
        pub max_tool_iters: Option<u32>,
        pub answer_timeout_s: Option<f64>,
        pub writing_slots: Option<usize>,
        pub voice_turn_timeout_s: Option<f64>,
        pub voice_confirm_timeout_s: Option<f64>,
        pub voice_idle_s: Option<f64>,
        pub model_idle_timeout_s: Option<f64>,
        pub local_model_url: Option<String>,
        pub probe_ports: Option<Vec<u16>>,
        pub speech_model_dir: Option<PathBuf>,
        pub embedding_model_dir: Option<PathBuf>,
    }

    impl FileConfig {
        /// The TOML text of the settings that are set.
        pub fn to_toml(&self) -> String {
            use toml::Value as T;
            let mut table = toml::Table::new();
            let mut set = |key: &str, value: Option<T>| {
                if let Some(value) = value {
                    table.insert(key.to_string(), value);
                }
            };
            let string = |s: &str| T::String(s.to_string());
            let path = |p: &PathBuf| T::String(p.to_str().expect("UTF-8 paths").to_string());
            let list = |l: &Vec<String>| T::Array(l.iter().map(|s| string(s)).collect());
            set("addr", self.addr.map(|a| string(&a.to_string())));
            set("data_dir", self.data_dir.as_ref().map(path));
            set("dist_dir", self.dist_dir.as_ref().map(path));
            set("token", self.token.as_deref().map(string));
            set("allowed_hosts", self.allowed_hosts.as_ref().map(list));
            set("allowed_origins", self.allowed_origins.as_ref().map(list));
            set("trust_proxy", self.trust_proxy.map(T::Boolean));
            set(
                "chat_provider",
                self.chat_provider.map(|p| string(p.as_str())),
            );
            set("chat_base_url", self.chat_base_url.as_deref().map(string));
            set("chat_model", self.chat_model.as_deref().map(string));
            set("chat_api_key", self.chat_api_key.as_deref().map(string));
            set(
                "chat_tool_format",
                self.chat_tool_format.map(|f| string(f.as_str())),
            );
            set(
                "chat_tool_prompt",
                self.chat_tool_prompt.map(|p| {
                    string(match p {
                        ToolPrompt::Template => "template",
                        ToolPrompt::Imprint => "imprint",
                    })
                }),
            );
            set(
                "chat_max_tokens",
                self.chat_max_tokens.map(|n| T::Integer(n.into())),
            );
            set("chat_turns", self.chat_turns.map(|t| string(t.as_str())));
            set("research_budget_s", self.research_budget_s.map(T::Float));
            set(
                "max_tool_iters",
                self.max_tool_iters.map(|n| T::Integer(n.into())),
            );
            set("answer_timeout_s", self.answer_timeout_s.map(T::Float));
            set(
                "writing_slots",
                self.writing_slots
                    .map(|n| T::Integer(i64::try_from(n).expect("slots fit TOML"))),
            );
            set(
                "voice_turn_timeout_s",
                self.voice_turn_timeout_s.map(T::Float),
            );
            set(
                "voice_confirm_timeout_s",
                self.voice_confirm_timeout_s.map(T::Float),
            );
            set("voice_idle_s", self.voice_idle_s.map(T::Float));
            set(
                "model_idle_timeout_s",
                self.model_idle_timeout_s.map(T::Float),
            );
            set(
                "local_model_url",
                self.local_model_url.as_deref().map(string),
            );
            set(
                "probe_ports",
                self.probe_ports
                    .as_ref()
                    .map(|ports| T::Array(ports.iter().map(|p| T::Integer((*p).into())).collect())),
            );
            set("speech_model_dir", self.speech_model_dir.as_ref().map(path));
            set(
                "embedding_model_dir",
                self.embedding_model_dir.as_ref().map(path),
            );
            toml::to_string(&table).expect("a table is TOML")
        }
    }
}

fn any_file_config() -> impl Strategy<Value = written::FileConfig> {
    let text = || prop::option::of(any::<String>());
    let path = || prop::option::of(any::<String>().prop_map(PathBuf::from));
    let list = || prop::option::of(prop::collection::vec(any::<String>(), 0..4));
    let seconds = || {
        prop::option::of(prop_oneof![
            4 => any::<f64>(),
            1 => (0u32..86_400).prop_map(f64::from),
            1 => Just(f64::NAN),
            1 => Just(f64::INFINITY),
            1 => Just(-0.0),
        ])
    };
    let addr = prop::option::of(
        (any::<IpAddr>(), any::<u16>()).prop_map(|(ip, port)| SocketAddr::new(ip, port)),
    );
    let provider = prop::option::of(select(
        &[
            Provider::Local,
            Provider::Openai,
            Provider::Anthropic,
            Provider::Gemini,
            Provider::Ollama,
            Provider::Vllm,
        ][..],
    ));
    let tool_format = prop::option::of(select(
        &[
            ToolFormat::Native,
            ToolFormat::QwenXml,
            ToolFormat::Hermes,
            ToolFormat::None,
        ][..],
    ));
    let tool_prompt = prop::option::of(select(&[ToolPrompt::Template, ToolPrompt::Imprint][..]));
    let turns = prop::option::of(select(&[Turns::Planned, Turns::Free][..]));
    // Proptest's tuples stop at 12: three groups.
    let network = (
        addr,
        path(),
        path(),
        text(),
        list(),
        list(),
        prop::option::of(any::<bool>()),
    );
    let model = (
        provider,
        text(),
        text(),
        text(),
        tool_format,
        tool_prompt,
        prop::option::of(any::<u32>()),
        turns,
    );
    let limits = (
        seconds(),
        prop::option::of(any::<u32>()),
        seconds(),
        prop::option::of((0..=i64::MAX).prop_map(|n| n as usize)),
        seconds(),
        seconds(),
        seconds(),
        seconds(),
    );
    let built_in = (
        text(),
        prop::option::of(prop::collection::vec(any::<u16>(), 0..4)),
        path(),
        path(),
    );
    (network, model, limits, built_in).prop_map(|(network, model, limits, built_in)| {
        let (local_model_url, probe_ports, speech_model_dir, embedding_model_dir) = built_in;
        let (addr, data_dir, dist_dir, token, allowed_hosts, allowed_origins, trust_proxy) =
            network;
        let (
            chat_provider,
            chat_base_url,
            chat_model,
            chat_api_key,
            chat_tool_format,
            chat_tool_prompt,
            chat_max_tokens,
            chat_turns,
        ) = model;
        let (
            research_budget_s,
            max_tool_iters,
            answer_timeout_s,
            writing_slots,
            voice_turn_timeout_s,
            voice_confirm_timeout_s,
            voice_idle_s,
            model_idle_timeout_s,
        ) = limits;
        written::FileConfig {
            addr,
            data_dir,
            dist_dir,
            token,
            allowed_hosts,
            allowed_origins,
            trust_proxy,
            chat_provider,
            chat_base_url,
            chat_model,
            chat_api_key,
            chat_tool_format,
            chat_tool_prompt,
            chat_max_tokens,
            chat_turns,
            research_budget_s,
            max_tool_iters,
            answer_timeout_s,
            writing_slots,
            voice_turn_timeout_s,
            voice_confirm_timeout_s,
            voice_idle_s,
            model_idle_timeout_s,
            local_model_url,
            probe_ports,
            speech_model_dir,
            embedding_model_dir,
        }
    })
}

const TOML_PIECES: &[&str] = &[
    "addr",
    "chat_provider",
    "writing_slots",
    "research_budget_s",
    "allowed_hosts",
    "token",
    "trust_proxy",
    "unknown",
    " = ",
    "=",
    "\n",
    " ",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    ",",
    ".",
    "#",
    "\\",
    "\\u",
    "\\U0010FFFF",
    "\\uD800",
    "1",
    "-1",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "0x7f",
    "1_000",
    "9223372036854775808",
    "true",
    "1979-05-27T07:32:00Z",
    "\"ollama\"",
    "\"127.0.0.1:8420\"",
    "\"[::1]:80\"",
    "\u{0}",
    "\r",
    "ü",
];

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn config_file_never_panics(text in prop_oneof![any::<String>(), text_of(TOML_PIECES, 24)]) {
        let _ = FileConfig::parse(&text);
    }

    /// Settings written as TOML read back as written.
    #[test]
    fn config_file_round_trips(config in any_file_config()) {
        let text = config.to_toml();
        let read = FileConfig::parse(&text);
        prop_assert!(read.is_ok(), "{text}\nrefused: {}", read.unwrap_err());
        prop_assert_eq!(format!("{:?}", read.unwrap()), format!("{config:?}"), "{}", text);
    }

    /// A key that is not a setting is refused, by its name.
    #[test]
    fn config_file_refuses_unknown_keys(
        config in any_file_config(),
        key in "[a-z_][a-z0-9_-]{0,24}".prop_filter("not a setting", |k| !CONFIG_KEYS.contains(&k.as_str())),
        value in select(&["1", "\"x\"", "true", "[]", "{}"][..]),
    ) {
        let mut text = config.to_toml();
        // Before any table header the file may end with.
        text.insert_str(0, &format!("{key} = {value}\n"));
        let error = FileConfig::parse(&text);
        prop_assert!(error.is_err(), "{text}");
        let message = error.unwrap_err().to_string();
        prop_assert!(message.contains(&key), "{key}: {message}");
    }

    /// A setting of a known name but not one of its values is refused.
    #[test]
    fn config_file_refuses_unknown_names_of_choices(
        key in select(&["chat_provider", "chat_tool_format", "chat_tool_prompt", "chat_turns"][..]),
        value in "[a-zA-Z-]{0,12}".prop_filter("not a choice", |v| {
            !["local", "openai", "anthropic", "gemini", "ollama", "vllm", "native", "qwen-xml",
              "hermes", "none", "template", "imprint", "planned", "free"].contains(&v.as_str())
        }),
    ) {
        let mut text = String::new();
        writeln!(text, "{key} = {}", toml::Value::String(value.clone())).unwrap();
        prop_assert!(FileConfig::parse(&text).is_err(), "{text}");
    }
}
