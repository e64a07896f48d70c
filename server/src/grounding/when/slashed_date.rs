//! Dates written with slashes ("14/12", "12/14/26", "3/4"): the month is
//! the part that can be one; when both can, the order the user's locale
//! writes dates in says which, and with no locale to say, the date reads
//! two ways (and Imprint asks). Dates written with dots ("21.12", "4.1.",
//! "4.1.2027") are written day first wherever they are written.

use chrono::NaiveDate;

use super::next_date;

/// Which part of a date written "3/4" is the month.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOrder {
    MonthFirst,
    DayFirst,
}

/// The order the locale in the environment writes dates in: the first of
/// `LC_ALL`, `LC_TIME` and `LANG` that is set, as POSIX reads them.
pub fn date_order() -> Option<DateOrder> {
    date_order_in(|name| std::env::var(name).ok())
}

/// [`date_order`] with the environment read by `var`.
pub(super) fn date_order_in(var: impl Fn(&str) -> Option<String>) -> Option<DateOrder> {
    let set = |name: &str| var(name).filter(|value| !value.is_empty());
    let locale = set("LC_ALL")
        .or_else(|| set("LC_TIME"))
        .or_else(|| set("LANG"))?;
    date_order_of(&locale)
}

/// The order a locale ("en_US.UTF-8", "de_DE@euro") writes dates in, by
/// its territory: month first in the United States and the places that
/// write dates its way, the Philippines, and East Asia (month, then day);
/// day first elsewhere. `None` when it names no territory ("C", "POSIX",
/// "C.UTF-8"), and for Canada, which writes both.
pub fn date_order_of(locale: &str) -> Option<DateOrder> {
    let name = locale.split(['.', '@']).next().unwrap_or_default();
    let (_language, territory) = name.split_once('_')?;
    let territory = territory.to_ascii_uppercase();
    if territory.len() != 2 || !territory.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    match territory.as_str() {
        "US" | "AS" | "GU" | "MP" | "UM" | "VI" | "FM" | "MH" | "PW" | "PH" | "CN" | "JP"
        | "KR" | "TW" => Some(DateOrder::MonthFirst),
        "CA" => None,
        _ => Some(DateOrder::DayFirst),
    }
}

/// A date written with slashes or dots: two numbers of one or two
/// digits, then a year of two or four digits or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slashed {
    first: u32,
    second: u32,
    year: Option<i32>,
    /// Written with dots: day first, and a day and a month of a year.
    dotted: bool,
}

/// What a date written with slashes names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reading {
    Day(NaiveDate),
    /// "3/4" with no order to read it by: 3 April or March 4.
    TwoWays,
}

impl Slashed {
    /// A date with slashes ("14/12"), or one with dots that names a day
    /// of a month ("21.12", "4.1." with the dot German and Nordic write
    /// after it); "6.45", "12.50" and "18.45" are a time or money.
    pub(super) fn read(word: &str) -> Option<Slashed> {
        Self::read_marked(word, '/').or_else(|| {
            let word = word.strip_suffix('.').unwrap_or(word);
            Self::read_marked(word, '.')
                .filter(|date| date.first <= 31 && date.second <= 12)
                .map(|date| Slashed {
                    dotted: true,
                    ..date
                })
        })
    }

    /// A date written with `mark` between its parts.
    fn read_marked(word: &str, mark: char) -> Option<Slashed> {
        let mut parts = word.split(mark);
        let (first, second, year) = (parts.next()?, parts.next()?, parts.next());
        if parts.next().is_some() {
            return None;
        }
        let small =
            |part: &str| (1..=2).contains(&part.len()) && part.chars().all(|c| c.is_ascii_digit());
        if !small(first) || !small(second) {
            return None;
        }
        let year = match year {
            None => None,
            Some(y) if y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) => {
                Some(y.parse().ok()?)
            }
            // "12/14/26": this century's.
            Some(y) if small(y) && y.len() == 2 => Some(2000 + y.parse::<i32>().ok()?),
            Some(_) => return None,
        };
        let (first, second) = (first.parse().ok()?, second.parse().ok()?);
        // "0/5" and "5/0" name no day.
        (first >= 1 && second >= 1).then_some(Slashed {
            first,
            second,
            year,
            dotted: false,
        })
    }

    /// "14/12/2026" is plainly a date; "3/4" or "24/7" only where a day is
    /// being said.
    pub(super) fn has_year(self) -> bool {
        self.year.is_some()
    }

    /// Written with dots ("21.12"): day first, and a date only where a
    /// time of day or a day is said beside it ("1.5 hours" is no May).
    pub(super) fn is_dotted(self) -> bool {
        self.dotted
    }

    /// The day it names: a part over 12 is the day; with both 12 or less,
    /// `order` says which is the month. Without a year, the next such day
    /// from `today` on.
    pub(super) fn reading(self, order: Option<DateOrder>, today: NaiveDate) -> Option<Reading> {
        let (first, second) = (self.first, self.second);
        let order = match (first <= 12, second <= 12) {
            _ if self.dotted => DateOrder::DayFirst,
            (true, false) => DateOrder::MonthFirst,
            (false, true) => DateOrder::DayFirst,
            // "5/5" is the same day either way.
            (true, true) if first == second => DateOrder::MonthFirst,
            (true, true) => match order {
                Some(order) => order,
                None => return Some(Reading::TwoWays),
            },
            (false, false) => return None,
        };
        let (month, day) = match order {
            DateOrder::MonthFirst => (first, second),
            DateOrder::DayFirst => (second, first),
        };
        let date = match self.year {
            Some(year) => NaiveDate::from_ymd_opt(year, month, day),
            None => next_date(today, month, day),
        };
        date.map(Reading::Day)
    }
}
