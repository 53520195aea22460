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
    use crate::render::tests::{settings, NASTY_PASSWORD};
    use crate::render::Secrets;
    use std::process::Command;

    #[test]
    fn exported_values_survive_a_real_shell() {
        let mut variables = settings().variables(Secrets::Include);
        // Raw values too: quotes, backslashes, `$`, spaces, `%`, a newline.
        variables.extend([
            ("RAW_PASSWORD", NASTY_PASSWORD.to_owned()),
            ("RAW_QUOTES", r#"'' "" \' $(id) `id` ${HOME}"#.to_owned()),
            ("RAW_NEWLINE", "a\nb".to_owned()),
        ]);
        let script = exports(&variables).join("\n");
        let check = Command::new("sh")
            .args(["-n", "-c", &script])
            .status()
            .unwrap();
        assert!(check.success(), "sh -n rejects:\n{script}");
        for (name, value) in &variables {
            let out = Command::new("sh")
                .args(["-c", &format!("{script}\nprintf '%s' \"${name}\"")])
                .env_clear()
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), *value, "{name}");
        }
        assert_eq!(quote(NASTY_PASSWORD).matches(r"'\''").count(), 2);
    }
}
