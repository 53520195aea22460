//! Redaction of what may hold a credential, before it is quoted in a
//! message or shown in a redacted rendering. A leaf: it imports nothing of
//! the crate, so every module can use it.

use std::borrow::Cow;

/// What stands in for the password in redacted renderings.
pub const REDACTED_PASSWORD: &str = "***";

/// The most bytes of an input one message quotes: more than any name, URL,
/// entry or path a message needs to show, and small enough that a message
/// quoting several inputs stays within the 8 KiB the framework sends of a
/// diagnostic's detail.
pub const MAX_QUOTED_BYTES: usize = 1024;

/// `text`, an input, quoted for a message: [`redact_userinfo`]'s text,
/// quoted and escaped as Rust's `{:?}` does.
pub fn quoted(text: &str) -> String {
    format!("{:?}", redact_userinfo(text))
}

/// `text` safe to quote in a message: when it may hold URL userinfo (an
/// `@` after the scheme, or anywhere without one), everything before the
/// last `@` is replaced by `***`, so no password, raw or percent-encoded,
/// is echoed. The last `@` is where userinfo ends, whatever the password
/// holds (see [`crate::proxy_url::ProxyUrl::parse`]). Then it is cut to
/// [`MAX_QUOTED_BYTES`] (on a character boundary, `…` appended, never
/// saying how long it was), so that no message grows with its input. Text
/// without `@` within the bound is returned as is. Every message that
/// quotes an input goes through it (or [`quoted`]).
pub fn redact_userinfo(text: &str) -> Cow<'_, str> {
    let (scheme, rest) = match text.find("://") {
        Some(at) => text.split_at(at + 3),
        None => ("", text),
    };
    let redacted = match rest.rfind('@') {
        Some(at) => Cow::Owned(format!("{scheme}{REDACTED_PASSWORD}{}", &rest[at..])),
        None => Cow::Borrowed(text),
    };
    if redacted.len() <= MAX_QUOTED_BYTES {
        return redacted;
    }
    let mut end = MAX_QUOTED_BYTES;
    while !redacted.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &redacted[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quoted input is escaped, redacted, and cut at the bound whatever
    /// its length (on a character boundary), never saying how long the
    /// input was.
    #[test]
    fn quoted_inputs_are_bounded_escaped_and_redacted() {
        assert_eq!(quoted("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(quoted("http://u:pw@h:1"), r#""http://***@h:1""#);
        for length in [MAX_QUOTED_BYTES, MAX_QUOTED_BYTES + 1, 1 << 20] {
            let input = "é".repeat(length / 2) + "x".repeat(length % 2).as_str();
            let shown = quoted(&input);
            assert!(
                shown.len() <= MAX_QUOTED_BYTES + 8,
                "{length}: {}",
                shown.len()
            );
            assert_eq!(shown.ends_with("…\""), input.len() > MAX_QUOTED_BYTES);
            assert!(!shown.contains(&input.len().to_string()));
        }
    }

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
