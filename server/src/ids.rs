//! Identifiers: a short prefix that says what it names, and a random part.

pub fn new_id(prefix: &str) -> String {
    let uuid = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}_{}", &uuid[..16])
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_prefixed_and_distinct() {
        let (a, b) = (super::new_id("q"), super::new_id("q"));
        assert!(a.starts_with("q_") && a.len() == 18);
        assert_ne!(a, b);
    }
}
