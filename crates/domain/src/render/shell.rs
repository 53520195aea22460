//! POSIX shell quoting for `export` lines.

/// `value` in single quotes, each `'` written `'\''`: safe in any POSIX shell.
pub fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// `export NAME='value'` lines for the variables.
pub fn exports(variables: &[(&str, String)]) -> Vec<String> {
    variables
        .iter()
        .map(|(name, value)| format!("export {name}={}", quote(value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::NASTY_PASSWORD;

    /// Each `'` closes the quotes, is escaped, and reopens them (a real
    /// shell reads the values back: tests/oracles/render_tools.rs).
    #[test]
    fn quotes_close_around_each_single_quote() {
        assert_eq!(quote(NASTY_PASSWORD).matches(r"'\''").count(), 2);
        assert_eq!(quote("a'b"), r"'a'\''b'");
        assert_eq!(
            exports(&[("A", "x y".to_owned())]),
            ["export A='x y'".to_owned()]
        );
    }
}
