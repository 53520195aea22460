//! Proxy settings in files no importer reads: the fleet scan passes a file
//! that is no artifact of any kind over, unless it sets a proxy, which it
//! reports ([`Event::Unimported`]) naming the file, each key and its line,
//! and what the file looks like, so that nothing that sets a proxy is
//! passed over in silence. Values are never quoted (a proxy URL may hold a
//! password); keys and line numbers are.
//!
//! What counts as setting a proxy (the rule the list resource's and the
//! fleet data source's docs state):
//!
//! - a key named `HTTP_PROXY`, `HTTPS_PROXY` or `NO_PROXY` in any case and
//!   spelling (`http_proxy`, `httpProxy`, `http-proxy`, `TKG_HTTP_PROXY`,
//!   `Acquire::http::Proxy`), or a key ending in `proxy` whose value is a
//!   URL (`proxy=http://...`), given a value in an assignment's shape:
//!   `KEY=value`, `KEY: value`, `KEY = value`, `<KEY>value</KEY>`,
//!   `ENV KEY value` (a Dockerfile), `Acquire::http::Proxy "value"`, or a
//!   `name: KEY` followed by its `value:` (a Kubernetes `env` list);
//! - a `proxy` (or `proxies`) block, in YAML, JSON, TOML, INI or XML,
//!   whose entries name `http`, `https`, `no`, `host` or `url` with a value
//!   (`proxy:` then `  https: ...`, `[proxy]`, a Maven `<proxy>` with its
//!   `<host>`).
//!
//! Not counted: an empty value (`HTTP_PROXY=`, which unsets it), a boolean
//! or null, a reference to the variable (`$HTTP_PROXY`, `${{ env.HTTP_PROXY }}`),
//! comment lines (`#`, `//`, `;`, `--`, `*`, XML and C block comments), and
//! an object value (a JSON schema's `"httpProxy": {"type": "string"}`), and
//! documentation, program source, build and Terraform files, told by their
//! extension ([`PASSED_OVER`]: `*.md`, `*.go`, `*.py`, `*.tf`...) or name
//! (`Makefile`), where a
//! name that mentions `HTTP_PROXY` is prose, code or the profiles' own
//! configuration, not a setting to import.

use std::collections::VecDeque;

use super::fleet::{Event, Scan};

#[cfg(doc)]
use super::fleet;

/// Extensions of files never looked into: documentation and program
/// sources, where `HTTP_PROXY=` is an example or code that reads it, and
/// Terraform's own files, where the profiles themselves are declared
/// (`http_proxy = each.value.http_proxy`) and stored.
pub const PASSED_OVER: &[&str] = &[
    "md", "markdown", "rst", "adoc", "asciidoc", "txt", "html", "htm", "go", "rs", "py", "js",
    "mjs", "cjs", "ts", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift",
    "scala", "pl", "lua", "mk", "tf", "tfvars", "hcl", "tfstate", "tofu",
];

/// Names of build files, program sources too, never looked into.
const PASSED_OVER_NAMES: &[&str] = &["Makefile", "GNUmakefile", "makefile"];

/// How many keys the warning names before "and N more".
const NAMED: usize = 3;

/// Bytes after a `name: KEY` its `value` is looked for in, on its line.
const NEAR: usize = 256;

/// Lines (neither blank nor comments) a `proxy` block's entries are looked
/// for in, after its opener.
const BLOCK_LINES: usize = 30;

/// One proxy setting found: the key as written and its line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key as the file writes it (`HTTPS_PROXY`, `Acquire::http::Proxy`),
    /// or `proxy` block (`host`) for a block; never its value.
    pub key: String,
    /// Its line, counted from 1.
    pub line: usize,
}

/// The proxy settings of a file no importer reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sniffed {
    /// Every setting, in file order.
    pub settings: Vec<Setting>,
    /// What the file looks like, as a noun phrase ("a Dockerfile").
    pub looks_like: &'static str,
}

impl Sniffed {
    /// The reason of the warning for the file `rel` (a path below the
    /// scanned directory): what it sets, what it looks like, and the two
    /// ways out (`kinds`, `exclude`). No value is quoted.
    pub fn reason(&self, rel: &str) -> String {
        let mut named: Vec<String> = self
            .settings
            .iter()
            .take(NAMED)
            .map(|s| format!("{} at line {}", s.key, s.line))
            .collect();
        let more = self.settings.len().saturating_sub(NAMED);
        let sets = match (named.pop(), more) {
            (Some(last), 0) if named.is_empty() => last,
            (Some(last), 0) => format!("{} and {last}", named.join(", ")),
            (Some(last), more) => {
                named.push(last);
                format!("{} and {more} more", named.join(", "))
            }
            (None, _) => String::new(),
        };
        format!(
            "sets {sets} (looks like {}), but no importer reads this format: import it with `kinds = {{ \"{rel}\" = \"<kind>\" }}` if it is one of {}, or leave it out with `exclude`.",
            self.looks_like,
            super::kinds().join(", ")
        )
    }
}

/// The event of a file of `scan` that no importer recognised (`rel` its
/// path below the directory, `name` its name): [`Event::Unimported`] when
/// it sets a proxy, `None` when it does not. The fleet walk asks this only
/// of files [`fleet::classify`] passed over, so a file is reported once.
pub fn unimported(scan: &Scan, rel: &str, name: &str, text: &str) -> Option<Event> {
    let sniffed = sniff(name, text)?;
    Some(Event::Unimported {
        path: scan.shown(rel),
        reason: sniffed.reason(rel),
    })
}

/// The proxy settings of the file `name` holding `text`, or `None` when it
/// sets none (or is documentation or source code, [`PASSED_OVER`]).
pub fn sniff(name: &str, text: &str) -> Option<Sniffed> {
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    if PASSED_OVER_NAMES.contains(&name)
        || extension
            .as_deref()
            .is_some_and(|ext| PASSED_OVER.contains(&ext))
    {
        return None;
    }
    // The lines read, with those a block's entries are looked for in
    // ahead: memory does not grow with the file.
    let mut lines = uncommented(text);
    let mut ahead: VecDeque<Line> = lines.by_ref().take(BLOCK_LINES + 1).collect();
    let mut settings = Vec::new();
    // The line a reported block's entry stands at: a block inside it
    // (`<proxy>` in `<proxies>`) is the same setting.
    let mut inside = 0;
    while let Some((index, line)) = ahead.pop_front() {
        ahead.extend(lines.next());
        let below = ahead.make_contiguous();
        let next = below.first().map(|(_, l)| *l);
        for key in keys_set(line, next) {
            settings.push(Setting {
                key,
                line: index + 1,
            });
        }
        if index < inside {
            continue;
        }
        if let Some((entry, at)) = block_entry(line, below) {
            inside = at;
            settings.push(Setting {
                key: format!("a `proxy` block (`{entry}`)"),
                line: index + 1,
            });
        }
    }
    (!settings.is_empty()).then(|| Sniffed {
        settings,
        looks_like: looks_like(name, extension.as_deref(), text),
    })
}

/// A line of a file: its index (from 0) and its text.
type Line<'a> = (usize, &'a str);

/// The lines of `text` that are neither blank, nor a comment line, nor
/// inside a block comment (`<!-- -->`, `/* */`).
fn uncommented(text: &str) -> impl Iterator<Item = Line<'_>> {
    let mut closer: Option<&str> = None;
    text.lines()
        .map(move |line| {
            let trimmed = line.trim_start();
            if let Some(end) = closer {
                if line.contains(end) {
                    closer = None;
                }
                return None;
            }
            for (open, close) in [("<!--", "-->"), ("/*", "*/")] {
                if let Some(rest) = trimmed.strip_prefix(open) {
                    if !rest.contains(close) {
                        closer = Some(close);
                    }
                    return None;
                }
            }
            let comment = ["#", "//", ";", "--", "*", "REM "]
                .iter()
                .any(|c| trimmed.starts_with(c));
            (!comment && !trimmed.is_empty()).then_some(line)
        })
        .enumerate()
        .filter_map(|(index, line)| Some((index, line?)))
}

/// Whether `c` may be part of a key.
fn key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// A key lowercased without separators (`Acquire::http::Proxy`: `acquirehttpproxy`).
fn folded(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a key (folded) names a proxy variable.
fn proxy_variable(folded: &str) -> bool {
    ["httpproxy", "httpsproxy", "noproxy"]
        .iter()
        .any(|v| folded.ends_with(v))
}

/// Whether a value sets something: not empty, no boolean, no null, and no
/// object (`"httpProxy": {"type": "string"}` describes the setting, in a
/// JSON schema, where a setting is a string or a list).
fn sets(value: &str) -> bool {
    let value = value
        .trim()
        .trim_end_matches([',', ';'])
        .trim_matches(['"', '\'', '`'])
        .trim();
    !value.is_empty()
        && !value.starts_with('{')
        && ![
            "true", "false", "yes", "no", "on", "off", "null", "nil", "none", "~",
        ]
        .contains(&value.to_ascii_lowercase().as_str())
}

/// The keys `line` gives a value to (`next`: the next uncommented line,
/// for a `name:` with its `value:` below and a YAML list below the key).
fn keys_set(line: &str, next: Option<&str>) -> Vec<String> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < line.len() {
        let rest = &line[at..];
        let Some(start) = rest.find(|c: char| key_char(c)) else {
            break;
        };
        let start = at + start;
        let len = line[start..]
            .find(|c: char| !key_char(c))
            .unwrap_or(line.len() - start);
        let mut key = &line[start..start + len];
        // A trailing `:` is YAML's separator, not part of the key.
        let mut end = start + len;
        while key.ends_with(':') && !key.ends_with("::") {
            key = &key[..key.len() - 1];
            end -= 1;
        }
        at = start + len;
        let before = line[..start].trim_end_matches(['"', '\'']);
        let reference = before.ends_with(['$', '%']) || before.ends_with("${");
        let folded = folded(key);
        if reference || folded.is_empty() || !folded.ends_with("proxy") {
            continue;
        }
        let Some((value, value_end)) = value_of(line, start, end, next) else {
            continue;
        };
        at = at.max(value_end);
        let url = value.contains("://");
        if sets(value) && (proxy_variable(&folded) || url) {
            found.push(key.to_owned());
        }
    }
    found
}

/// The value `line` gives the key at `start..end`, and where it ends, when
/// the line is an assignment's shape; `next` is the next uncommented line.
fn value_of<'a>(
    line: &'a str,
    start: usize,
    end: usize,
    next: Option<&'a str>,
) -> Option<(&'a str, usize)> {
    let before = line[..start].trim_end();
    // `<KEY>value</KEY>`.
    if before.ends_with('<') {
        let rest = line[end..].strip_prefix('>')?;
        let close = rest.find('<').unwrap_or(rest.len());
        return Some((&rest[..close], end + 1 + close));
    }
    // `- name: KEY` then `value: ...` (a Kubernetes `env` list).
    let unquoted_before = before.trim_end_matches(['"', '\'']).trim_end();
    if unquoted_before.ends_with("name:") || unquoted_before.ends_with("name\":") {
        // Its `value` on the same line stands close by (`{name: K, value: v}`):
        // looking no further keeps a long line of names linear.
        let rest = &line[end..];
        let mut near = rest.len().min(NEAR);
        while !rest.is_char_boundary(near) {
            near -= 1;
        }
        let value = rest[..near]
            .split_once("value")
            .map(|(_, v)| v)
            .or_else(|| next.map(str::trim_start)?.strip_prefix("value"))
            .or_else(|| next.map(str::trim_start)?.strip_prefix("\"value\""))?;
        let value = value.trim_start_matches(['"', '\'']).trim_start();
        return Some((value.strip_prefix(':')?, line.len()));
    }
    let after = line[end..].trim_start_matches(['"', '\'', ']']);
    let offset = line.len() - after.len();
    let spaced = after.trim_start();
    let gap = after.len() - spaced.len();
    let value_at = |skip: usize| {
        let value = &line[offset + gap + skip..];
        let trimmed = value.trim_start();
        let from = line.len() - trimmed.len();
        let len = match trimmed.chars().next() {
            Some(quote @ ('"' | '\'')) => trimmed[1..]
                .find(quote)
                .map_or(trimmed.len(), |close| close + 2),
            _ => trimmed.find(char::is_whitespace).unwrap_or(trimmed.len()),
        };
        (&line[from..from + len], from + len)
    };
    if spaced.starts_with("==") || spaced.starts_with("::") {
        return None;
    }
    for separator in ["=>", ":=", "=", ":"] {
        if let Some(rest) = spaced.strip_prefix(separator) {
            let (value, value_end) = value_at(separator.len());
            // `KEY= next`: in a shell, an empty value before the next word.
            let spaced_value = rest.starts_with(char::is_whitespace);
            if separator == "=" && gap == 0 && spaced_value {
                return Some(("", offset + gap + 1));
            }
            if value.is_empty() && separator == ":" {
                // A YAML list below the key.
                let item = next.is_some_and(|n| n.trim_start().starts_with("- "));
                return Some((if item { "-" } else { "" }, line.len()));
            }
            return Some((value, value_end));
        }
    }
    // `ENV KEY value` (a Dockerfile), `Acquire::http::Proxy "value";`, or a
    // quoted or URL value after a space (`--setenv KEY "value"`).
    if gap == 0 || spaced.is_empty() {
        return None;
    }
    let dockerfile = before.eq_ignore_ascii_case("ENV");
    let apt = line[start..end].contains("::");
    let (value, value_end) = value_at(0);
    let quoted_or_url = value.starts_with(['"', '\'']) || value.contains("://");
    (dockerfile || apt || quoted_or_url).then_some((value, value_end))
}

/// The first entry of the `proxy` block `line` opens, if it opens one and
/// one of its entries (in the lines `below` it) sets a proxy, and the
/// entry's line index.
fn block_entry(line: &str, below: &[Line<'_>]) -> Option<(String, usize)> {
    let trimmed = line.trim();
    let indent = line.len() - line.trim_start().len();
    let opener = |name: &str| matches!(folded(name).as_str(), "proxy" | "proxies");
    let (kind, inline) =
        if let Some(section) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            // `[proxy]`, `[tool.proxy]` (INI, TOML).
            let last = section.rsplit(['.', ' ']).next().unwrap_or(section);
            (
                opener(last.trim_matches('"')).then_some(Block::Section)?,
                "",
            )
        } else if let Some(rest) = trimmed.strip_prefix('<') {
            // `<proxy>` (XML).
            let name = rest.strip_suffix('>')?;
            (opener(name).then_some(Block::Xml)?, "")
        } else {
            // `proxy:`, `"proxy": {`, `proxy = {`, `proxy {`.
            let unquoted = trimmed.trim_start_matches(['"', '\'']);
            let len = unquoted.find(|c: char| !key_char(c) || c == ':')?;
            if !opener(&unquoted[..len]) {
                return None;
            }
            let rest = unquoted[len..].trim_start_matches(['"', '\'']).trim_start();
            let rest = rest
                .strip_prefix(':')
                .or_else(|| rest.strip_prefix('='))
                .unwrap_or(rest)
                .trim_start();
            if !(rest.is_empty() || rest.starts_with('{')) {
                return None;
            }
            (Block::Nested, rest.trim_start_matches('{'))
        };
    let entry = |text: &str, next: Option<&str>| -> Option<String> {
        let mut at = 0;
        while let Some(start) = text[at..].find(|c: char| c.is_ascii_alphabetic()) {
            let start = at + start;
            let len = text[start..]
                .find(|c: char| !key_char(c) || c == ':')
                .unwrap_or(text.len() - start);
            let key = &text[start..start + len];
            at = start + len;
            let entry = matches!(
                folded(key).as_str(),
                "http" | "https" | "no" | "host" | "url" | "noproxy" | "nonproxyhosts"
            );
            if entry && value_of(text, start, start + len, next).is_some_and(|(v, _)| sets(v)) {
                return Some(key.to_owned());
            }
        }
        None
    };
    if let Some(found) = entry(inline, None) {
        return Some((found, 0));
    }
    for (offset, (index, line)) in below.iter().enumerate().take(BLOCK_LINES) {
        let trimmed = line.trim();
        let inner = line.len() - line.trim_start().len();
        let ends = match kind {
            Block::Section => trimmed.starts_with('['),
            Block::Xml => trimmed.starts_with("</"),
            Block::Nested => inner <= indent,
        };
        if ends {
            return None;
        }
        let next = below.get(offset + 1).map(|(_, l)| *l);
        if let Some(found) = entry(line, next) {
            return Some((found, *index));
        }
    }
    None
}

/// How a `proxy` block ends.
#[derive(Clone, Copy)]
enum Block {
    /// At the next `[section]`.
    Section,
    /// At the next closing tag.
    Xml,
    /// At the next line indented no deeper than the opener.
    Nested,
}

/// What the file `name` (its `extension`, lowercased) holding `text` looks
/// like, as a noun phrase.
fn looks_like(name: &str, extension: Option<&str>, text: &str) -> &'static str {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or_default();
    let has = |needle: &str| text.contains(needle);
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("dockerfile")
        || lower.starts_with("containerfile")
        || extension == Some("dockerfile")
        || first.to_ascii_uppercase().starts_with("FROM ")
        || first.to_ascii_uppercase().starts_with("ARG ")
    {
        "a Dockerfile"
    } else if lower.starts_with("jenkinsfile") || has("pipeline {") {
        "a Jenkins pipeline"
    } else if has("jobs:") && (has("runs-on:") || has("steps:")) {
        "a GitHub Actions workflow"
    } else if has("<settings") && has("<proxies>") {
        "a Maven settings.xml"
    } else if first.starts_with('<') {
        "an XML file"
    } else if has("Acquire::") {
        "an APT configuration file"
    } else if has("[Service]") || has("Environment=") {
        "a systemd unit"
    } else if has("apiVersion:") && has("kind:") {
        "a Kubernetes manifest"
    } else if matches!(extension, Some("yaml" | "yml")) || first.starts_with("---") {
        "a YAML file"
    } else if extension == Some("json") || first.starts_with('{') {
        "a JSON file"
    } else if extension == Some("toml") {
        "a TOML file"
    } else if matches!(extension, Some("ini" | "cfg" | "conf")) || first.starts_with('[') {
        "an INI file"
    } else if extension == Some("properties") {
        "a Java properties file"
    } else if matches!(extension, Some("sh" | "bash" | "zsh"))
        || text.starts_with("#!")
        || has("export ")
    {
        "a shell script"
    } else if lower == "environment" || extension == Some("env") || lower.ends_with("env") {
        "a shell environment file"
    } else {
        "a text file"
    }
}

#[cfg(test)]
mod tests;
