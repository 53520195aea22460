//! Redaction of what may hold a credential, before it is quoted in a
//! message or shown in a redacted rendering. A leaf: it imports nothing of
//! the crate, so every module can use it.

use std::borrow::Cow;

/// What stands in for the password in redacted renderings.
pub const REDACTED_PASSWORD: &str = "***";

/// `text` safe to quote in a message: when it may hold URL userinfo (an
/// `@` after the scheme, or anywhere without one), everything before the
/// last `@` is replaced by `***`, so no password, raw or percent-encoded,
/// is echoed. The last `@` is where userinfo ends, whatever the password
/// holds (see [`crate::proxy_url::ProxyUrl::parse`]); text without `@` is returned as is.
/// Every message that quotes a value which may be a URL goes through it.
pub fn redact_userinfo(text: &str) -> Cow<'_, str> {
    let (scheme, rest) = match text.find("://") {
        Some(at) => text.split_at(at + 3),
        None => ("", text),
    };
    match rest.rfind('@') {
        Some(at) => Cow::Owned(format!("{scheme}{REDACTED_PASSWORD}{}", &rest[at..])),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile passwords, raw or percent-encoded, never survive
    /// redaction; text without userinfo is untouched.
    #[test]
    fn redact_userinfo_hides_every_password_form() {
        for password in ["p@ss:w/rd#%", "p%40ss%3Aw%2Frd%23%25", "pw", "a@b@c"] {
            for text in [
                format!("http://svc:{password}@proxy.corp.example:3128"),
                format!("HTTPS://svc:{password}@proxy.corp.example/x?y#z"),
                format!("svc:{password}@proxy.corp.example:3128"),
                format!("socks5://{password}@h"),
            ] {
                let shown = redact_userinfo(&text);
                assert!(!shown.contains(password), "{shown}");
                assert!(!shown.contains("svc"), "{shown}");
                assert!(shown.contains("***@"), "{shown}");
            }
        }
        for text in [
            "http://proxy.corp.example:3128",
            ".corp.example",
            "10.0.0.0/8",
            "",
        ] {
            assert!(matches!(redact_userinfo(text), Cow::Borrowed(t) if t == text));
        }
        assert_eq!(redact_userinfo("http://u:p@host:1"), "http://***@host:1");
    }
}
