//! Import from a systemd drop-in: `Environment=` (or `DefaultEnvironment=`)
//! assignments, quoted or not, with systemd's escapes (`\"`, `\\`, `%%`), also
//! when html-escaped (Giant Swarm's `containerdProxy` Secret renders
//! `&#34;` for `"`).

use super::found::{Found, Importer, Recognised, Scanned};
use super::input::{error, split_list};
use crate::Finding;

/// The systemd drop-in importer.
#[derive(Debug, Clone, Copy)]
pub struct Systemd;

impl Importer for Systemd {
    fn kind(&self) -> &'static str {
        "systemd"
    }

    fn platform(&self) -> &'static str {
        "systemd"
    }

    /// A unit or drop-in: an `Environment=` or `DefaultEnvironment=` line
    /// that sets a proxy variable, in a `.conf` or `.service` file or under a
    /// `[Service]` or `[Manager]` section.
    fn recognises(&self, file: &Scanned) -> Recognised {
        let unit = file.name.ends_with(".conf")
            || file.name.ends_with(".service")
            || file
                .text
                .lines()
                .any(|line| matches!(line.trim(), "[Service]" | "[Manager]"));
        let sets_proxy = file.text.lines().map(str::trim).any(|line| {
            let lower = line.to_ascii_lowercase();
            (line.starts_with("Environment=") || line.starts_with("DefaultEnvironment="))
                && (lower.contains("http_proxy=") || lower.contains("https_proxy="))
        });
        if unit && sets_proxy {
            Recognised::Lines
        } else {
            Recognised::No
        }
    }

    fn reads(&self) -> &'static str {
        "drop-in"
    }

    /// Reads the proxy variables of a drop-in.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let text = unescape_html(text);
        let mut pairs = Vec::new();
        for line in text.lines().map(str::trim) {
            let value = line
                .strip_prefix("Environment=")
                .or_else(|| line.strip_prefix("DefaultEnvironment="));
            if let Some(value) = value {
                for word in words(value)? {
                    if let Some((name, value)) = word.split_once('=') {
                        pairs.push((name.to_owned(), value.replace("%%", "%")));
                    }
                }
            }
        }
        if pairs.is_empty() {
            return Err(error(
                "No `Environment=` assignment found; is this a systemd drop-in?",
            ));
        }
        refuse_unexpanded(&pairs)?;
        from_variables(&pairs)
    }
}

/// Refuses a proxy variable whose host (or NO_PROXY) holds a shell variable
/// reference (`${proxy_host}`, `$PROXY`): a file written by a heredoc whose
/// delimiter is quoted (`<<'EOF'`, as Rancher's docs write
/// `/etc/default/rke2-server`) keeps it as is, and neither systemd's
/// `Environment=` nor its `EnvironmentFile=` expands it (systemd
/// src/basic/env-file.c, `load_env_file`), so the clients get it literally.
/// Only the part after the credentials is searched: a password may hold `$`
/// and is never quoted.
pub(crate) fn refuse_unexpanded(pairs: &[(String, String)]) -> Result<(), Finding> {
    for (name, value) in pairs {
        let wanted = ["http_proxy", "https_proxy", "no_proxy"]
            .iter()
            .any(|w| name.eq_ignore_ascii_case(w));
        if !wanted {
            continue;
        }
        let searched = match name.to_ascii_lowercase().as_str() {
            "no_proxy" => value.as_str(),
            _ => value
                .rsplit_once('@')
                .map_or(value.as_str(), |(_, host)| host),
        };
        if let Some(variable) = shell_variable(searched) {
            return Err(error(format!(
                "{name}: `{variable}` is a shell variable the heredoc did not expand: systemd reads `Environment=` values and environment files as written, so the clients get `{variable}` literally and cannot use this setting. Write the value in its place (a heredoc expands variables only when its delimiter is unquoted: `<<EOF`, not `<<'EOF'`) and import again."
            )));
        }
    }
    Ok(())
}

/// The first shell variable reference in `text`: `${name...}` up to its
/// `}`, or `$name`.
fn shell_variable(text: &str) -> Option<&str> {
    text.match_indices('$').find_map(|(at, _)| {
        let rest = &text[at + 1..];
        let (name, length) = match rest.strip_prefix('{') {
            Some(braced) => (braced, braced.find('}')? + 2),
            None => {
                let word = rest
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_');
                (rest, word.count())
            }
        };
        name.as_bytes()
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            .then(|| &text[at..at + 1 + length])
    })
}

/// Proxy settings from environment variables (names in either case). The
/// same variable set twice (e.g. `HTTP_PROXY` and `http_proxy`) to different
/// values is ambiguous and an error.
pub(crate) fn from_variables(pairs: &[(String, String)]) -> Result<Found, Finding> {
    let mut found = Found::default();
    for wanted in ["http_proxy", "https_proxy", "no_proxy"] {
        let values: Vec<&str> = pairs
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case(wanted))
            .map(|(_, value)| value.trim())
            .collect();
        if values.windows(2).any(|w| {
            w[0] != w[1] && !(wanted == "no_proxy" && split_list(w[0]) == split_list(w[1]))
        }) {
            return Err(error(format!(
                "{} is set to different values (upper- and lowercase, or twice); fix the artifact so they agree.",
                wanted.to_uppercase()
            )));
        }
        let Some(value) = values.first() else {
            continue;
        };
        match wanted {
            "http_proxy" => found.http_proxy = Some((*value).to_owned()),
            "https_proxy" => found.https_proxy = Some((*value).to_owned()),
            _ => found.no_proxy = split_list(value),
        }
    }
    Ok(found)
}

/// Splits an `Environment=` value into words the way systemd does.
fn words(value: &str) -> Result<Vec<String>, Finding> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut word = String::new();
        if first == '"' || first == '\'' {
            chars.next();
            loop {
                match chars.next() {
                    None => {
                        return Err(error("An `Environment=` value has an unterminated quote."))
                    }
                    Some(c) if c == first => break,
                    Some('\\') if first == '"' => word.push(chars.next().unwrap_or('\\')),
                    Some(c) => word.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    word.push(chars.next().unwrap_or('\\'));
                } else {
                    word.push(c);
                }
            }
        }
        out.push(word);
    }
    Ok(out)
}

/// Undoes html escaping of the characters Go's html/template escapes.
fn unescape_html(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    [
        ("&#34;", "\""),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&#43;", "+"),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text.to_owned(), |acc, (from, to)| acc.replace(from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_escaped_and_html_escaped_dropins() {
        let text = "[Service]\nEnvironment=\"HTTP_PROXY=http://u:p%%40ss@proxy:3128\" \"NO_PROXY=a.example, b.example\"\nEnvironment=http_proxy=http://u:p%%40ss@proxy:3128\nEnvironment='HTTPS_PROXY=http://u:p%%40ss@proxy:3128'\n";
        let found = Systemd.read(text).unwrap();
        assert_eq!(
            found.http_proxy.as_deref(),
            Some("http://u:p%40ss@proxy:3128")
        );
        assert_eq!(
            found.https_proxy.as_deref(),
            Some("http://u:p%40ss@proxy:3128")
        );
        assert_eq!(found.no_proxy, ["a.example", "b.example"]);
        let html = "[Service]\nEnvironment=&#34;HTTP_PROXY=http://proxy:3128&#34;\n";
        assert_eq!(
            Systemd.read(html).unwrap().http_proxy.as_deref(),
            Some("http://proxy:3128")
        );
        let escaped = "[Service]\nEnvironment=\"HTTP_PROXY=http://p\\\"x\\\\y@proxy:3128\"\n";
        assert_eq!(
            Systemd.read(escaped).unwrap().http_proxy.as_deref(),
            Some("http://p\"x\\y@proxy:3128")
        );
    }

    /// A shell variable in a proxy's host or in NO_PROXY is named in the
    /// refusal; a `$` in the credentials is neither refused nor quoted.
    #[test]
    fn unexpanded_shell_variables_are_named() {
        for (text, variable) in [
            (
                "Environment=\"HTTP_PROXY=http://${proxy_host}\"",
                "${proxy_host}",
            ),
            ("Environment=HTTPS_PROXY=http://u:p@$PROXY:3128", "$PROXY"),
            (
                "Environment=HTTP_PROXY=http://p:1 NO_PROXY=a,${EXTRA:-b}",
                "${EXTRA:-b}",
            ),
        ] {
            let detail = Systemd.read(text).unwrap_err().detail;
            assert!(
                detail.contains(&format!(
                    "`{variable}` is a shell variable the heredoc did not expand"
                )),
                "{text}: {detail}"
            );
        }
        let secret = "Environment=\"HTTP_PROXY=http://u:pa$$w${x}@proxy:3128\" PATH=$PATH";
        assert!(Systemd.read(secret).is_ok());
        assert_eq!(shell_variable("a$1 $ ${} $_x"), Some("$_x"));
        assert_eq!(shell_variable("${unterminated"), None);
    }

    #[test]
    fn conflicts_and_garbage_are_errors() {
        let conflict = "[Service]\nEnvironment=HTTP_PROXY=http://a:1 http_proxy=http://b:1\n";
        assert!(Systemd
            .read(conflict)
            .unwrap_err()
            .detail
            .contains("different values"));
        assert!(Systemd
            .read("hello")
            .unwrap_err()
            .detail
            .contains("No `Environment=`"));
        assert!(Systemd
            .read("Environment=\"HTTP_PROXY=x")
            .unwrap_err()
            .detail
            .contains("unterminated"));
    }
}
