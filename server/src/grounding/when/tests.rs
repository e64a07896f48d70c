//! The grammar of when's tests (and the "now" grounding's tests share).

use super::*;

/// Monday 2026-11-30, 10:40 local time: the "now" of the grounding
/// tests.
pub(in crate::grounding) fn now() -> DateTime<Local> {
    Local
        .from_local_datetime(
            &NaiveDate::from_ymd_opt(2026, 11, 30)
                .unwrap()
                .and_hms_opt(10, 40, 0)
                .unwrap(),
        )
        .unwrap()
}

fn at(day: (i32, u32, u32), hour: u32, minute: u32) -> Option<Stated> {
    let naive = NaiveDate::from_ymd_opt(day.0, day.1, day.2)
        .unwrap()
        .and_hms_opt(hour, minute, 0)
        .unwrap();
    Some(Stated::At(Local.from_local_datetime(&naive).unwrap()))
}

fn day(d: (i32, u32, u32)) -> Option<Stated> {
    Some(Stated::Day(NaiveDate::from_ymd_opt(d.0, d.1, d.2).unwrap()))
}

#[test]
fn moments_the_user_gave() {
    let cases = [
        (
            "Remind me tomorrow at 9 to call Anna",
            at((2026, 12, 1), 9, 0),
        ),
        ("remind me at 18:00 to buy bread", at((2026, 11, 30), 18, 0)),
        ("at 9:30 pm, take out the bins", at((2026, 11, 30), 21, 30)),
        ("call mum at 7pm", at((2026, 11, 30), 19, 0)),
        ("wake me at 7 a.m.", at((2026, 12, 1), 7, 0)),
        ("at 9 o'clock", at((2026, 12, 1), 9, 0)),
        ("at 11", at((2026, 11, 30), 11, 0)),
        ("tomorrow morning", at((2026, 12, 1), 9, 0)),
        ("this evening", at((2026, 11, 30), 18, 0)),
        ("tonight", at((2026, 11, 30), 20, 0)),
        ("tonight at 8", at((2026, 11, 30), 20, 0)),
        ("friday evening at 6", at((2026, 12, 4), 18, 0)),
        (
            "on Friday at 10am submit the report",
            at((2026, 12, 4), 10, 0),
        ),
        ("next monday at 14:15", at((2026, 12, 7), 14, 15)),
        ("the day after tomorrow at noon", at((2026, 12, 2), 12, 0)),
        ("on December 3 at 9", at((2026, 12, 3), 9, 0)),
        ("3rd of January at 10:00", at((2027, 1, 3), 10, 0)),
        (
            "2027-01-15 at 08:00 renew the insurance",
            at((2027, 1, 15), 8, 0),
        ),
        ("2026-12-01T09:00", at((2026, 12, 1), 9, 0)),
        ("by 5 pm", at((2026, 11, 30), 17, 0)),
        ("tomorrow at midnight", at((2026, 12, 1), 23, 59)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
}

#[test]
fn spans_from_now() {
    let cases = [
        ("remind me in 2 hours to stretch", Duration::hours(2)),
        ("in an hour", Duration::hours(1)),
        ("in half an hour", Duration::minutes(30)),
        ("in ten minutes", Duration::minutes(10)),
        ("in 45 min", Duration::minutes(45)),
        ("in 3 days", Duration::days(3)),
        ("in 2h", Duration::hours(2)),
        // A span opening the text, and what happens then.
        (
            "40 mins then the parking is up - remind me",
            Duration::minutes(40),
        ),
        ("an hour then check the oven", Duration::hours(1)),
    ];
    for (text, span) in cases {
        assert_eq!(
            stated(text, now()),
            Some(Stated::At(now() + span)),
            "{text}"
        );
    }
    // A span that does not open the text, or has no "then" after it, is
    // no moment from now.
    assert_eq!(stated("the walk takes 40 mins then lunch", now()), None);
    assert_eq!(stated("40 mins on the bike", now()), None);
}

#[test]
fn filler_words_are_read_past() {
    let cases = [
        (
            "remind me in exactly 2 hours",
            Some(Stated::At(now() + Duration::hours(2))),
        ),
        (
            "in about 10 minutes",
            Some(Stated::At(now() + Duration::minutes(10))),
        ),
        (
            "in roughly half an hour",
            Some(Stated::At(now() + Duration::minutes(30))),
        ),
        ("call Anna at about 9", at((2026, 12, 1), 9, 0)),
        ("at around 7 pm", at((2026, 11, 30), 19, 0)),
        ("tomorrow at approximately 14:30", at((2026, 12, 1), 14, 30)),
        ("around noon", at((2026, 11, 30), 12, 0)),
        ("tomorrow around noon", at((2026, 12, 1), 12, 0)),
        ("around 9", at((2026, 12, 1), 9, 0)),
        ("by about 5pm", at((2026, 11, 30), 17, 0)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
    // Fillers elsewhere are still no time.
    assert_eq!(stated("remind me about the dentist", now()), None);
    assert_eq!(stated("remind me about 3 people", now()), None);
}

#[test]
fn days_without_a_time() {
    assert_eq!(
        stated("remind me tomorrow to call Anna", now()),
        day((2026, 12, 1))
    );
    assert_eq!(stated("on Wednesday", now()), day((2026, 12, 2)));
    // Today is Monday: "Monday" is next week's.
    assert_eq!(stated("Monday", now()), day((2026, 12, 7)));
    assert_eq!(stated("on 2026-12-24", now()), day((2026, 12, 24)));
    assert_eq!(stated("December 24th", now()), day((2026, 12, 24)));
    // A weekday with its date is the date, not the next such weekday.
    assert_eq!(
        stated("the recital is Thursday 17 December", now()),
        day((2026, 12, 17))
    );
    assert_eq!(
        stated("Friday, 8 January at 6pm", now()),
        at((2027, 1, 8), 18, 0)
    );
    // A year said is that year's, gone by or not.
    assert_eq!(stated("on 3 March 2028", now()), day((2028, 3, 3)));
    assert_eq!(stated("was on 1 June 2026", now()), day((2026, 6, 1)));
    assert_eq!(
        stated("tomorrow", now()).and_then(Stated::moment),
        at((2026, 12, 1), 9, 0).and_then(Stated::moment)
    );
}

#[test]
fn recurrence_words() {
    use Recurrence::*;
    let cases = [
        ("Remind me every day to take my medicine", Some(Daily)),
        ("remind me daily at 8 to stretch", Some(Daily)),
        ("every morning, water the plants", Some(Daily)),
        ("each evening at 9 lock the door", Some(Daily)),
        ("Remind me every weekday at 9 to check mail", Some(Weekdays)),
        ("on weekdays at 7:30 take the train", Some(Weekdays)),
        ("Monday to Friday at 8", Some(Weekdays)),
        ("every workday", Some(Weekdays)),
        ("Remind me weekly to back up the laptop", Some(Weekly)),
        ("every week on Friday", Some(Weekly)),
        ("Remind me every Monday to take out the bins", Some(Weekly)),
        ("on Tuesdays at 6pm yoga", Some(Weekly)),
        ("once a week call grandma", Some(Weekly)),
        ("Remind me tomorrow at 9 to call Anna", None),
        ("remind me on Monday to call", None),
        ("next week", None),
        ("what did we decide every time", None),
        ("", None),
    ];
    for (text, expected) in cases {
        assert_eq!(recurrence(text), expected, "{text}");
    }
    assert_eq!(Daily.as_str(), "daily");
    assert_eq!(Weekdays.as_str(), "weekdays");
    assert_eq!(Weekly.as_str(), "weekly");
}

#[test]
fn recurring_words_without_a_clock_time_or_day_say_no_moment() {
    // "Every day" says how often, not when: the time is asked.
    for text in [
        "Remind me every day to take my medicine",
        "remind me daily to stretch",
        "remind me before the flight",
        "remind me about it next week",
        "remind me weekly to back up",
    ] {
        assert_eq!(stated(text, now()), None, "{text}");
    }
    assert_eq!(stated("every day at 8pm", now()), at((2026, 11, 30), 20, 0));
    // "On Mondays": the next Monday (today is one: a week on).
    assert_eq!(stated("on Mondays", now()), day((2026, 12, 7)));
}

#[test]
fn the_first_time_a_recurrence_fires() {
    use Recurrence::*;
    let moment = |d: (i32, u32, u32), h| at(d, h, 0).and_then(Stated::moment).unwrap();
    // 09:00 today has passed (it is 10:40): tomorrow.
    assert_eq!(
        Daily.first_after(moment((2026, 11, 30), 9), now()),
        Some(moment((2026, 12, 1), 9))
    );
    assert_eq!(
        Daily.first_after(moment((2026, 11, 30), 20), now()),
        Some(moment((2026, 11, 30), 20))
    );
    // Saturday 5 December is no weekday: Monday the 7th.
    assert_eq!(
        Weekdays.first_after(moment((2026, 12, 5), 9), now()),
        Some(moment((2026, 12, 7), 9))
    );
    assert_eq!(
        Weekly.first_after(moment((2026, 11, 30), 9), now()),
        Some(moment((2026, 12, 7), 9))
    );
}

#[test]
fn words_that_say_nothing_about_when() {
    for text in [
        "Remind me about the dentist.",
        "Remind me to send the invoice",
        "Set a reminder to call Anna",
        "Remind me to call 3 people",
        "remind me to buy 2 pizzas and 12 eggs",
        "remind me to read chapter 9",
        "Remind me to take my medicine",
        "Remind me about the meeting in the project",
        "remind me to pay the may rent",
        "",
    ] {
        assert_eq!(stated(text, now()), None, "{text}");
    }
}

#[test]
fn a_reminders_text_loses_the_time_it_carries_elsewhere() {
    let cases = [
        ("call Tom tomorrow at 9", "call Tom"),
        ("take your vitamins every day at 8 AM", "take your vitamins"),
        (
            "renew Passport on December 3, 2026 at 10:00 AM",
            "renew Passport",
        ),
        (
            "The billing meeting is scheduled for tomorrow at 9:30.",
            "The billing meeting",
        ),
        ("Stretch, 15:00", "Stretch"),
        ("Back up the laptop weekly", "Back up the laptop"),
        ("check the inbox every weekday at 9:30.", "check the inbox"),
        ("Call the bank in 2 hours", "Call the bank"),
        ("Water the plants in the evening", "Water the plants"),
        ("Tomorrow at 9: call Tom", "call Tom"),
        ("It next week", "It"),
        ("call Anna later", "call Anna"),
        // Numbers that are not the time stay.
        ("Read chapter 3 on Monday", "Read chapter 3"),
        ("Buy 2 tickets for tomorrow", "Buy 2 tickets"),
        // No time, or nothing but time: as it was.
        ("Call 3 people", "Call 3 people"),
        ("check in before the flight", "check in before the flight"),
        ("Meet at the station", "Meet at the station"),
        ("Next steps for the launch", "Next steps for the launch"),
        ("tomorrow at 9", "tomorrow at 9"),
        ("call grandma", "call grandma"),
    ];
    for (text, expected) in cases {
        assert_eq!(without_the_time(text), expected, "{text}");
    }
}

#[test]
fn a_span_of_days_keeps_the_clock_time_said_and_a_huge_span_is_no_time() {
    let now = chrono::Local
        .with_ymd_and_hms(2030, 6, 3, 10, 40, 0)
        .earliest()
        .unwrap();
    let at = |text: &str| match stated(text, now) {
        Some(Stated::At(t)) => Some(t.format("%Y-%m-%d %H:%M").to_string()),
        _ => None,
    };
    assert_eq!(at("in 3 days at 9am").as_deref(), Some("2030-06-06 09:00"));
    assert_eq!(at("in 2 hours").as_deref(), Some("2030-06-03 12:40"));
    assert_eq!(at("in 2147483647weeks"), None);
    assert_eq!(at("tmrw at 8.05pm").as_deref(), Some("2030-06-04 20:05"));
}

#[test]
fn a_span_of_several_parts_takes_them_all() {
    // It is 10:40 on Monday 30 November.
    let cases = [
        (
            "remind me in 1 hr 15 min to call Tom",
            at((2026, 11, 30), 11, 55),
        ),
        ("in 1h15m", at((2026, 11, 30), 11, 55)),
        ("in 1h15", at((2026, 11, 30), 11, 55)),
        ("in 1 hour, 15 minutes", at((2026, 11, 30), 11, 55)),
        ("in 2 hours 30 minutes", at((2026, 11, 30), 13, 10)),
        ("in 2 hours and 30 minutes", at((2026, 11, 30), 13, 10)),
        ("in an hour and a half", at((2026, 11, 30), 12, 10)),
        ("in two and a half hours", at((2026, 11, 30), 13, 10)),
        ("in 1.5 hours", at((2026, 11, 30), 12, 10)),
        ("in half an hour", at((2026, 11, 30), 11, 10)),
        ("in a half hour", at((2026, 11, 30), 11, 10)),
        ("in a quarter of an hour", at((2026, 11, 30), 10, 55)),
        ("in 5m", at((2026, 11, 30), 10, 45)),
        ("in 2 days 3 hours", at((2026, 12, 2), 13, 40)),
        ("in a day and a half", at((2026, 12, 1), 22, 40)),
        ("an hour and a half from now", at((2026, 11, 30), 12, 10)),
        (
            "call Anna 2 hours 30 minutes from now",
            at((2026, 11, 30), 13, 10),
        ),
        // The span ends where the sentence goes on.
        ("in 2 hours and call mum", at((2026, 11, 30), 12, 40)),
        ("in an hour and a bit", at((2026, 11, 30), 11, 40)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
    // A reminder's text loses the whole span.
    assert_eq!(
        without_the_time("Call the bank in 1 hr 15 min"),
        "Call the bank"
    );
    assert_eq!(
        without_the_time("Call the bank in an hour and a half"),
        "Call the bank"
    );
    assert_eq!(without_the_time("Call Anna 2 hours from now"), "Call Anna");
}

#[test]
fn a_span_with_a_part_left_unclear_is_no_time() {
    // "15" of what? Not an hour with the 15 dropped: Imprint asks.
    let no_time = |text: &str| assert_eq!(stated(text, now()), None, "{text}");
    no_time("remind me in 1 hr 15 to call Tom");
    no_time("in 2 hours and 5");
    no_time("in 15 minutes 2 hours");
    no_time("1 hour 2 hours from now");
    no_time("in 1h15x");
    assert_eq!(span_from_now(&words("in 1 hr 15")), None);
    assert_eq!(
        span_from_now(&words("in 1 hr 15 min")),
        Some(Duration::minutes(75))
    );
}

#[test]
fn clock_times_written_with_a_dot() {
    let cases = [
        ("6.45pm", at((2026, 11, 30), 18, 45)),
        ("at 6.45 pm", at((2026, 11, 30), 18, 45)),
        ("at 18.45", at((2026, 11, 30), 18, 45)),
        ("remind me at 12.50 to pay", at((2026, 11, 30), 12, 50)),
        ("tomorrow 18.45", at((2026, 12, 1), 18, 45)),
        // 9:30 has passed today.
        ("call Tom at 9.30", at((2026, 12, 1), 9, 30)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
    assert_eq!(answered("18.45", now()), at((2026, 11, 30), 18, 45));
    let saturday = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
    assert_eq!(
        time_on("18.45", saturday).map(Stated::At),
        at((2026, 12, 5), 18, 45)
    );
    // A sum or a measure with a dot is no clock time.
    let no_time = |text: &str| assert_eq!(stated(text, now()), None, "{text}");
    no_time("the babysitter charges 12.50 an hour");
    no_time("pay Tom 12.50");
    no_time("my reading glasses are +1.75 in both eyes");
    no_time("at 1.75");
    assert_eq!(
        without_the_time("Pay the sitter 12.50"),
        "Pay the sitter 12.50".to_string()
    );
}

#[test]
fn short_names_of_weekdays_where_a_day_is_said() {
    // Monday 30 November: Tuesday is 1 December, Sunday the 6th, Monday
    // the 7th.
    let cases = [
        ("thurs at 6.45pm", at((2026, 12, 3), 18, 45)),
        ("Thurs. at 6.45pm", at((2026, 12, 3), 18, 45)),
        ("thur at 9", at((2026, 12, 3), 9, 0)),
        ("on thu", day((2026, 12, 3))),
        ("remind me on weds to water the plants", day((2026, 12, 2))),
        ("weds at 10am", at((2026, 12, 2), 10, 0)),
        ("on wed.", day((2026, 12, 2))),
        ("next tues", day((2026, 12, 1))),
        ("tue 14:00", at((2026, 12, 1), 14, 0)),
        ("remind me on mon to call the bank", day((2026, 12, 7))),
        ("fri evening", at((2026, 12, 4), 18, 0)),
        ("by fri.", day((2026, 12, 4))),
        ("sat 10am", at((2026, 12, 5), 10, 0)),
        ("on Sat. at 9", at((2026, 12, 5), 9, 0)),
        ("on sun", day((2026, 12, 6))),
        ("this sun at noon", at((2026, 12, 6), 12, 0)),
        ("every thurs at 8", at((2026, 12, 3), 8, 0)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
    assert_eq!(recurrence("every thurs at 8"), Some(Recurrence::Weekly));
    // Alone, a short name is a day only as an answer.
    assert_eq!(stated("sat", now()), None);
    assert_eq!(answered("sat", now()), day((2026, 12, 5)));
    assert_eq!(answered("thurs", now()), day((2026, 12, 3)));
}

#[test]
fn words_that_share_a_short_day_name_say_no_day() {
    let no_time = |text: &str| assert_eq!(stated(text, now()), None, "{text}");
    no_time("I sat down with Tom");
    no_time("remind me to put on sun cream");
    no_time("they got wed in June");
    no_time("this sun is bright");
    no_time("c'mon, mon");
    // Another time in the sentence is still read.
    assert_eq!(
        stated("remind me to check the sat nav at 5pm", now()),
        at((2026, 11, 30), 17, 0)
    );
    assert_eq!(
        stated("look at the sun tonight", now()),
        at((2026, 11, 30), 20, 0)
    );
    // "thus" is no "thu" with an "s".
    assert_eq!(
        stated("and thus at 9 we leave", now()),
        at((2026, 12, 1), 9, 0)
    );
    assert_eq!(
        without_the_time("Tell Tom I sat"),
        "Tell Tom I sat".to_string()
    );
    assert_eq!(without_the_time("call Tom on thurs at 9"), "call Tom");
}

#[test]
fn dates_written_with_slashes() {
    // Whichever part is over 12 is the day: no locale needed.
    for order in [None, Some(DateOrder::MonthFirst), Some(DateOrder::DayFirst)] {
        let cases = [
            ("on 14/12", day((2026, 12, 14))),
            ("on 12/14", day((2026, 12, 14))),
            ("14/12/2026", day((2026, 12, 14))),
            ("12/14/26", day((2026, 12, 14))),
            ("remind me on 14/12 at 6pm", at((2026, 12, 14), 18, 0)),
            ("due 25/1", day((2027, 1, 25))),
            ("12/25 at 9", at((2026, 12, 25), 9, 0)),
            ("thurs 17/12", day((2026, 12, 17))),
            ("on 5/5", day((2027, 5, 5))),
            // Not dates.
            ("open 24/7", None),
            ("on 13/13", None),
            ("on 0/5", None),
            ("on 2/30", None),
            ("1/2/3", None),
            // A fraction, and a day said plainly.
            ("add 1/2 cup of sugar tomorrow", day((2026, 12, 1))),
            ("pay for 3/4 of it tomorrow", day((2026, 12, 1))),
        ];
        for (text, expected) in cases {
            assert_eq!(stated_in(text, now(), order), expected, "{text} {order:?}");
        }
    }
    // Both parts 12 or less: the locale's order says which.
    assert_eq!(
        stated_in("on 3/4", now(), Some(DateOrder::MonthFirst)),
        day((2027, 3, 4))
    );
    assert_eq!(
        stated_in("on 3/4", now(), Some(DateOrder::DayFirst)),
        day((2027, 4, 3))
    );
    assert_eq!(
        stated_in("3/4/2027 at 9", now(), Some(DateOrder::DayFirst)),
        at((2027, 4, 3), 9, 0)
    );
    // No locale to say: no day is guessed.
    assert_eq!(stated_in("on 3/4", now(), None), None);
    assert_eq!(stated_in("3/4/2027 at 9", now(), None), None);
    let saturday = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
    assert_eq!(time_on("3/4 at 10", saturday), None);
    assert_eq!(without_the_time("pay the rent on 3/4"), "pay the rent");
}

#[test]
fn dates_written_with_dots_are_day_first() {
    // Whatever the locale: dots are written day first.
    for order in [None, Some(DateOrder::MonthFirst), Some(DateOrder::DayFirst)] {
        let cases = [
            ("21.12 6:30 load the order", at((2026, 12, 21), 6, 30)),
            (
                "remind me 4.1. kl 10:00 to send the papers",
                at((2027, 1, 4), 10, 0),
            ),
            ("on 4.1 at 9", at((2027, 1, 4), 9, 0)),
            ("rent due 4.1.", day((2027, 1, 4))),
            ("4.1.2027 at 9", at((2027, 1, 4), 9, 0)),
            ("21.12.26", day((2026, 12, 21))),
            // A time, money, a number: no dates.
            ("tomorrow 18.45", at((2026, 12, 1), 18, 45)),
            ("at 6.45pm", at((2026, 11, 30), 18, 45)),
            ("run for 1.5 hours", None),
            ("2.5 acres of glass", None),
            ("it was 12.50 an hour", None),
            ("on 31.13", None),
        ];
        for (text, expected) in cases {
            assert_eq!(stated_in(text, now(), order), expected, "{text} {order:?}");
        }
    }
    assert_eq!(
        without_the_time("load the order 21.12 6:30"),
        "load the order"
    );
}

#[test]
fn a_date_that_reads_two_ways_offers_both_readings() {
    let moment = |d: (i32, u32, u32), h, m| at(d, h, m).and_then(Stated::moment).unwrap();
    assert_eq!(
        two_way_date("remind me on 3/4 at 18:00 to pay the rent", now(), None),
        Some(TwoWayDate {
            written: "3/4".to_string(),
            readings: [moment((2027, 3, 4), 18, 0), moment((2027, 4, 3), 18, 0)],
        })
    );
    assert_eq!(
        two_way_date("on 3/4", now(), None).map(|date| date.readings),
        Some([moment((2027, 3, 4), 9, 0), moment((2027, 4, 3), 9, 0)])
    );
    // A locale that says, a date that reads one way, or a day said
    // plainly: nothing to ask.
    assert_eq!(
        two_way_date("on 3/4", now(), Some(DateOrder::DayFirst)),
        None
    );
    assert_eq!(two_way_date("on 14/12", now(), None), None);
    assert_eq!(two_way_date("for 3/4 of it tomorrow", now(), None), None);
    assert_eq!(two_way_date("call Tom", now(), None), None);
}

#[test]
fn the_order_of_a_date_comes_from_the_locale() {
    use DateOrder::*;
    let cases = [
        ("en_US.UTF-8", Some(MonthFirst)),
        ("en_PH", Some(MonthFirst)),
        ("ja_JP.UTF-8", Some(MonthFirst)),
        ("en_GB.UTF-8", Some(DayFirst)),
        ("de_DE@euro", Some(DayFirst)),
        ("fr_FR.utf8", Some(DayFirst)),
        ("en_in", Some(DayFirst)),
        ("fr_CA.UTF-8", None),
        ("C.UTF-8", None),
        ("C", None),
        ("POSIX", None),
        ("en", None),
        ("", None),
    ];
    for (locale, expected) in cases {
        assert_eq!(date_order_of(locale), expected, "{locale}");
    }
    // LC_ALL, then LC_TIME, then LANG: the first set and not empty.
    let environment = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(var, _)| *var == name)
                .map(|(_, value)| value.to_string())
        }
    };
    let read = |vars| slashed_date::date_order_in(environment(vars));
    assert_eq!(read(&[("LANG", "en_US.UTF-8")]), Some(MonthFirst));
    assert_eq!(
        read(&[("LANG", "en_US.UTF-8"), ("LC_TIME", "en_GB.UTF-8")]),
        Some(DayFirst)
    );
    assert_eq!(
        read(&[("LC_ALL", "C.UTF-8"), ("LANG", "en_US.UTF-8")]),
        None
    );
    assert_eq!(
        read(&[("LC_ALL", ""), ("LANG", "en_US.UTF-8")]),
        Some(MonthFirst)
    );
    assert_eq!(read(&[]), None);
}

#[test]
fn clock_times_said_past_or_to_the_hour() {
    let cases = [
        (
            "remind me at half past 7 in the morning to feed the cat",
            at((2026, 12, 1), 7, 30),
        ),
        ("tomorrow at quarter past 9", at((2026, 12, 1), 9, 15)),
        ("quarter to 6 this evening", at((2026, 11, 30), 17, 45)),
        ("ten to six pm", at((2026, 11, 30), 17, 50)),
        ("friday at twenty past eight am", at((2026, 12, 4), 8, 20)),
        ("20 past 3pm", at((2026, 11, 30), 15, 20)),
        // The minutes with their unit, tens and units apart.
        (
            "friday at twenty five minutes past eleven to ring the bank",
            at((2026, 12, 4), 11, 25),
        ),
        (
            "at ten minutes to nine in the evening",
            at((2026, 11, 30), 20, 50),
        ),
        // "half 8": half past, as Ireland and Britain say it.
        (
            "remind me to pay sean friday at half 12",
            at((2026, 12, 4), 12, 30),
        ),
        (
            "remind me wed at half 8 in the morning",
            at((2026, 12, 2), 8, 30),
        ),
        ("tmrw half 3 in the afternoon", at((2026, 12, 1), 15, 30)),
        ("thursday at half seven pm", at((2026, 12, 3), 19, 30)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
    // "to" between numbers is a span of hours, and "past" names no time
    // without an hour after it.
    assert_eq!(clock_time(&words("from 5 to 6"), None), None);
    assert_eq!(clock_time(&words("it is long past due"), None), None);
    // "half" is a time only with an hour after it.
    assert_eq!(clock_time(&words("half an hour"), None), None);
    assert_eq!(clock_time(&words("cut it in half 2 times"), None), None);
    assert_eq!(
        without_the_time("pay sean friday at half 12"),
        "pay sean".to_string()
    );
    assert_eq!(
        without_the_time("feed the cat at half past 7"),
        "feed the cat".to_string()
    );
}

#[test]
fn a_greeting_names_no_part_of_the_day() {
    let cases = [
        (
            "Good evening. Please remind me on Friday at twenty minutes past eight in the morning to ring the bank.",
            at((2026, 12, 4), 8, 20),
        ),
        ("good morning! a reminder at 8 tonight", at((2026, 11, 30), 20, 0)),
        ("good afternoon, remind me at 9 to water the beans", at((2026, 12, 1), 9, 0)),
    ];
    for (text, want) in cases {
        assert_eq!(stated(text, now()), want, "{text}");
    }
}

#[test]
fn an_hour_said_with_its_part_of_the_day_and_a_day_before_its_month() {
    let cases = [
        ("10 in the morning", at((2026, 12, 1), 10, 0)),
        ("at 4 in the afternoon", at((2026, 11, 30), 16, 0)),
        ("call the garage 8 at night", at((2026, 11, 30), 20, 0)),
        ("7 tonight", at((2026, 11, 30), 19, 0)),
        // The day between the hour and its part of the day.
        ("set a reminder for 7 tomorrow morning", at((2026, 12, 1), 7, 0)),
        ("a reminder for 6 tomorrow evening", at((2026, 12, 1), 18, 0)),
        ("nudge me 4 friday afternoon", at((2026, 12, 4), 16, 0)),
        (
            "could you remind me on the 14th of January, 9 in the morning, to book the MOT",
            at((2027, 1, 14), 9, 0),
        ),
        ("on 2 March, 11 in the morning", at((2027, 3, 2), 11, 0)),
        // The day spelled out, before or after its month.
        (
            "a reminder on the twenty-first of December at a quarter to five in the afternoon to collect the packs",
            at((2026, 12, 21), 16, 45),
        ),
        ("on the third of January at 9", at((2027, 1, 3), 9, 0)),
        ("January thirtieth at 8am", at((2027, 1, 30), 8, 0)),
        ("December twenty first at 9", at((2026, 12, 21), 9, 0)),
        // The day after the month, when none is before it.
        ("on December 3 at 9", at((2026, 12, 3), 9, 0)),
    ];
    for (text, want) in cases {
        assert_eq!(stated(text, now()), want, "{text}");
    }
    // A span alone that opens a jotted reminder is from now.
    assert_eq!(
        stated("1 hr 20 min - check the kiln", now()),
        at((2026, 11, 30), 12, 0)
    );
    assert_eq!(
        stated("45 mins: oven off", now()),
        at((2026, 11, 30), 11, 25)
    );
    // A number with no part of the day after it stays no time.
    assert_eq!(stated("buy 10 in total", now()), None);
}

#[test]
fn may_as_a_verb_says_no_day() {
    assert_eq!(stated("I may first need to call the bank", now()), None);
    assert_eq!(stated("the second may be late", now()), None);
}

#[test]
fn an_hour_spelled_out_and_a_weekday_with_its_date() {
    let cases = [
        (
            "remind me on monday at eight in the morning to put the bins out",
            at((2026, 12, 7), 8, 0),
        ),
        ("at seven in the evening", at((2026, 11, 30), 19, 0)),
        ("tomorrow at eleven", at((2026, 12, 1), 11, 0)),
        (
            "remind me wed the 9th at noon to pay the nursery",
            at((2026, 12, 9), 12, 0),
        ),
        ("thurs the 10th at 5pm", at((2026, 12, 10), 17, 0)),
        ("pay the deposit on the 3rd at 9am", at((2026, 12, 3), 9, 0)),
        ("on the 29th at 9am", at((2026, 12, 29), 9, 0)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated(text, now()), expected, "{text}");
    }
    // An ordinal of no day, and "at one" of no time.
    assert_eq!(
        stated("print the 3rd draft at 4pm", now()),
        at((2026, 11, 30), 16, 0)
    );
    assert_eq!(stated("at one point we spoke", now()), None);
}

#[test]
fn the_nordic_clock_word_marks_a_time() {
    // "kl" (klokka, klokken, klockan) and Finnish "klo" lead a clock
    // time as "at" does, a dot between hour and minutes included.
    let monday = (2026, 12, 7);
    let cases = [
        (
            "remind me 22/1 kl 10 to ring the garage",
            at((2027, 1, 22), 10, 0),
        ),
        (
            "mon kl. 8.30 remind me to send the receipts",
            at(monday, 8, 30),
        ),
        ("tmrw kl 10 chase the invoice", at((2026, 12, 1), 10, 0)),
        ("call the bank klo 17.45", at((2026, 11, 30), 17, 45)),
    ];
    for (text, expected) in cases {
        assert_eq!(stated_in(text, now(), None), expected, "{text}");
    }
    assert_eq!(
        stated_in(
            "remind me 11/1 kl 9.30 to send the invoices",
            now(),
            Some(DateOrder::DayFirst)
        ),
        at((2027, 1, 11), 9, 30)
    );
    // "kl" is part of the time, not of what to be reminded of; with no
    // time after it, it is a word of the text ("KL" for Kuala Lumpur).
    assert_eq!(
        without_the_time("send the receipts mon kl. 8.30"),
        "send the receipts"
    );
    assert_eq!(without_the_time("kl 10 ring the garage"), "ring the garage");
    assert!(!is_time_word("kl"));
    assert_eq!(stated_in("when's my flight to KL?", now(), None), None);
}

#[test]
fn every_day_a_text_states_is_read_when_it_states_several() {
    use super::days_stated;
    let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
    let at = |y, m, d, h, min| {
        Local
            .from_local_datetime(&day(y, m, d).and_hms_opt(h, min, 0).unwrap())
            .unwrap()
    };
    // The whole text's time of day for days that say none.
    assert_eq!(
        days_stated(
            "Choir concerts at St Mary's: Sat 12 Dec and Sun 13 Dec, 7pm, tickets £8",
            now()
        ),
        vec![
            Stated::At(at(2026, 12, 12, 19, 0)),
            Stated::At(at(2026, 12, 13, 19, 0)),
        ]
    );
    // Days alone; each its own time where it says one.
    assert_eq!(
        days_stated("Flights: out 3 February, back 21 February", now()),
        vec![Stated::Day(day(2027, 2, 3)), Stated::Day(day(2027, 2, 21))]
    );
    assert_eq!(
        days_stated(
            "Parents' evening Tue 8 Dec at 4pm & Thu 10 Dec at 6.15pm",
            now()
        ),
        vec![
            Stated::At(at(2026, 12, 8, 16, 0)),
            Stated::At(at(2026, 12, 10, 18, 15)),
        ]
    );
    // A day gone by this year is no day of the list.
    assert_eq!(
        days_stated("Invoice sent 20 Nov; the order goes out Fri 11 Dec", now()),
        vec![Stated::Day(day(2026, 12, 11))]
    );
    // One day, or a day and its times, is no list of days.
    assert!(days_stated("Dentist on Friday 11 December at 10am", now()).is_empty());
    assert!(days_stated("Market stall Sat 19 Dec, 9am to 3pm, pitch 14", now()).is_empty());
    assert!(days_stated("The gate code is 4172, and the key is under the pot", now()).is_empty());
}
