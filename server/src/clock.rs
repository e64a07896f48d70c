//! The clock a reply reads "now" from: the system's, unless a test set
//! one. Every date a reply works out ("tomorrow", "in 2 hours", the
//! options Imprint offers) is relative to it, so a test can hold the date
//! still across midnight.

use std::sync::{Arc, RwLock};

use chrono::{DateTime, Local};

/// A shared clock handle; clones read the same time.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    fixed: Arc<RwLock<Option<DateTime<Local>>>>,
}

impl Clock {
    /// The time: the one set, else the system's.
    pub fn now(&self) -> DateTime<Local> {
        let fixed = self.fixed.read().map(|fixed| *fixed).unwrap_or_default();
        fixed.unwrap_or_else(Local::now)
    }

    /// From now on, "now" is `at` (for tests; the server never sets it).
    pub fn set(&self, at: DateTime<Local>) {
        if let Ok(mut fixed) = self.fixed.write() {
            *fixed = Some(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_set_time_holds_for_every_clone() {
        let clock = Clock::default();
        let before = Local::now();
        assert!(clock.now() >= before);
        let at = Local.with_ymd_and_hms(2030, 6, 1, 23, 59, 59).unwrap();
        let shared = clock.clone();
        clock.set(at);
        assert_eq!(shared.now(), at);
    }
}
