//! The time grammar (`imprint::grounding::when`): any text, at any "now",
//! reads without a panic; `without_the_time` only takes words away.
//!
//! Input: one byte choosing how far from today "now" is, eight bytes of
//! "now", then the text (invalid UTF-8 replaced).

#![no_main]

use chrono::{DateTime, Local, TimeZone, Utc};
use imprint::grounding::when;
use libfuzzer_sys::fuzz_target;

/// A "now" from the input: mostly within a century of 2026, else anywhere
/// chrono holds (a day kept from each end, where a local date overflows).
fn now(select: u8, bytes: &[u8]) -> DateTime<Local> {
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    let raw = i64::from_le_bytes(raw);
    let (from, span) = if select < 192 {
        (1_000_000_000, 100 * 365 * 86_400)
    } else {
        let min = DateTime::<Utc>::MIN_UTC.timestamp() + 86_400;
        let max = DateTime::<Utc>::MAX_UTC.timestamp() - 86_400;
        (min, max - min)
    };
    let secs = from + raw.rem_euclid(span);
    Utc.timestamp_opt(secs, 0).unwrap().with_timezone(&Local)
}

fuzz_target!(|data: &[u8]| {
    let Some((&select, rest)) = data.split_first() else {
        return;
    };
    let (now_bytes, text) = rest.split_at(rest.len().min(8));
    let now = now(select, now_bytes);
    let text = String::from_utf8_lossy(text);
    if let Some(stated) = when::stated(&text, now) {
        let _ = stated.moment();
    }
    let _ = when::recurrence(&text);
    let _ = when::is_only_time(&text);
    let _ = when::zone_name(&text);
    let without = when::without_the_time(&text);
    assert!(without.len() <= text.len(), "{text:?} -> {without:?}");
});
