//! The zone database's names as people write them, read once from
//! chrono-tz's data: the abbreviations its zones show ("EST", "CET",
//! "WIB") and the cities its zones are named after ("Paris" in
//! Europe/Paris, "New York" in America/New_York).
//!
//! What each abbreviation means is decided from which zones show it, in
//! January and in July of this year:
//! - one offset: that offset, or the zone itself when every zone that
//!   shows it keeps one clock (the same offsets and abbreviations in both
//!   months) and that clock changes in the year, so "9 PST" in July is 9 on
//!   the Pacific clock (its summer time applies);
//! - several offsets: refused, naming them ("IST": India, Ireland, Israel;
//!   "CST": US Central, China, Cuba), unless one offset's zones outnumber
//!   the others at least three to one and the others are one clock (one
//!   zone and its aliases). Then the many win: tzdata writes "PST" for
//!   Manila too and "CDT" for Cuba, but a user typing "9 PST" means the US
//!   Pacific clock far more often, while "CST" (China and Cuba against US
//!   Central) stays refused.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use chrono::{Datelike, FixedOffset, Offset, TimeZone, Utc};
use chrono_tz::{OffsetName, Tz};

/// What a name in the words of a time stands for.
#[derive(Clone, Debug)]
pub(super) enum Meaning {
    /// An offset from UTC.
    Fixed(FixedOffset),
    /// A zone of the database, with its clock changes.
    Named(Tz),
    /// Several offsets: refused, with these words naming them.
    Ambiguous(String),
}

/// Class: US times said in their short form ("9 ET") that the zone
/// database does not write (it writes EST and EDT). Read in capitals only,
/// as every abbreviation of two letters: "et" and "pt" are words.
const US_SHORT: &[(&str, &str)] = &[
    ("PT", "America/Los_Angeles"),
    ("MT", "America/Denver"),
    ("CT", "America/Chicago"),
    ("ET", "America/New_York"),
];

/// Class: abbreviations still in common use that tzdata stopped writing
/// when it replaced invented abbreviations with numeric ones ("+08" for
/// Singapore), where the database's reading alone would be wrong: SGT was
/// read before and stays read; "AST" is Atlantic in the database but Arabia
/// (+03:00) to many users, and "BT" is Baghdad or Bhutan, so both are
/// refused. Others the database no longer writes ("BRT", "GST") are refused
/// as unknown.
const NOT_IN_TZDATA: &[(&str, Option<&str>)] = &[
    ("SGT", None),
    ("AST", Some("Atlantic (-04:00) or Arabia (+03:00)")),
    ("BT", Some("Baghdad (+03:00) or Bhutan (+06:00)")),
];

/// The offset SGT stands for: Singapore, +08:00.
const SGT_SECONDS: i32 = 8 * 3600;

/// The areas of the database's own zone names ("Europe/…"), as opposed to
/// its older aliases ("US/Pacific", "Cuba", "Etc/UTC"): an example or a
/// zone applied is taken from these when there is one.
const AREAS: &[&str] = &[
    "Africa",
    "America",
    "Antarctica",
    "Arctic",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
];

/// A zone's clock in January and in July of this year: (seconds east of
/// UTC, abbreviation) in each.
type Clock = [(i32, String); 2];

/// Zones of the database, each with its clock this year.
type Zones<'a> = Vec<&'a (Tz, Clock)>;

/// Every zone of the database and its clock this year.
static ZONES: LazyLock<Vec<(Tz, Clock)>> = LazyLock::new(|| {
    let year = Utc::now().year();
    let instants = [1, 7].map(|month| {
        Utc.with_ymd_and_hms(year, month, 15, 12, 0, 0)
            .single()
            .unwrap_or_default()
            .naive_utc()
    });
    chrono_tz::TZ_VARIANTS
        .iter()
        .map(|&tz| {
            let clock = instants.map(|at| {
                let offset = tz.offset_from_utc_datetime(&at);
                (
                    offset.fix().local_minus_utc(),
                    offset.abbreviation().unwrap_or_default().to_string(),
                )
            });
            (tz, clock)
        })
        .collect()
});

/// Abbreviations (in capitals) and what each stands for.
static ABBREVIATIONS: LazyLock<HashMap<String, Meaning>> = LazyLock::new(|| {
    // Abbreviation -> offset -> the zones showing it at that offset.
    let mut uses: HashMap<String, BTreeMap<i32, Zones>> = HashMap::new();
    for zone in ZONES.iter() {
        for (i, (seconds, name)) in zone.1.iter().enumerate() {
            let alphabetic = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic());
            let again = i == 1 && zone.1[0] == zone.1[1];
            if alphabetic && !again {
                uses.entry(name.to_ascii_uppercase())
                    .or_default()
                    .entry(*seconds)
                    .or_default()
                    .push(zone);
            }
        }
    }
    let mut meanings: HashMap<String, Meaning> = uses
        .into_iter()
        .map(|(name, offsets)| {
            let meaning = meaning_of(offsets.into_iter().collect());
            (name, meaning)
        })
        .collect();
    for (name, ambiguous) in NOT_IN_TZDATA {
        let meaning = match ambiguous {
            Some(places) => Meaning::Ambiguous((*places).to_string()),
            None => match FixedOffset::east_opt(SGT_SECONDS) {
                Some(offset) => Meaning::Fixed(offset),
                None => continue,
            },
        };
        meanings.insert((*name).to_string(), meaning);
    }
    meanings
});

/// The zones named after each city, by the city's name in lower case with
/// spaces for underscores ("new york", "paris", "japan").
static CITIES: LazyLock<HashMap<String, Meaning>> = LazyLock::new(|| {
    let mut named: HashMap<String, Zones> = HashMap::new();
    for zone in ZONES.iter() {
        let name = zone.0.name();
        let city = name.rsplit('/').next().unwrap_or(name);
        let written = city
            .chars()
            .all(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '-'));
        if written {
            let key = city.replace('_', " ").to_ascii_lowercase();
            named.entry(key).or_default().push(zone);
        }
    }
    named
        .into_iter()
        .map(|(city, zones)| {
            let meaning = if one_clock(&zones) {
                Meaning::Named(example(&zones))
            } else {
                Meaning::Ambiguous(
                    zones
                        .iter()
                        .take(4)
                        .map(|(tz, clock)| format!("{} ({})", tz.name(), shown(clock[0].0)))
                        .collect::<Vec<_>>()
                        .join(" or "),
                )
            };
            (city, meaning)
        })
        .collect()
});

/// The most words a city's name has ("port of spain": 3).
pub(super) static LONGEST_CITY: LazyLock<usize> = LazyLock::new(|| {
    CITIES
        .keys()
        .map(|city| city.split(' ').count())
        .max()
        .unwrap_or(1)
});

/// What an abbreviation written in capitals ("EST") stands for.
pub(super) fn abbreviation(capitals: &str) -> Option<Meaning> {
    ABBREVIATIONS.get(capitals).cloned().or_else(|| {
        US_SHORT
            .iter()
            .find(|(name, _)| *name == capitals)
            .and_then(|(_, zone)| zone.parse::<Tz>().ok())
            .map(Meaning::Named)
    })
}

/// What a city's name ("paris", "new york", in lower case) stands for.
pub(super) fn city(lower: &str) -> Option<Meaning> {
    CITIES.get(lower).cloned()
}

/// The meaning of an abbreviation shown at `offsets` (each with the zones
/// showing it there): see the module's notes.
fn meaning_of(mut offsets: Vec<(i32, Zones)>) -> Meaning {
    // The offset most zones show it at first (ties by offset, so the
    // reading is the same on every start).
    offsets.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    let Some(((seconds, zones), others)) = offsets.split_first() else {
        return Meaning::Ambiguous(String::new());
    };
    let others: Zones = others.iter().flat_map(|(_, z)| z.iter().copied()).collect();
    let many_against_one = one_clock(&others) && zones.len() >= 3 * others.len();
    if !others.is_empty() && !many_against_one {
        let places: Vec<String> = offsets
            .iter()
            .map(|(seconds, zones)| format!("{} ({})", shown(*seconds), examples(zones)))
            .collect();
        return Meaning::Ambiguous(match places.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        });
    }
    let changes = zones
        .first()
        .is_some_and(|(_, clock)| clock[0].0 != clock[1].0);
    if one_clock(zones) && changes {
        return Meaning::Named(example(zones));
    }
    match FixedOffset::east_opt(*seconds) {
        Some(offset) => Meaning::Fixed(offset),
        None => Meaning::Ambiguous(shown(*seconds)),
    }
}

/// Whether these zones keep one clock this year (the same offsets and
/// abbreviations in January and July): one zone and its aliases.
fn one_clock(zones: &[&(Tz, Clock)]) -> bool {
    zones.windows(2).all(|pair| pair[0].1 == pair[1].1)
}

/// `zones`' names as examples, best first: the database's own names (not
/// an alias such as "US/Pacific"), from the clock most of them keep
/// ("America/Chicago" before Mexico City's clock for CST's -06:00), then
/// in order of name.
fn ordered(zones: &[&(Tz, Clock)]) -> Vec<Tz> {
    let keeping = |clock: &Clock| zones.iter().filter(|(_, c)| c == clock).count();
    let mut ordered: Vec<(bool, usize, Tz)> = zones
        .iter()
        .map(|(tz, clock)| (is_own(tz.name()), keeping(clock), *tz))
        .collect();
    ordered.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.name().cmp(b.2.name()))
    });
    ordered.into_iter().map(|(_, _, tz)| tz).collect()
}

/// Whether `name` is one of the database's own ("Europe/Paris"), not an
/// alias in an older form ("US/Pacific", "Cuba").
fn is_own(name: &str) -> bool {
    name.split_once('/')
        .is_some_and(|(area, _)| AREAS.contains(&area))
}

/// The zone among `zones` to apply.
fn example(zones: &[&(Tz, Clock)]) -> Tz {
    ordered(zones).first().copied().unwrap_or(Tz::UTC)
}

/// Up to two of `zones`' names (the database's own, when it has some),
/// and "…" when there are more.
fn examples(zones: &[&(Tz, Clock)]) -> String {
    let all: Vec<&str> = ordered(zones).iter().map(|tz| tz.name()).collect();
    let own: Vec<&str> = all.iter().copied().filter(|name| is_own(name)).collect();
    let names = if own.is_empty() { all } else { own };
    let more = if names.len() > 2 { ", …" } else { "" };
    format!("{}{more}", names[..names.len().min(2)].join(", "))
}

/// An offset as written: "+05:30", "-06:00".
fn shown(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zone with a clock: `(seconds, abbreviation)` in January and July.
    fn zone(name: &str, jan: (i32, &str), jul: (i32, &str)) -> (Tz, Clock) {
        (
            name.parse().unwrap(),
            [(jan.0, jan.1.to_string()), (jul.0, jul.1.to_string())],
        )
    }

    fn offset(meaning: &Meaning) -> Option<i32> {
        match meaning {
            Meaning::Fixed(offset) => Some(offset.local_minus_utc()),
            Meaning::Named(tz) => Some(
                tz.offset_from_utc_datetime(
                    &Utc.with_ymd_and_hms(2030, 1, 15, 12, 0, 0)
                        .unwrap()
                        .naive_utc(),
                )
                .fix()
                .local_minus_utc(),
            ),
            Meaning::Ambiguous(_) => None,
        }
    }

    #[test]
    fn many_zones_win_a_shared_abbreviation_only_against_one_clock() {
        const H: i32 = 3600;
        let pacific: Vec<_> = ["America/Los_Angeles", "America/Tijuana", "US/Pacific"]
            .map(|name| zone(name, (-8 * H, "PST"), (-7 * H, "PDT")))
            .to_vec();
        let manila = zone("Asia/Manila", (8 * H, "PST"), (8 * H, "PST"));
        let china = zone("Asia/Shanghai", (8 * H, "CST"), (8 * H, "CST"));
        let cuba = zone("America/Havana", (-5 * H, "CST"), (-4 * H, "CDT"));
        let uses = |many: &[(Tz, Clock)], few: &[&(Tz, Clock)]| {
            let mut offsets = vec![(many[0].1[0].0, many.iter().collect::<Vec<_>>())];
            for other in few {
                offsets.push((other.1[0].0, vec![*other]));
            }
            meaning_of(offsets)
        };
        // Three to one against a single clock: the many win, as their zone.
        let meaning = uses(&pacific, &[&manila]);
        assert!(matches!(meaning, Meaning::Named(_)), "{meaning:?}");
        assert_eq!(offset(&meaning), Some(-8 * H));
        // Two to one: refused, naming both offsets.
        let Meaning::Ambiguous(why) = uses(&pacific[..2], &[&manila]) else {
            panic!("two to one is applied");
        };
        assert!(why.contains("-08:00") && why.contains("+08:00"), "{why}");
        // Against two other clocks: refused however many.
        assert!(matches!(
            uses(&pacific, &[&china, &cuba]),
            Meaning::Ambiguous(_)
        ));
        // Zones with different clocks at one offset: that offset, fixed.
        let paris = zone("Europe/Paris", (H, "CET"), (2 * H, "CEST"));
        let algiers = zone("Africa/Algiers", (H, "CET"), (H, "CET"));
        let meaning = meaning_of(vec![(H, vec![&paris, &algiers])]);
        assert!(matches!(meaning, Meaning::Fixed(_)), "{meaning:?}");
    }

    #[test]
    fn the_databases_abbreviations_and_cities_are_read() {
        assert!(matches!(abbreviation("EST"), Some(Meaning::Fixed(_))));
        assert!(matches!(abbreviation("CST"), Some(Meaning::Ambiguous(_))));
        assert!(matches!(abbreviation("ET"), Some(Meaning::Named(_))));
        assert!(abbreviation("XYZT").is_none());
        assert!(matches!(city("paris"), Some(Meaning::Named(_))));
        assert!(matches!(city("new york"), Some(Meaning::Named(_))));
        assert!(city("gotham").is_none());
        assert!(*LONGEST_CITY >= 2);
        assert_eq!(shown(-12_600), "-03:30");
    }
}
