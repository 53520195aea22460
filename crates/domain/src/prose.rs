//! Lists written for people: the one home of "a, b and c".

/// `items` joined by `, `, with `last` (`" and "`, `" or "`) before the
/// last one: "a, b and c"; empty for none.
pub fn list<S: AsRef<str>>(items: &[S], last: &str) -> String {
    match items.split_last() {
        Some((tail, [])) => tail.as_ref().to_owned(),
        Some((tail, head)) => {
            let head: Vec<&str> = head.iter().map(AsRef::as_ref).collect();
            format!("{}{last}{}", head.join(", "), tail.as_ref())
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_prose() {
        assert_eq!(list::<&str>(&[], " and "), "");
        assert_eq!(list(&["a"], " and "), "a");
        assert_eq!(list(&["a", "b"], " or "), "a or b");
        assert_eq!(list(&["a", "b", "c"], " and "), "a, b and c");
        assert_eq!(list(&["a".to_owned(), "b".to_owned()], ", "), "a, b");
    }
}
