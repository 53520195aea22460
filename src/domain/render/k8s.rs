//! Kubernetes object names the renderers write into manifests.

use crate::domain::Finding;

/// Checks `value` as an RFC 1123 label, as Kubernetes requires of namespace
/// names (`IsDNS1123Label` in k8s.io/apimachinery `validation.go`): 1 to
/// `max` characters (63 for a label), lowercase letters, digits and `-`,
/// starting and ending with a letter or digit. An error about the value as a
/// whole (no location: the caller knows where it is) otherwise.
pub fn dns1123_label(value: &str, max: usize) -> Result<(), Finding> {
    let valid = !value.is_empty()
        && value.len() <= max
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if valid {
        Ok(())
    } else {
        Err(Finding::error(
            None,
            "Invalid Kubernetes name",
            format!("{value:?} is not a DNS-1123 label: 1 to {max} lowercase letters, digits or `-`, starting and ending with a letter or digit."),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for good in ["default", "org-acme", "a", "yes", "0x1f", &"a".repeat(63)] {
            assert!(dns1123_label(good, 63).is_ok(), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a.b",
            "a_b",
            "a b",
            "é",
            &"a".repeat(64),
        ] {
            let error = dns1123_label(bad, 63).unwrap_err();
            assert_eq!(error.location, None);
        }
        assert!(dns1123_label("abc", 2).is_err());
    }
}
