//! Keyboard movement inside a group with one Tab stop (a question card's
//! options): which item an arrow, Home or End key moves the focus to.

/// The index the focus moves to from `current` among `count` items for
/// `key`, or None when the key does not move it. Arrows wrap around.
pub fn roving_target(key: &str, current: usize, count: usize) -> Option<usize> {
    if count == 0 {
        return None;
    }
    let current = current.min(count - 1);
    match key {
        "ArrowRight" | "ArrowDown" => Some((current + 1) % count),
        "ArrowLeft" | "ArrowUp" => Some((current + count - 1) % count),
        "Home" => Some(0),
        "End" => Some(count - 1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::roving_target;

    #[test]
    fn arrows_move_and_wrap() {
        assert_eq!(roving_target("ArrowRight", 0, 3), Some(1));
        assert_eq!(roving_target("ArrowDown", 2, 3), Some(0));
        assert_eq!(roving_target("ArrowLeft", 0, 3), Some(2));
        assert_eq!(roving_target("ArrowUp", 1, 3), Some(0));
    }

    #[test]
    fn home_and_end_go_to_the_ends() {
        assert_eq!(roving_target("Home", 2, 3), Some(0));
        assert_eq!(roving_target("End", 0, 3), Some(2));
    }

    #[test]
    fn other_keys_and_empty_groups_do_not_move() {
        assert_eq!(roving_target("Enter", 0, 3), None);
        assert_eq!(roving_target("ArrowRight", 0, 0), None);
    }
}
