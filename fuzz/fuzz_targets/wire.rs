//! The wire readers (`app::logic::wire`): any JSON the browser receives on
//! an event stream or the voice socket reads without a panic, and what a
//! reader takes, serde's derived `Deserialize` takes too, as the same
//! value (a reader never accepts what the protocol refuses).
//!
//! Input: the frame's data, as `serde_json::from_slice` reads it.

#![no_main]

use app::logic::wire;
use app::protocol::{DashboardEvent, ReplyEvent, VoiceServerMessage};
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Debug;

fn within_serde<T: DeserializeOwned + PartialEq + Debug>(
    read: fn(&Value) -> Option<T>,
    value: &Value,
) {
    if let Some(read) = read(value) {
        let by_serde = serde_json::from_value::<T>(value.clone());
        assert_eq!(by_serde.ok().as_ref(), Some(&read), "{value}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    within_serde::<ReplyEvent>(wire::reply_event, &value);
    within_serde::<DashboardEvent>(wire::dashboard_event, &value);
    within_serde::<VoiceServerMessage>(wire::voice_server_message, &value);
    let _ = wire::strings(&value);
});
