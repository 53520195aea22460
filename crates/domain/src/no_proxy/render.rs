//! Per-client renderings of a merged list: for each dialect, the setting that
//! gives that client the meaning of the canonical (Go) list as closely as it
//! can express it, and warnings for what it cannot.
//!
//! A rendering borrows each entry's canonical text (formatted once, in
//! [`Entries`]) wherever the client reads that text, and writes the forms it
//! adds (`[v6]`, `.x`, Java patterns) one after another into one buffer. A
//! warning is a borrowed entry and a typed [`Remark`]; its message is written
//! once per group.

// The sets only hold the user's own configuration: HashDoS is no concern, and
// FxHash is several times faster than SipHash on short keys.
use rustc_hash::{FxHashMap, FxHashSet};

use super::dialect::Dialect;
use super::entry::Entries;
use super::forms::{Forms, Remark};
use clusterproxy_cancel as cancel;

/// A client's rendering of the list; the warnings borrow the entries' texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendering<'m> {
    /// The client whose setting `value` is.
    pub dialect: Dialect,
    /// The setting's value (`,`-separated NO_PROXY; `|`-separated for Java).
    pub value: String,
    /// What the client cannot express or reads differently.
    pub warnings: Vec<ClientWarning<'m>>,
}

/// A remark about one entry for one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientWarning<'m> {
    /// The client that reads `entry` this way.
    pub dialect: Dialect,
    /// The canonical entry concerned.
    pub entry: &'m str,
    /// What happens to it.
    pub remark: Remark,
}

/// Renders `entries` for `dialect` with its client's forms
/// ([`Client::forms`](super::dialect::Client::forms); linear: the first of
/// equal forms stays).
/// Stops early when the computation is cancelled ([`cancel::requested`]).
pub fn render(dialect: Dialect, entries: &Entries) -> Rendering<'_> {
    let client = dialect.client();
    let mut parts = Forms::with_capacity(entries.len() + entries.len() / 4);
    let mut warnings = Vec::new();
    for (entry, text) in entries.with_texts() {
        if cancel::requested() {
            break;
        }
        if let Some(remark) = client.forms(entry, text, &mut parts) {
            warnings.push(ClientWarning {
                dialect,
                entry: text,
                remark,
            });
        }
    }
    let separator = client.traits().separator;
    let (count, built) = parts.size();
    let mut value = String::with_capacity(entries.joined().len() + built + count);
    let mut emitted: FxHashSet<&str> =
        FxHashSet::with_capacity_and_hasher(count, Default::default());
    for part in parts.texts() {
        if emitted.insert(part) {
            if !value.is_empty() {
                value.push_str(separator);
            }
            value.push_str(part);
        }
    }
    Rendering {
        dialect,
        value,
        warnings,
    }
}

/// The warnings of one client that share one remark, with the entries concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningGroup<'w> {
    /// The client all the warnings are about.
    pub dialect: Dialect,
    /// What happens to the entries ([`Remark::message`]).
    pub message: String,
    /// The canonical entries concerned, in the order of the warnings.
    pub entries: Vec<&'w str>,
}

/// Groups warnings by (client, remark), each group where its first warning
/// stands (linear); each group's message is written once.
pub fn group_warnings<'w>(
    warnings: impl IntoIterator<Item = &'w ClientWarning<'w>>,
) -> Vec<WarningGroup<'w>> {
    let mut index: FxHashMap<(Dialect, Remark), usize> = FxHashMap::default();
    let mut groups: Vec<WarningGroup<'w>> = Vec::new();
    for warning in warnings {
        let at = *index
            .entry((warning.dialect, warning.remark))
            .or_insert_with(|| {
                groups.push(WarningGroup {
                    dialect: warning.dialect,
                    message: warning.remark.message(warning.dialect.name()),
                    entries: Vec::new(),
                });
                groups.len() - 1
            });
        groups[at].entries.push(warning.entry);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::entry::Entry;

    fn entries(raw: &[&str]) -> Entries {
        raw.iter().map(|r| Entry::parse(r).unwrap().entry).collect()
    }

    #[test]
    fn each_dialect_gets_its_syntax() {
        let list = entries(&[
            "corp.example",
            ".svc",
            "10.0.0.0/8",
            "fd00::1",
            "api.example:6443",
        ]);
        // `client: value` per client.
        let expected = [
            "go: corp.example,.svc,10.0.0.0/8,fd00::1,api.example:6443",
            "curl: corp.example,.svc,10.0.0.0/8,fd00::1,api.example",
            "python: corp.example,.svc,[fd00::1],api.example:6443",
            "ruby: corp.example,.svc,10.0.0.0/8,api.example:6443",
            "wget: corp.example,.svc,fd00::1,api.example",
            "java: corp.example|*.corp.example|*.svc|10.*|[fd00::1]|api.example|*.api.example",
            "node: corp.example,.corp.example,.svc,[fd00::1],api.example:6443,.api.example:6443",
            "reqwest: corp.example,.svc,10.0.0.0/8,fd00::1,api.example",
        ];
        for line in expected {
            let (name, value) = line.split_once(": ").unwrap();
            let dialect = Dialect::from_name(name).unwrap();
            assert_eq!(render(dialect, &list).value, value, "{name}");
        }
        assert_eq!(
            render(Dialect::REQWEST, &entries(&["*"])).value,
            "*,0.0.0.0/0,::/0"
        );
        assert!(render(Dialect::PYTHON, &list)
            .warnings
            .iter()
            .any(|w| w.entry == "10.0.0.0/8"));
    }

    /// One group per (client, message): the messages do not name the entry,
    /// so a client's remarks on many entries take one group each.
    #[test]
    fn warnings_group_by_client_and_message() {
        let list = entries(&[".a.example", ".b.example", "10.0.0.0/8", "10.1.0.0/16"]);
        let renderings: Vec<Rendering> = [Dialect::CURL, Dialect::PYTHON]
            .into_iter()
            .map(|d| render(d, &list))
            .collect();
        let groups = group_warnings(renderings.iter().flat_map(|r| &r.warnings));
        let summary: Vec<(Dialect, Vec<&str>)> = groups
            .iter()
            .map(|g| (g.dialect, g.entries.clone()))
            .collect();
        assert_eq!(
            summary,
            [
                (Dialect::CURL, vec![".a.example", ".b.example"]),
                (Dialect::PYTHON, vec![".a.example", ".b.example"]),
                (Dialect::PYTHON, vec!["10.0.0.0/8", "10.1.0.0/16"]),
            ]
        );
        assert!(groups[1].message.contains("leading dot"));
    }

    /// Warnings borrow the entries' canonical texts, formatted once by
    /// [`Entries`], instead of formatting every entry again for every client.
    #[test]
    fn warnings_borrow_the_canonical_texts() {
        let list = entries(&["*", ".a.example", "10.0.0.0/8", "[fd00::1]:80", "fd00::/64"]);
        let texts = list.joined().as_bytes().as_ptr_range();
        let mut warned = 0;
        for dialect in Dialect::all() {
            for warning in render(dialect, &list).warnings {
                assert!(texts.contains(&warning.entry.as_ptr()), "{warning:?}");
                warned += 1;
            }
        }
        assert!(warned > 10, "{warned}");
    }

    /// The Go rendering is the canonical list.
    #[test]
    fn go_reads_the_canonical_text() {
        let list = entries(&["b.example:80", ".a.example", "fd00::1", "10.0.0.0/8", "*"]);
        let canonical: Vec<String> = list.iter().map(Entry::to_string).collect();
        assert_eq!(render(Dialect::GO, &list).value, canonical.join(","));
    }

    /// httpx never gets an entry that makes it reject the whole value (IPv6
    /// CIDRs, bracketed addresses), nor a port it would never match.
    #[test]
    fn httpx_gets_only_what_it_reads() {
        let list = entries(&[
            "localhost",
            ".xn--bcher-kva.example",
            "api.example:6443",
            "registry.example:443",
            "10.0.0.0/8",
            "10.0.0.7:8080",
            "fd00::/64",
            "[fd00::1]:8080",
            "fd00::2",
        ]);
        let rendering = render(Dialect::HTTPX, &list);
        assert_eq!(
            rendering.value,
            "localhost,.localhost,.xn--bcher-kva.example,api.example:6443,registry.example,10.0.0.7:8080,fd00::1,fd00::2"
        );
        assert!(!rendering
            .value
            .split(',')
            .any(|e| Dialect::HTTPX.client().rejects_whole_setting(e)));
        let warned: Vec<&str> = rendering.warnings.iter().map(|w| w.entry).collect();
        assert_eq!(
            warned,
            [
                ".xn--bcher-kva.example",
                "registry.example:443",
                "10.0.0.0/8",
                "fd00::/64",
                "[fd00::1]:8080"
            ]
        );
    }
}
