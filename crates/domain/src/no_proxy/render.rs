//! Per-client renderings of a merged list: for each dialect, the setting that
//! gives that client the meaning of the canonical (Go) list as closely as it
//! can express it, and warnings for what it cannot.
//!
//! A rendering borrows each entry's canonical text (formatted once, in
//! [`Entries`]) wherever the client reads that text, and writes the forms it
//! adds (`[v6]`, `.x`, Java patterns) one after another into one buffer. A
//! warning is a borrowed entry and a typed [`Remark`]; its message is written
//! once per group.

use std::net::IpAddr;

use ipnet::IpNet;
// The sets only hold the user's own configuration: HashDoS is no concern, and
// FxHash is several times faster than SipHash on short keys.
use rustc_hash::{FxHashMap, FxHashSet};

use super::dialect::java::{java_cidr_patterns, JavaPattern, JAVA_MAX_EXPANSION};
use super::dialect::Dialect;
use super::entry::{Entries, Entry, Host};
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

/// What happens to an entry for a client. The message ([`Remark::message`])
/// does not name the entry, so the remarks of one client group by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Remark {
    /// wget cannot bypass every host: `*` is left out.
    NoBypassAll,
    /// Ruby does not understand `*`: it is left out.
    NoStar,
    /// The client ignores ports: the entry applies to every port.
    PortsIgnored,
    /// The client does not match CIDR blocks: the block is left out.
    NoCidr,
    /// Ruby cannot read IPv6 addresses: the address is left out.
    NoIpv6,
    /// The client ignores the leading dot of `.x`: `x` bypasses too.
    LeadingDotIgnored,
    /// httpx cannot read `[v6]:port`: the entry applies to every port.
    HttpxIpv6Port,
    /// httpx never matches a default port: the entry applies to every port.
    HttpxDefaultPort,
    /// httpx rejects a value with an IPv6 block: the block is left out.
    HttpxIpv6Cidr,
    /// httpx does not match IPv4 blocks: the block is left out.
    HttpxIpv4Cidr,
    /// httpx compares internationalised hosts in Unicode.
    HttpxUnicode,
    /// Java's `http.nonProxyHosts` has no ports.
    JavaPorts,
    /// The IPv4 block does not expand to few enough Java patterns.
    JavaCidr,
    /// Java has no syntax for IPv6 blocks.
    JavaIpv6Cidr,
}

impl Remark {
    /// The warning's message for `dialect`.
    pub fn message(self, dialect: Dialect) -> String {
        match self {
            Remark::NoBypassAll => "wget cannot bypass every host; the entry is left out.".to_owned(),
            Remark::NoStar => "Ruby does not understand `*`; the entry is left out.".to_owned(),
            Remark::PortsIgnored => format!("{dialect} ignores ports in entries; the entry applies to every port."),
            Remark::NoCidr => format!("{dialect} does not match CIDR blocks; the entry is left out, so addresses in it go through the proxy unless listed one by one."),
            Remark::NoIpv6 => "Ruby splits entries at `:`, so IPv6 addresses cannot be written; the entry is left out.".to_owned(),
            Remark::LeadingDotIgnored => format!("{dialect} ignores the leading dot: the name itself also bypasses the proxy, not only the names below it."),
            Remark::HttpxIpv6Port => "httpx cannot read an IPv6 address with a port (`[addr]:port` makes it reject the whole NO_PROXY value); the entry applies to every port.".to_owned(),
            Remark::HttpxDefaultPort => "httpx removes a URL's default port before comparing, so this port would never match URLs that use it by default; the entry applies to every port.".to_owned(),
            Remark::HttpxIpv6Cidr => "httpx rejects the whole NO_PROXY value when it holds an IPv6 CIDR block; the entry is left out, so addresses in it go through the proxy unless listed one by one.".to_owned(),
            Remark::HttpxIpv4Cidr => "httpx does not match CIDR blocks (only the network address itself); the entry is left out, so addresses in it go through the proxy unless listed one by one.".to_owned(),
            Remark::HttpxUnicode => "httpx compares a host whose first label is internationalised in Unicode and cannot read Unicode entries, so such hosts under the entry go through the proxy.".to_owned(),
            Remark::JavaPorts => "Java's http.nonProxyHosts has no ports; the entry applies to every port.".to_owned(),
            Remark::JavaCidr => format!("Java has no CIDR syntax and the block does not expand to at most {JAVA_MAX_EXPANSION} `a.b.*` patterns; the entry is left out."),
            Remark::JavaIpv6Cidr => "Java has no CIDR syntax for IPv6; the entry is left out.".to_owned(),
        }
    }
}

/// The texts the entries become, in order: borrowed where they are canonical
/// texts; the forms a client adds are written into one buffer (no allocation
/// per form).
struct Forms<'m> {
    parts: Vec<Part<'m>>,
    built: String,
}

/// One text of [`Forms`].
enum Part<'m> {
    /// A text of the entries (or a constant).
    Borrowed(&'m str),
    /// A form written into [`Forms::built`], at this range.
    Built(std::ops::Range<usize>),
}

impl<'m> Forms<'m> {
    fn with_capacity(parts: usize) -> Self {
        Self {
            parts: Vec::with_capacity(parts),
            built: String::new(),
        }
    }

    /// Appends `text` as it is.
    fn push(&mut self, text: &'m str) {
        self.parts.push(Part::Borrowed(text));
    }

    /// Appends the form `write` writes into the buffer.
    fn add(&mut self, write: impl FnOnce(&mut String)) {
        let start = self.built.len();
        write(&mut self.built);
        self.parts.push(Part::Built(start..self.built.len()));
    }

    /// Appends the form written as `pieces`, one after another.
    fn build(&mut self, pieces: &[&str]) {
        self.add(|built| pieces.iter().for_each(|piece| built.push_str(piece)));
    }

    fn build_java(&mut self, pattern: JavaPattern) {
        self.add(|built| {
            // Writing into a String cannot fail.
            let _ = pattern.write_into(built);
        });
    }

    /// How many texts there are, and how many bytes the added forms take.
    fn size(&self) -> (usize, usize) {
        (self.parts.len(), self.built.len())
    }

    /// The texts, in order.
    fn texts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().map(|part| match part {
            Part::Borrowed(text) => text,
            Part::Built(range) => &self.built[range.clone()],
        })
    }
}

/// Renders `entries` for `dialect` (linear: the first of equal forms stays).
/// Stops early when the computation is cancelled ([`cancel::requested`]).
pub fn render(dialect: Dialect, entries: &Entries) -> Rendering<'_> {
    if dialect == Dialect::Go {
        // Go reads the canonical texts; distinct entries have distinct texts.
        return Rendering {
            dialect,
            value: entries.joined().to_owned(),
            warnings: Vec::new(),
        };
    }
    let mut parts = Forms::with_capacity(entries.len() + entries.len() / 4);
    let mut warnings = Vec::new();
    for (entry, text) in entries.with_texts() {
        if cancel::requested() {
            break;
        }
        if let Some(remark) = forms(dialect, entry, text, &mut parts) {
            warnings.push(ClientWarning {
                dialect,
                entry: text,
                remark,
            });
        }
    }
    let separator = dialect.separator();
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

/// Appends the texts one entry (whose canonical text is `text`) becomes for
/// `dialect` to `out`; returns the remark when its meaning changes.
fn forms<'m>(
    dialect: Dialect,
    entry: &'m Entry,
    text: &'m str,
    out: &mut Forms<'m>,
) -> Option<Remark> {
    if entry.host == Host::Any {
        match dialect {
            Dialect::Wget => return Some(Remark::NoBypassAll),
            Dialect::Ruby => return Some(Remark::NoStar),
            // reqwest's `*` covers names only; the two blocks cover IP literals.
            Dialect::Reqwest => {
                for text in ["*", "0.0.0.0/0", "::/0"] {
                    out.push(text);
                }
            }
            _ => out.push("*"),
        }
        return None;
    }
    match dialect {
        Dialect::Go => {
            out.push(text);
            None
        }
        Dialect::Java => java_forms(entry, text, out),
        Dialect::Httpx => httpx_forms(entry, text, out),
        _ => {
            let port = entry.port.filter(|_| dialect.supports_ports());
            let port_note = (port != entry.port).then_some(Remark::PortsIgnored);
            let text = if port.is_none() {
                entry.host_text(text)
            } else {
                text
            };
            env_forms(dialect, entry, port, text, out).or(port_note)
        }
    }
}

/// Forms for the dialects that read NO_PROXY (other than Go, which reads the
/// canonical text), for `entry`'s host with `port`; `text` is their canonical text.
fn env_forms<'m>(
    dialect: Dialect,
    entry: &Entry,
    port: Option<u16>,
    text: &'m str,
    out: &mut Forms<'m>,
) -> Option<Remark> {
    match &entry.host {
        Host::Cidr(net) => {
            if !dialect.matches_cidr(matches!(net, IpNet::V6(_))) {
                return Some(Remark::NoCidr);
            }
            out.push(text);
        }
        Host::Ip(IpAddr::V6(_)) => match dialect {
            Dialect::Ruby => return Some(Remark::NoIpv6),
            // `[v6]:port` is the canonical text with a port.
            Dialect::Python | Dialect::Node | Dialect::Undici => match port {
                Some(_) => out.push(text),
                None => out.build(&["[", text, "]"]),
            },
            // The address without brackets, whatever the port.
            _ => out.push(match port {
                Some(_) => entry.host_text(text),
                None => text,
            }),
        },
        Host::Ip(_) => out.push(text),
        Host::Domain {
            subdomains_only, ..
        } => {
            out.push(text);
            match (dialect, subdomains_only) {
                (Dialect::Node, false) => out.build(&[".", text]),
                (
                    Dialect::Curl
                    | Dialect::Python
                    | Dialect::Requests
                    | Dialect::Undici
                    | Dialect::Reqwest,
                    true,
                ) => return Some(Remark::LeadingDotIgnored),
                _ => {}
            }
        }
        Host::Any => out.push("*"),
    }
    None
}

/// httpx forms for one entry (the rules in `dialect/httpx.rs`): never a
/// bracketed address or an IPv6 CIDR, which make httpx reject the whole
/// setting; `localhost` needs `.localhost` for its subdomains; default ports
/// never match, so they are left out.
fn httpx_forms<'m>(entry: &Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
    let default_port = matches!(entry.port, Some(80 | 443));
    let v6_port = matches!(entry.host, Host::Ip(IpAddr::V6(_))) && entry.port.is_some();
    let port_note = if v6_port {
        Some(Remark::HttpxIpv6Port)
    } else if default_port {
        Some(Remark::HttpxDefaultPort)
    } else {
        None
    };
    let (port, text) = match port_note {
        Some(_) => (None, entry.host_text(text)),
        None => (entry.port, text),
    };
    match &entry.host {
        Host::Cidr(IpNet::V6(_)) => Some(Remark::HttpxIpv6Cidr),
        Host::Cidr(IpNet::V4(_)) => Some(Remark::HttpxIpv4Cidr),
        Host::Ip(_) => {
            out.push(text);
            port_note
        }
        Host::Domain {
            name,
            subdomains_only,
        } => {
            out.push(text);
            if name == "localhost" && !subdomains_only && port.is_none() {
                out.push(".localhost");
            }
            let idn_note = name
                .split('.')
                .any(|label| label.starts_with("xn--"))
                .then_some(Remark::HttpxUnicode);
            port_note.or(idn_note)
        }
        Host::Any => {
            out.push("*");
            None
        }
    }
}

/// Java `http.nonProxyHosts` patterns for one entry.
fn java_forms<'m>(entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
    let port_note = entry.port.map(|_| Remark::JavaPorts);
    match &entry.host {
        Host::Any => out.push("*"),
        Host::Domain {
            name,
            subdomains_only,
        } => {
            if !subdomains_only {
                out.push(name);
            }
            out.build(&["*.", name]);
        }
        Host::Ip(IpAddr::V6(_)) => {
            out.build(&["[", entry.host_text(text), "]"]);
        }
        Host::Ip(_) => out.push(entry.host_text(text)),
        Host::Cidr(IpNet::V4(net)) => match java_cidr_patterns(net) {
            Some(patterns) => {
                for pattern in patterns {
                    out.build_java(pattern);
                }
            }
            None => return Some(Remark::JavaCidr),
        },
        Host::Cidr(IpNet::V6(_)) => return Some(Remark::JavaIpv6Cidr),
    }
    port_note
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
                    message: warning.remark.message(warning.dialect),
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
            render(Dialect::Reqwest, &entries(&["*"])).value,
            "*,0.0.0.0/0,::/0"
        );
        assert!(render(Dialect::Python, &list)
            .warnings
            .iter()
            .any(|w| w.entry == "10.0.0.0/8"));
    }

    /// One group per (client, message): the messages do not name the entry,
    /// so a client's remarks on many entries take one group each.
    #[test]
    fn warnings_group_by_client_and_message() {
        let list = entries(&[".a.example", ".b.example", "10.0.0.0/8", "10.1.0.0/16"]);
        let renderings: Vec<Rendering> = [Dialect::Curl, Dialect::Python]
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
                (Dialect::Curl, vec![".a.example", ".b.example"]),
                (Dialect::Python, vec![".a.example", ".b.example"]),
                (Dialect::Python, vec!["10.0.0.0/8", "10.1.0.0/16"]),
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
        for dialect in Dialect::ALL {
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
        assert_eq!(render(Dialect::Go, &list).value, canonical.join(","));
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
        let rendering = render(Dialect::Httpx, &list);
        assert_eq!(
            rendering.value,
            "localhost,.localhost,.xn--bcher-kva.example,api.example:6443,registry.example,10.0.0.7:8080,fd00::1,fd00::2"
        );
        assert!(!rendering
            .value
            .split(',')
            .any(|e| Dialect::Httpx.rejects_whole_setting(e)));
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
