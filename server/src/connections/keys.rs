//! Keys saved on the Model page: `keys.json` in the data directory, mode
//! 0600. Each key is bound to the server it was saved for (provider and
//! base URL) and is only ever sent there; the browser sees it masked.

use app::protocol::StoredKey;
use serde::{Deserialize, Serialize};

use crate::config::Provider;

/// The longest key accepted (real ones are under 200 characters).
pub const MAX_KEY_CHARS: usize = 4096;
/// The most keys kept (a page saving keys for many servers).
pub const MAX_KEYS: usize = 64;

#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keys {
    #[serde(default)]
    keys: Vec<KeyEntry>,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyEntry {
    provider: Provider,
    base_url: String,
    key: String,
}

/// Never prints a key.
impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keys({} saved)", self.keys.len())
    }
}

impl Keys {
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }

    /// The key saved for this server.
    pub fn get(&self, provider: Provider, base_url: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|k| k.provider == provider && k.base_url == base_url)
            .map(|k| k.key.as_str())
    }

    /// Saves `key` for this server (replacing its earlier one); false when
    /// there is no room for another server's key.
    pub fn set(&mut self, provider: Provider, base_url: &str, key: &str) -> bool {
        if let Some(entry) = self
            .keys
            .iter_mut()
            .find(|k| k.provider == provider && k.base_url == base_url)
        {
            entry.key = key.to_string();
            return true;
        }
        if self.keys.len() >= MAX_KEYS {
            return false;
        }
        self.keys.push(KeyEntry {
            provider,
            base_url: base_url.to_string(),
            key: key.to_string(),
        });
        true
    }

    /// Removes the key saved for this server; false when there was none.
    pub fn remove(&mut self, provider: Provider, base_url: &str) -> bool {
        let before = self.keys.len();
        self.keys
            .retain(|k| !(k.provider == provider && k.base_url == base_url));
        self.keys.len() != before
    }

    /// Every saved key, masked, with its server.
    pub fn shown(&self) -> Vec<StoredKey> {
        self.keys
            .iter()
            .map(|k| StoredKey {
                provider: k.provider.as_str().into(),
                base_url: k.base_url.clone(),
                masked: mask(&k.key),
            })
            .collect()
    }
}

/// A key as the browser may see it: its last four characters after an
/// ellipsis, or only dots for a key too short to show any of.
pub fn mask(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 16 {
        return "••••".into();
    }
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("••••{tail}")
}

/// A key as typed: printable ASCII with no spaces (it goes into an HTTP
/// header), at most [`MAX_KEY_CHARS`].
pub fn check_key(key: &str) -> Result<(), &'static str> {
    if key.chars().count() > MAX_KEY_CHARS {
        return Err("the API key is longer than 4096 characters");
    }
    if !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("the API key may hold only printable characters, without spaces");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_bound_to_its_server() {
        let mut keys = Keys::default();
        assert!(keys.set(Provider::Openai, "https://api.openai.com/v1", "sk-aaaa"));
        assert!(keys.set(Provider::Openai, "https://example.test/v1", "sk-bbbb"));
        assert_eq!(
            keys.get(Provider::Openai, "https://api.openai.com/v1"),
            Some("sk-aaaa")
        );
        assert_eq!(
            keys.get(Provider::Anthropic, "https://api.openai.com/v1"),
            None
        );
        assert!(keys.set(Provider::Openai, "https://api.openai.com/v1", "sk-cccc"));
        assert_eq!(
            keys.get(Provider::Openai, "https://api.openai.com/v1"),
            Some("sk-cccc")
        );
        assert!(keys.remove(Provider::Openai, "https://api.openai.com/v1"));
        assert!(!keys.remove(Provider::Openai, "https://api.openai.com/v1"));
        assert_eq!(keys.shown().len(), 1);
    }

    #[test]
    fn keys_are_shown_masked_and_never_debug_printed() {
        let mut keys = Keys::default();
        let secret = "sk-test-0123456789abcdefWXYZ";
        keys.set(Provider::Openai, "https://api.openai.com/v1", secret);
        let shown = keys.shown();
        assert_eq!(shown[0].masked, "••••WXYZ");
        assert!(!format!("{keys:?}").contains(secret));
        assert_eq!(mask("short"), "••••");
        let back = Keys::parse(&keys.to_json()).unwrap();
        assert_eq!(back, keys);
    }

    #[test]
    fn a_key_must_fit_in_a_header() {
        assert!(check_key("sk-abc_123").is_ok());
        assert!(check_key("sk abc").is_err());
        assert!(check_key("sk\nabc").is_err());
        assert!(check_key("ключ").is_err());
        assert!(check_key(&"a".repeat(MAX_KEY_CHARS + 1)).is_err());
    }

    #[test]
    fn there_is_room_for_a_bounded_number_of_servers() {
        let mut keys = Keys::default();
        for i in 0..MAX_KEYS {
            assert!(keys.set(Provider::Openai, &format!("https://s{i}.test/v1"), "k"));
        }
        assert!(!keys.set(Provider::Openai, "https://one-more.test/v1", "k"));
        assert!(keys.set(Provider::Openai, "https://s0.test/v1", "new"));
    }
}
