//! The checks made at start that clap cannot make: a token off loopback
//! (and its length), every duration and count within its documented
//! maximum, the allowed origins, the probe ports, and the built-in model's
//! address on loopback.

use super::*;

impl Config {
    /// Checks the settings that clap cannot: a value past its documented
    /// maximum is refused here, at start, rather than failing a reply later.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.addr.ip().is_loopback() {
            match self.token() {
                None => return Err(ConfigError::TokenRequired(self.addr)),
                Some(token) if token.chars().count() < MIN_TOKEN_CHARS => {
                    return Err(ConfigError::TokenTooShort)
                }
                Some(_) => {}
            }
        }
        let own_model = self
            .chat_base_url
            .as_deref()
            .and_then(|url| reqwest::Url::parse(url.trim()).ok())
            .is_some_and(|url| is_own_address(&url, self.addr));
        if own_model {
            return Err(ConfigError::OwnAddress);
        }
        let counts = [
            ("IMPRINT_WRITING_SLOTS", self.writing_slots as u64, 1, 1000),
            ("IMPRINT_MAX_TOOL_ITERS", self.max_tool_iters.into(), 0, 100),
            (
                "IMPRINT_CHAT_MAX_TOKENS",
                self.chat_max_tokens.into(),
                16,
                32_768,
            ),
        ];
        for (name, value, min, max) in counts {
            if !(min..=max).contains(&value) {
                return Err(ConfigError::OutOfRange { name, min, max });
            }
        }
        for (name, value, max) in [
            (
                "IMPRINT_RESEARCH_BUDGET_S",
                self.research_budget_s,
                MAX_RESEARCH_BUDGET_S,
            ),
            (
                "IMPRINT_ANSWER_TIMEOUT_S",
                self.answer_timeout_s,
                MAX_ANSWER_TIMEOUT_S,
            ),
            (
                "IMPRINT_MODEL_IDLE_TIMEOUT_S",
                self.model_idle_timeout_s,
                MAX_MODEL_IDLE_TIMEOUT_S,
            ),
            (
                "IMPRINT_VOICE_TURN_TIMEOUT_S",
                self.voice_turn_timeout_s,
                MAX_VOICE_TURN_TIMEOUT_S,
            ),
            ("IMPRINT_VOICE_IDLE_S", self.voice_idle_s, MAX_VOICE_IDLE_S),
            (
                "IMPRINT_VOICE_CONFIRM_TIMEOUT_S",
                self.voice_confirm_timeout_s,
                MAX_VOICE_CONFIRM_TIMEOUT_S,
            ),
        ] {
            if !(value.is_finite() && value > 0.0 && value <= max) {
                return Err(ConfigError::Duration { name, max });
            }
        }
        for origin in &self.allowed_origins {
            if crate::origin::Origin::parse(origin).is_none() {
                return Err(ConfigError::BadOrigin(origin.clone()));
            }
        }
        if self.probe_ports.len() > MAX_PROBE_PORTS || self.probe_ports.contains(&0) {
            return Err(ConfigError::ProbePorts);
        }
        if let Some(url) = &self.local_model_url {
            let loopback = reqwest::Url::parse(url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && is_loopback_url(u));
            if loopback.is_none() {
                return Err(ConfigError::LocalModelUrl(url.clone()));
            }
        }
        Ok(())
    }
}
