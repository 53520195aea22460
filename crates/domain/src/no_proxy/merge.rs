//! Merging sources into one list: parse and normalise every entry, put the
//! entries in the canonical order (see [`super::entry`]) and drop semantic
//! duplicates (the first input spelling an entry is its origin), drop entries
//! another entry covers for every target client, optionally aggregate CIDR
//! blocks, and write the shared NO_PROXY list every target client reads
//! correctly. The result depends only on the set of entries, never on the
//! order or spelling of the inputs. Linear apart from the one sort.

use crate::warning::Warning;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::net::IpAddr;

use super::dialect::Dialect;
use super::entry::{Entries, Entry, Host};
use crate::{Finding, InputField, Location};
use clusterproxy_cancel as cancel;

mod cover;
mod order;

use cover::{aggregate, drop_covered};
use order::canonical_order;

/// One input list, borrowing the entries where the caller holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source<'a> {
    /// The input field, where findings point.
    pub field: InputField,
    /// The entries as written, before parsing and normalisation.
    pub entries: Vec<Cow<'a, str>>,
    /// Whether findings carry the element index (false for single-value fields).
    pub indexed: bool,
}

impl<'a> Source<'a> {
    /// A list input: owned (`Vec<String>`) or borrowed (`&[String]`) entries.
    pub fn list<E: Into<Cow<'a, str>>>(
        field: InputField,
        entries: impl IntoIterator<Item = E>,
    ) -> Self {
        Self {
            field,
            entries: entries.into_iter().map(Into::into).collect(),
            indexed: true,
        }
    }

    /// A single-value input (absent when `None`).
    pub fn single<E: Into<Cow<'a, str>>>(field: InputField, entry: Option<E>) -> Self {
        Self {
            field,
            entries: entry.into_iter().map(Into::into).collect(),
            indexed: false,
        }
    }
}

/// What the merge may do for the clients that read its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOptions {
    /// The clients that will read the result; subsumption is only done where
    /// it is safe for every one of them.
    pub targets: BTreeSet<Dialect>,
    /// Aggregate IP addresses and CIDR blocks into the fewest CIDR blocks
    /// (only when every target matches CIDR blocks).
    pub aggregate_cidrs: bool,
}

impl Default for MergeOptions {
    fn default() -> Self {
        Self {
            targets: Dialect::defaults().iter().copied().collect(),
            aggregate_cidrs: false,
        }
    }
}

/// An entry left out because another entry covers it for every target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subsumed {
    /// The entry left out (canonical).
    pub entry: String,
    /// The entry that covers it (canonical).
    pub covered_by: String,
}

/// One input element: the position of its source and its index there
/// (ordered as the inputs are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Origin {
    source: usize,
    index: usize,
}

/// The input element behind each element of a merged list, recorded while
/// merging (so tracing a finding back costs nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins {
    /// Per source: its field and whether findings carry the element index.
    fields: Vec<(InputField, bool)>,
    /// Per element of [`Merged::list`].
    of: Vec<Option<Origin>>,
}

impl Origins {
    /// The input (and element) that first gave element `index` of the
    /// shared list. The extra forms some clients need (`.x`,
    /// `[v6]`) come from the input of the entry they stand beside. `None` for
    /// built-in defaults and aggregated blocks no input spells.
    pub fn get(&self, index: usize) -> Option<Location> {
        let origin = (*self.of.get(index)?)?;
        let (field, indexed) = *self.fields.get(origin.source)?;
        Some(Location {
            field,
            index: indexed.then_some(origin.index),
        })
    }
}

/// A merged NO_PROXY list: the canonical entries, the list the target
/// clients read, and what the merge left out or rewrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// Canonical entries, in the canonical order, with their canonical texts.
    pub entries: Entries,
    /// The shared NO_PROXY list: the canonical entries, each followed by the
    /// extra forms some target clients need (`.x` after `x` for Node, `[v6]`
    /// after `v6` for Python and Node).
    pub list: Vec<String>,
    /// Where each element of `list` came from.
    pub origins: Origins,
    /// Entries left out as covered, in the canonical order.
    pub subsumed: Vec<Subsumed>,
    /// Normalisations and remarks worth a warning.
    pub warnings: Vec<Finding>,
}

impl Merged {
    /// The shared list joined with commas (the value of NO_PROXY / no_proxy).
    pub fn no_proxy(&self) -> String {
        self.list.join(",")
    }
}

/// Normalises one entry to its canonical text; errors are on `at`.
pub fn normalize(at: impl Into<Option<Location>>, raw: &str) -> Result<String, Finding> {
    Entry::parse(raw)
        .map(|parsed| parsed.entry.to_string())
        .map_err(|r| Finding::error(at, r.summary, r.detail))
}

/// The error a cancelled merge returns (its caller discards it).
fn cancelled() -> Vec<Finding> {
    vec![Finding::error(
        None,
        "Cancelled",
        "The merge was cancelled before it finished.",
    )]
}

/// Merges `sources` (in priority order: the first input spelling an entry is
/// its origin). Returns every error when any entry is invalid.
pub fn merge(sources: &[Source], options: &MergeOptions) -> Result<Merged, Vec<Finding>> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let total = sources.iter().map(|s| s.entries.len()).sum();
    let mut parsed: Vec<(Entry, Option<Origin>)> = Vec::with_capacity(total);
    for (position, source) in sources.iter().enumerate() {
        for (index, raw) in source.entries.iter().enumerate() {
            if cancel::requested() {
                return Err(cancelled());
            }
            let at = Location {
                field: source.field,
                index: source.indexed.then_some(index),
            };
            match Entry::parse(raw) {
                Ok(entry) => {
                    for note in entry.notes {
                        warnings.push(Finding::warning(
                            Warning::NoProxyEntryRewritten,
                            at,
                            "NO_PROXY entry rewritten",
                            note,
                        ));
                    }
                    // Built-in defaults are no one's input.
                    let origin = (source.field != InputField::Defaults).then_some(Origin {
                        source: position,
                        index,
                    });
                    parsed.push((entry.entry, origin));
                }
                Err(r) => errors.push(Finding::error(at, r.summary, r.detail)),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (entries, origins) = canonical_order(parsed);
    let fields = sources.iter().map(|s| (s.field, s.indexed)).collect();
    let star_understood = options
        .targets
        .iter()
        .all(|d| d.client().traits().understands_any);
    if entries.first().is_some_and(|e| e.host == Host::Any) {
        if star_understood {
            warnings.push(Finding::warning(
                Warning::NoProxyStar,
                None,
                "NO_PROXY contains `*`",
                "`*` sends every destination around the proxy; the other entries are left out because curl and Python only honour `*` as the whole value.",
            ));
            let subsumed = entries[1..]
                .iter()
                .map(|e| Subsumed {
                    entry: e.to_string(),
                    covered_by: "*".to_owned(),
                })
                .collect();
            let entries = Entries::new(vec![Entry {
                host: Host::Any,
                port: None,
            }]);
            let origins = vec![origins[0]];
            let (list, of) = shared_list(&entries, &origins, &options.targets)?;
            return Ok(Merged {
                list,
                origins: Origins { fields, of },
                entries,
                subsumed,
                warnings,
            });
        }
        warnings.push(Finding::warning(
            Warning::NoProxyStar,
            None,
            "NO_PROXY contains `*`",
            format!("`*` does not bypass every destination for {} (wget and Ruby ignore it, reqwest applies it to names only), so the other entries are kept for them; curl and Python then ignore `*`, because they only honour it as the whole value.", partial_star(&options.targets)),
        ));
    }
    let (mut entries, mut origins, subsumed) = drop_covered(entries, origins, &options.targets)?;
    if options.aggregate_cidrs {
        let families: Vec<bool> = [false, true]
            .into_iter()
            .filter(|ipv6| {
                options
                    .targets
                    .iter()
                    .all(|d| d.client().matches_cidr(*ipv6))
            })
            .collect();
        if families.is_empty() {
            warnings.push(Finding::warning(
                Warning::CidrAggregationSkipped,
                InputField::AggregateCidrs,
                "CIDR aggregation skipped",
                "Aggregating addresses into CIDR blocks is only safe when every client matches CIDR blocks (go for both families; curl, requests and ruby for IPv4); the other clients would lose the literal addresses.",
            ));
        }
        for ipv6 in families {
            (entries, origins) = aggregate(entries, origins, ipv6);
        }
    }
    let entries = Entries::new(entries);
    let (list, of) = shared_list(&entries, &origins, &options.targets)?;
    warnings.extend(unreadable(&entries, &list, &options.targets));
    Ok(Merged {
        list,
        origins: Origins { fields, of },
        entries,
        subsumed,
        warnings,
    })
}

/// Warnings for targets that cannot read the shared list: a target that
/// rejects the whole value for one of its entries, and the bracketed IPv6 form
/// left out because a target would reject the value for it.
fn unreadable(entries: &[Entry], list: &[String], targets: &BTreeSet<Dialect>) -> Vec<Finding> {
    let mut out = Vec::new();
    for dialect in targets {
        if let Some(bad) = list
            .iter()
            .find(|e| dialect.client().rejects_whole_setting(e))
        {
            let summary = format!("{dialect} rejects this NO_PROXY value");
            let detail = format!("`{bad}` makes {dialect} reject the whole NO_PROXY value, so every request fails; give {dialect} processes their rendering (`renderings[\"{dialect}\"]`), which leaves such entries out.");
            out.push(Finding::warning(
                Warning::ClientRejectsNoProxy,
                None,
                summary,
                detail,
            ));
        }
    }
    let needing: Vec<&str> = targets
        .iter()
        .filter(|d| d.client().traits().needs_bracketed_ipv6)
        .map(|d| d.name())
        .collect();
    let left_out = entries
        .iter()
        .find_map(|e| match (&e.host, e.port) {
            (Host::Ip(IpAddr::V6(ip)), None) => Some(format!("[{ip}]")),
            _ => None,
        })
        .filter(|_| brackets_left_out(targets));
    if let (Some(form), false) = (left_out, needing.is_empty()) {
        let detail = format!("{} match IPv6 addresses only in brackets, but another client rejects the whole NO_PROXY value with `{form}` in it, so the shared list leaves the bracketed forms out; give {} processes their renderings.", needing.join(", "), needing.join(", "));
        out.push(Finding::warning(
            Warning::BracketedIpv6LeftOut,
            None,
            "Bracketed IPv6 forms left out",
            detail,
        ));
    }
    out
}

/// True when the bracketed IPv6 forms some targets need are left out of the
/// shared list, because another target rejects the whole value with one.
fn brackets_left_out(targets: &BTreeSet<Dialect>) -> bool {
    targets
        .iter()
        .any(|d| d.client().traits().needs_bracketed_ipv6)
        && targets
            .iter()
            .any(|d| d.client().rejects_whole_setting("[::1]"))
}

/// The targets for which `*` does not bypass every destination, by name.
fn partial_star(targets: &BTreeSet<Dialect>) -> String {
    let names: Vec<&str> = targets
        .iter()
        .filter(|d| !d.client().traits().understands_any)
        .map(|d| d.name())
        .collect();
    names.join(", ")
}

/// The shared list and the origin of each element: canonical forms, each
/// followed by the forms some targets need (no `.localhost`: names below
/// localhost are loopback by definition, RFC 6761).
#[allow(clippy::type_complexity)]
fn shared_list(
    entries: &Entries,
    origins: &[Option<Origin>],
    targets: &BTreeSet<Dialect>,
) -> Result<(Vec<String>, Vec<Option<Origin>>), Vec<Finding>> {
    let node = targets.iter().any(|d| d.client().traits().needs_dot_form);
    let bracketed_v6 = targets
        .iter()
        .any(|d| d.client().traits().needs_bracketed_ipv6)
        && !brackets_left_out(targets);
    let mut list = Vec::with_capacity(entries.len() + entries.len() / 4);
    let mut of = Vec::with_capacity(list.capacity());
    for (at, ((entry, text), origin)) in entries.with_texts().zip(origins).enumerate() {
        if cancel::requested() {
            return Err(cancelled());
        }
        list.push(text.to_owned());
        of.push(*origin);
        let extra = match (&entry.host, entry.port) {
            (
                Host::Domain {
                    name,
                    subdomains_only: false,
                },
                _,
            ) if node && name != "localhost" && !dotted_follows(entries, at) => {
                Some([".", text].concat())
            }
            (Host::Ip(IpAddr::V6(_)), None) if bracketed_v6 => Some(["[", text, "]"].concat()),
            _ => None,
        };
        if let Some(extra) = extra {
            list.push(extra);
            of.push(*origin);
        }
    }
    Ok((list, of))
}

/// True when the entry after `at` is `.name` of the domain entry `name` at
/// `at`, with the same port (the canonical order puts it right there).
fn dotted_follows(entries: &[Entry], at: usize) -> bool {
    match (&entries[at], entries.get(at + 1)) {
        (
            Entry {
                host: Host::Domain { name, .. },
                port,
            },
            Some(Entry {
                host:
                    Host::Domain {
                        name: next,
                        subdomains_only: true,
                    },
                port: next_port,
            }),
        ) => name == next && port == next_port,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn source<'a>(field: InputField, raw: &[&'a str]) -> Source<'a> {
        Source::list(field, raw.iter().copied())
    }

    pub(super) fn targets(names: &[Dialect]) -> MergeOptions {
        MergeOptions {
            targets: names.iter().copied().collect(),
            aggregate_cidrs: false,
        }
    }

    /// The origin of each list element, as the merge recorded it.
    fn located(merged: &Merged, entry: &str) -> Option<Location> {
        let index = merged.list.iter().position(|e| e == entry).unwrap();
        merged.origins.get(index)
    }

    #[test]
    fn origin_names_the_first_input_spelling_an_entry() {
        let sources = [
            source(InputField::Defaults, &["localhost"]),
            source(
                InputField::Installation,
                &["Registry.Corp.Example.", "10.0.0.0/8"],
            ),
            Source::single(InputField::ApiserverHost, Some("127.0.0.1".to_owned())),
            source(
                InputField::Extra,
                &["localhost", "registry.corp.example", "b.example"],
            ),
            source(InputField::Defaults, &["c.example"]),
        ];
        let merged = merge(&sources, &MergeOptions::default()).unwrap();
        let at = |entry| located(&merged, entry);
        assert_eq!(
            at("registry.corp.example"),
            Some(Location::element(InputField::Installation, 0))
        );
        assert_eq!(
            at(".registry.corp.example"),
            Some(Location::element(InputField::Installation, 0))
        );
        assert_eq!(
            at("localhost"),
            Some(Location::element(InputField::Extra, 0))
        );
        assert_eq!(
            at("10.0.0.0/8"),
            Some(Location::element(InputField::Installation, 1))
        );
        assert_eq!(at("127.0.0.1"), Some(InputField::ApiserverHost.into()));
        assert_eq!(
            at("b.example"),
            Some(Location::element(InputField::Extra, 2))
        );
        assert_eq!(at("c.example"), None);
    }

    #[test]
    fn node_form_is_not_repeated_when_the_input_has_it() {
        let merged = merge(
            &[source(
                InputField::Extra,
                &[".x.example:80", "x.example:80", "x.example:81"],
            )],
            &targets(&[Dialect::NODE]),
        )
        .unwrap();
        assert_eq!(
            merged.list,
            [
                "x.example:80",
                ".x.example:80",
                "x.example:81",
                ".x.example:81"
            ]
        );
    }

    #[test]
    fn star_wins_alone_where_every_target_understands_it() {
        let sources = [source(InputField::Extra, &["a.example", "*"])];
        let merged = merge(
            &sources,
            &targets(&[Dialect::GO, Dialect::CURL, Dialect::PYTHON]),
        )
        .unwrap();
        assert_eq!(merged.list, ["*"]);
        assert_eq!(merged.warnings.len(), 1);
        let merged = merge(&sources, &MergeOptions::default()).unwrap();
        assert_eq!(merged.list, ["*", "a.example", ".a.example"]);
        assert!(merged.warnings[0].detail.contains("wget and Ruby"));
        // reqwest's `*` leaves IP literals to the proxy: the entries stay.
        let sources = [source(InputField::Extra, &["10.0.0.0/8", "*"])];
        let merged = merge(&sources, &targets(&[Dialect::GO, Dialect::REQWEST])).unwrap();
        assert_eq!(merged.list, ["*", "10.0.0.0/8"]);
        assert!(merged.warnings[0]
            .detail
            .starts_with("`*` does not bypass every destination for reqwest "));
    }

    #[test]
    fn ipv6_gets_the_bracketed_form_python_and_node_need() {
        let merged = merge(
            &[source(InputField::Extra, &["fd00::1"])],
            &targets(&[Dialect::GO, Dialect::PYTHON]),
        )
        .unwrap();
        assert_eq!(merged.list, ["fd00::1", "[fd00::1]"]);
    }

    /// httpx rejects a whole value holding `[v6]` or an IPv6 CIDR: with httpx
    /// among the targets the bracketed form is left out, `[v6]:port` is no
    /// longer covered by `v6`, and both are reported.
    #[test]
    fn httpx_keeps_the_list_free_of_brackets_and_says_so() {
        let sources = [source(
            InputField::Extra,
            &["fd00::1", "[fd00::1]:8080", "fd00::/64"],
        )];
        let merged = merge(
            &sources,
            &targets(&[Dialect::GO, Dialect::PYTHON, Dialect::HTTPX]),
        )
        .unwrap();
        assert_eq!(merged.list, ["fd00::/64", "fd00::1", "[fd00::1]:8080"]);
        let summaries: Vec<&str> = merged.warnings.iter().map(|w| w.summary.as_str()).collect();
        assert_eq!(
            summaries,
            [
                "httpx rejects this NO_PROXY value",
                "Bracketed IPv6 forms left out"
            ]
        );
        let merged = merge(&sources, &targets(&[Dialect::GO, Dialect::PYTHON])).unwrap();
        assert_eq!(merged.list, ["fd00::/64", "fd00::1", "[fd00::1]"]);
        assert!(merged.warnings.is_empty());
    }

    #[test]
    fn errors_name_field_and_index_and_single_fields_have_none() {
        let errors = merge(
            &[
                source(
                    InputField::Installation,
                    &["ok.example", "", "https://x.example", "10.0.0.1/8"],
                ),
                Source::single(InputField::ApiserverHost, Some("bad host".to_owned())),
            ],
            &MergeOptions::default(),
        )
        .unwrap_err();
        let located: Vec<_> = errors.iter().map(|f| f.location).collect();
        assert_eq!(
            located,
            [
                Some(Location::element(InputField::Installation, 1)),
                Some(Location::element(InputField::Installation, 2)),
                Some(Location::element(InputField::Installation, 3)),
                Some(InputField::ApiserverHost.into())
            ]
        );
    }

    #[test]
    fn merge_is_idempotent() {
        let once = merge(
            &[source(
                InputField::Extra,
                &["B.example", "a.b.example", "fd00::/8", "*.c.example"],
            )],
            &MergeOptions::default(),
        )
        .unwrap();
        let twice = merge(
            &[Source::list(InputField::Extra, once.list.clone())],
            &MergeOptions::default(),
        )
        .unwrap();
        assert_eq!(once.list, twice.list);
    }
}
