//! The config file (`imprint::config::FileConfig::parse`, TOML): any text
//! reads without a panic, to settings or an error.

#![no_main]

use imprint::config::FileConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(config) = FileConfig::parse(&text) {
        let _ = format!("{config:?}");
    }
});
