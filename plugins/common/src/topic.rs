//! Names as parts of topics, as the engine writes them.

/// `name` as one part of a topic (a world's name in `/world/<w>/create`): every character
/// a topic may not hold, and `/`, becomes `_` (as gz-transport's `AsValidTopic` does with
/// spaces).
pub fn topic_part(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}

#[cfg(test)]
mod tests {
    #[test]
    fn spaces_and_slashes_become_underscores() {
        assert_eq!(super::topic_part("world with spaces"), "world_with_spaces");
        assert_eq!(super::topic_part("a/b"), "a_b");
        assert_eq!(super::topic_part(""), "_");
        assert_eq!(super::topic_part("shapes"), "shapes");
    }
}
