//! Kubernetes object names the renderers write into manifests.

use crate::redact::redact_userinfo;
use crate::Finding;

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
        Err(invalid_name(format!("{:?} is not a DNS-1123 label: 1 to {max} lowercase letters, digits or `-`, starting and ending with a letter or digit.", redact_userinfo(value))))
    }
}

/// Checks `value` as an RFC 1123 subdomain, as Kubernetes requires of
/// Secret and most other object names (`IsDNS1123Subdomain` in
/// k8s.io/apimachinery `validation.go`): at most 253 characters, of
/// dot-separated labels of lowercase letters, digits and `-`, each starting
/// and ending with a letter or digit. An error about the value as a whole
/// otherwise.
pub fn dns1123_subdomain(value: &str) -> Result<(), Finding> {
    let valid = value.len() <= MAX_DATA_KEY
        && value
            .split('.')
            .all(|label| dns1123_label(label, MAX_DATA_KEY).is_ok());
    if valid {
        Ok(())
    } else {
        Err(invalid_name(format!("{:?} is not a DNS-1123 subdomain: at most {MAX_DATA_KEY} characters, of `.`-separated lowercase letters, digits and `-`, each part starting and ending with a letter or digit.", redact_userinfo(value))))
    }
}

/// The error about a name as a whole (no location: the caller knows where
/// it is), saying which rule it breaks.
fn invalid_name(detail: String) -> Finding {
    Finding::error(None, "Invalid Kubernetes name", detail)
}

/// Longest key of a Secret's or ConfigMap's `data` Kubernetes accepts
/// (`DNS1123SubdomainMaxLength`).
pub const MAX_DATA_KEY: usize = 253;

/// Checks `key` as a key of a Secret's or ConfigMap's `data`, as Kubernetes
/// requires (`IsConfigMapKey` in k8s.io/apimachinery `validation.go`, which
/// Secret validation uses too): 1 to 253 characters of `[-._a-zA-Z0-9]`,
/// neither `.` nor `..`, and not starting with `..`. The rule it breaks
/// otherwise.
pub fn data_key(key: &str) -> Result<(), String> {
    if key.is_empty() || key.len() > MAX_DATA_KEY {
        Err(format!(
            "a key has 1 to {MAX_DATA_KEY} characters, this one {}",
            key.len()
        ))
    } else if !key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    {
        Err("a key holds only letters, digits, `-`, `.` and `_`".to_owned())
    } else if key == "." || key.starts_with("..") {
        Err("a key is not `.` and does not start with `..`".to_owned())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_keys() {
        let longest = "a".repeat(MAX_DATA_KEY);
        for good in ["ca.crt", ".dotfile", "a..b", "x_1-2", longest.as_str()] {
            assert_eq!(data_key(good), Ok(()), "{good}");
        }
        let too_long = "a".repeat(MAX_DATA_KEY + 1);
        for bad in ["", ".", "..", "..foo", "a/b", "a b", "é", too_long.as_str()] {
            assert!(data_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn subdomains() {
        let longest = format!("{}.{}", "a".repeat(126), "b".repeat(126));
        for good in ["proxy-credentials", "a.b-c.d", "0", longest.as_str()] {
            assert!(dns1123_subdomain(good).is_ok(), "{good}");
        }
        let too_long = format!("{longest}x");
        for bad in [
            "",
            ".",
            "a.",
            ".a",
            "a..b",
            "A",
            "a_b",
            "-a.b",
            "a.b-",
            "a b",
            "é",
            too_long.as_str(),
        ] {
            let error = dns1123_subdomain(bad).unwrap_err();
            assert_eq!(error.location, None, "{bad}");
        }
    }

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
