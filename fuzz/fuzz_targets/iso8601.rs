//! `imprint::iso8601`: any text reads without a panic; what reads as a
//! date or a moment lies in the years 0000–9999 and, written back in ISO
//! 8601, reads as the same.

#![no_main]

use chrono::{DateTime, Datelike, FixedOffset, Local, SecondsFormat, TimeZone, Utc};
use imprint::iso8601::{self, IsoTime};
use libfuzzer_sys::fuzz_target;

const YEARS: std::ops::RangeInclusive<i32> = 0..=9999;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let now: DateTime<Local> = Utc
        .with_ymd_and_hms(2026, 5, 1, 12, 0, 0)
        .unwrap()
        .with_timezone(&Local);
    let _ = iso8601::parse_date_time(&text, now);
    let Some(read) = iso8601::parse(&text) else {
        return;
    };
    // A zone from the input, for a wall-clock time.
    let minutes = data
        .iter()
        .fold(0i32, |m, &b| (m * 31 + i32::from(b)) % 2879)
        - 1439;
    let zone = FixedOffset::east_opt(minutes * 60).unwrap();
    for moment in [
        read.moment_in(&Utc),
        read.moment_in(&zone),
        read.moment_in(&Local),
    ]
    .into_iter()
    .flatten()
    {
        assert!(YEARS.contains(&moment.year()), "{text:?} is {moment}");
    }
    let written = match read {
        IsoTime::Exact(t) => {
            assert!(YEARS.contains(&t.year()), "{text:?} is {t}");
            t.to_rfc3339_opts(SecondsFormat::AutoSi, false)
        }
        IsoTime::Wall(t) => {
            assert!(YEARS.contains(&t.year()), "{text:?} is {t}");
            t.format("%Y-%m-%dT%H:%M:%S%.f").to_string()
        }
        IsoTime::Date(d) => {
            assert!(YEARS.contains(&d.year()), "{text:?} is {d}");
            d.format("%Y-%m-%d").to_string()
        }
    };
    assert_eq!(
        iso8601::parse(&written),
        Some(read),
        "{text:?} written as {written:?}"
    );
});
