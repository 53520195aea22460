//! The YAML every renderer writes: block style, keys in the order of the
//! JSON value (sorted), and every string that any YAML 1.1 or 1.2 reader
//! could take for something else quoted.
//!
//! Kubernetes tools read YAML 1.1 (sigs.k8s.io/yaml through go-yaml v2,
//! PyYAML), where `y`, `n`, `yes`, `no`, `on`, `off` (any case) are booleans
//! (<https://yaml.org/type/bool.html>), `~` and `null` are null, and `012`,
//! `0x1F`, `1:20`, `1e3`, `.inf` or `2001-12-14` are numbers or timestamps.
//! serde_yaml_ng quotes only what a YAML 1.2 reader would misread, so a
//! namespace `yes` came out as a boolean. This emitter writes a string plain
//! only when it starts with an ASCII letter or `/`, holds only characters
//! that are inert in a block plain scalar and is not one of the YAML 1.1
//! boolean or null words: such a scalar is a string for every YAML version. Everything else
//! is double-quoted with JSON escapes (a JSON string is a YAML double-quoted
//! scalar), except multi-line text, which becomes a literal block (`|`).

use serde_json::Value;

/// The YAML 1.1 boolean and null words (<https://yaml.org/type/bool.html>,
/// <https://yaml.org/type/null.html>); compared case-insensitively.
const RESERVED_WORDS: [&str; 10] = [
    "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~",
];

/// `value` as a YAML document (ends with a newline).
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(&mut out, map, 0),
        Value::Array(items) if !items.is_empty() => sequence(&mut out, items, 0),
        scalar => {
            inline(&mut out, scalar, 0);
            out.push('\n');
        }
    }
    // The document is written by appending, which leaves up to as much
    // spare capacity again; a large one is kept as a value, so the spare
    // part is given back.
    out.shrink_to_fit();
    out
}

/// Whether `text` can be written as a plain scalar that every YAML reader
/// takes for this very string: it starts with a letter or `/` (so it is no
/// number, timestamp, null or indicator), is no YAML 1.1 boolean or null
/// word, holds no character that starts a comment, a flow collection or an
/// escape, and no `: ` or ` #`.
fn plain_is_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '/')
        && text.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'-' | b'_'
                        | b'.'
                        | b'/'
                        | b'@'
                        | b'%'
                        | b'+'
                        | b'='
                        | b','
                        | b':'
                        | b' '
                        | b'\''
                        | b'"'
                        | b'\\'
                        | b'$'
                        | b'('
                        | b')'
                        | b';'
                        | b'*'
                        | b'&'
                        | b'!'
                        | b'?'
                        | b'~'
                )
        })
        && !text.ends_with([':', ' '])
        && !text.contains(": ")
        && !text.contains(" #")
        && !RESERVED_WORDS.iter().any(|w| w.eq_ignore_ascii_case(text))
}

/// Whether `text` can be a literal block scalar: several lines of printable
/// characters, the first non-empty one not starting with a space (no
/// indentation indicator needed: the reader takes the indentation from it)
/// and exactly one final newline or none.
fn literal_is_safe(text: &str) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.contains('\n')
        && !body.ends_with('\n')
        && body
            .split('\n')
            .find(|line| !line.is_empty())
            .is_none_or(|line| !line.starts_with([' ', '\t']))
        && body.lines().all(|line| !line.ends_with([' ', '\t']))
        && body.chars().all(|c| c == '\n' || !unprintable(c))
}

/// Appends a scalar, an empty collection or a literal block header with its
/// lines (indented by `indent + 2`) to `out`.
fn inline(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) if plain_is_safe(s) => out.push_str(s),
        Value::String(s) if literal_is_safe(s) => {
            out.push_str(if s.ends_with('\n') { "|" } else { "|-" });
            let pad = " ".repeat(indent + 2);
            for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
                out.push('\n');
                if !line.is_empty() {
                    out.push_str(&pad);
                    out.push_str(line);
                }
            }
        }
        Value::String(s) => double_quoted(out, s),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

/// Appends `text` double-quoted to `out`, escaping what a double-quoted
/// scalar cannot hold raw: `"`, `\\`, control characters and the characters
/// YAML 1.1 reads as line breaks or a BOM.
fn double_quoted(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if unprintable(c) => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Characters that never appear raw in what we write.
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{feff}' | '\u{fffe}' | '\u{ffff}' | '\u{2028}' | '\u{2029}'
        )
}

fn is_block(value: &Value) -> bool {
    match value {
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
        _ => false,
    }
}

fn mapping(out: &mut String, map: &serde_json::Map<String, Value>, indent: usize) {
    let pad = " ".repeat(indent);
    for (key, value) in map {
        out.push_str(&pad);
        if plain_is_safe(key) {
            out.push_str(key);
        } else {
            double_quoted(out, key);
        }
        out.push(':');
        match value {
            Value::Object(inner) if is_block(value) => {
                out.push('\n');
                mapping(out, inner, indent + 2);
            }
            Value::Array(items) if is_block(value) => {
                out.push('\n');
                sequence(out, items, indent);
            }
            scalar => {
                out.push(' ');
                inline(out, scalar, indent);
                out.push('\n');
            }
        }
    }
}

fn sequence(out: &mut String, items: &[Value], indent: usize) {
    let pad = " ".repeat(indent);
    for item in items {
        out.push_str(&pad);
        out.push('-');
        match item {
            Value::Object(inner) if is_block(item) => {
                // The first key on the dash line, the others under it.
                let mut nested = String::new();
                mapping(&mut nested, inner, indent + 2);
                out.push(' ');
                out.push_str(&nested[indent + 2..]);
            }
            Value::Array(inner) if is_block(item) => {
                out.push('\n');
                sequence(out, inner, indent + 2);
            }
            scalar => {
                out.push(' ');
                inline(out, scalar, indent);
                out.push('\n');
            }
        }
    }
}

/// Test data for the YAML writer, here and in the crates above (feature
/// `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod testing {
    use serde_json::{json, Value};

    /// The characters of the random strings the writer's tests read back
    /// (YAML indicators, line breaks, words), as a proptest regex.
    pub const RANDOM_STRING: &str = "[a-zA-Z0-9 :#'\"\\-\n\t.,%@~?!&*|>{}\\[\\]]{0,12}";

    /// Strings a YAML 1.1 or 1.2 reader could take for something else, and
    /// strings that need care in any YAML.
    pub fn tricky() -> Vec<String> {
        let mut out: Vec<String> = [
            "y",
            "Y",
            "n",
            "N",
            "yes",
            "Yes",
            "YES",
            "no",
            "No",
            "NO",
            "true",
            "True",
            "false",
            "FALSE",
            "on",
            "On",
            "ON",
            "off",
            "Off",
            "OFF",
            "null",
            "Null",
            "NULL",
            "~",
            "",
            " ",
            "012",
            "0o17",
            "0x1F",
            "0b101",
            "1_000",
            "1:20",
            "190:20:30",
            "1e3",
            "-1.5",
            "+1",
            ".5",
            ".inf",
            "-.Inf",
            ".NaN",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "=",
            "<<",
            "-",
            "- a",
            "? x",
            "a: b",
            "a #b",
            "#x",
            "&a",
            "*a",
            "!tag",
            "%TAG",
            "@x",
            "`x",
            "|",
            "\n a",
            "\n\n\tb\nc",
            ">",
            "'q'",
            "\"q\"",
            "{a}",
            "[a]",
            "a,b",
            "x:",
            "key: value",
            "http://u:p%40@proxy:3128",
            "p%2540ss \"w\\rd\" $HOME 'x'@y",
            "tab\there",
            "line\nbreak",
            "two\n\nblank\n",
            "trailing\n\n",
            " leading\nx",
            "crlf\r\nx",
            "nul\0x",
            "bell\u{7}",
            "é",
            "名前",
            "\u{feff}bom",
            "\u{2028}",
            "yes\n",
            "[Service]\nEnvironment=\"A=b %% c\"\n",
            "end space \nx",
        ]
        .map(str::to_owned)
        .to_vec();
        out.push("x".repeat(300));
        out
    }

    /// A document holding `strings` as list items, keys and values, in
    /// objects and nested lists, beside other scalars.
    pub fn document(strings: &[String]) -> Value {
        json!({
            "list": strings,
            "map": strings.iter().enumerate().map(|(i, s)| (format!("k{i:03}{s}"), json!(s))).collect::<serde_json::Map<_, _>>(),
            "objects": strings.iter().map(|s| json!({"name": s, "value": s, "n": [s, {}], "e": []})).collect::<Vec<_>>(),
            "nested": [[strings[0].clone(), strings[1].clone()], []],
            "flags": [true, false, null, 1, 2.5],
            "keys": strings.iter().map(|s| (s.clone(), json!(1))).collect::<serde_json::Map<_, _>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{document, tricky, RANDOM_STRING};
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The YAML 1.2 reader (serde_yaml_ng) reads back exactly the value
    /// written. (So does the YAML 1.1 reader PyYAML:
    /// tests/oracles/render_tools.rs.)
    #[test]
    fn yaml_1_2_reader_reads_back_every_tricky_string() {
        let value = document(&tricky());
        let yaml = to_string(&value);
        let back: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(back, value, "{yaml}");
        assert!(
            yaml.contains("- 'yes'") || yaml.contains("- \"yes\""),
            "{yaml}"
        );
    }

    #[test]
    fn plain_where_safe_literal_for_lines() {
        let yaml =
            to_string(&json!({"a": "containerd.service", "b": "l1\nl2\n", "c": [], "d": {}}));
        assert_eq!(
            yaml,
            "a: containerd.service\nb: |\n  l1\n  l2\nc: []\nd: {}\n"
        );
    }

    /// A document kept as a value holds no spare capacity: one holding a
    /// 4 MB `noProxy` took 8 MB, and a renderer keeps several.
    #[test]
    fn a_large_document_holds_no_spare_capacity() {
        let no_proxy = "host.corp.example,".repeat(250_000);
        for value in [json!({ "spec": { "noProxy": no_proxy } }), json!(no_proxy)] {
            let yaml = to_string(&value);
            assert!(yaml.len() > no_proxy.len());
            assert_eq!(yaml.capacity(), yaml.len());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Random strings (YAML indicators, line breaks, words) read back
        /// unchanged through serde_yaml_ng. (PyYAML checks the same in one
        /// batch: tests/oracles/render_tools.rs.)
        #[test]
        fn random_strings_read_back(strings in proptest::collection::vec(RANDOM_STRING, 2..8)) {
            let value = document(&strings);
            let yaml = to_string(&value);
            let back: Value = serde_yaml_ng::from_str(&yaml).unwrap();
            prop_assert_eq!(back, value);
        }
    }
}
