//! Per-client renderings of a merged list: for each dialect, the setting that
//! gives that client the meaning of the canonical (Go) list as closely as it
//! can express it, and warnings for what it cannot.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Net};

use super::dialect::Dialect;
use super::entry::{Entry, Host};
use crate::domain::cancel;

/// The most patterns one CIDR block may expand to in Java's syntax.
const JAVA_MAX_EXPANSION: u32 = 256;

/// A client's rendering of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendering {
    /// The dialect.
    pub dialect: Dialect,
    /// The setting's value (`,`-separated NO_PROXY; `|`-separated for Java).
    pub value: String,
    /// What the client cannot express or reads differently.
    pub warnings: Vec<ClientWarning>,
}

/// A remark about one entry for one client. The message does not name the
/// entry, so the remarks of one client can be grouped by message.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientWarning {
    /// The dialect.
    pub dialect: Dialect,
    /// The canonical entry concerned.
    pub entry: String,
    /// What happens to it.
    pub message: String,
}

/// Renders `entries` for `dialect` (linear: the first of equal forms stays).
/// Stops early when the computation is cancelled ([`cancel::requested`]).
pub fn render(dialect: Dialect, entries: &[Entry]) -> Rendering {
    if dialect == Dialect::Go {
        return Rendering {
            dialect,
            value: canonical_list(entries),
            warnings: Vec::new(),
        };
    }
    let mut parts: Vec<String> = Vec::with_capacity(entries.len());
    let mut warnings = Vec::new();
    for entry in entries {
        if cancel::requested() {
            break;
        }
        let (forms, message) = forms(dialect, entry);
        if let Some(message) = message {
            warnings.push(ClientWarning {
                dialect,
                entry: entry.to_string(),
                message,
            });
        }
        parts.extend(forms);
    }
    let mut emitted: HashSet<&str> = HashSet::with_capacity(parts.len());
    let unique: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|part| emitted.insert(part))
        .collect();
    Rendering {
        dialect,
        value: unique.join(dialect.separator()),
        warnings,
    }
}

/// Go's rendering: the canonical texts joined with commas, written into one
/// string. Distinct entries have distinct texts, so nothing repeats.
fn canonical_list(entries: &[Entry]) -> String {
    let mut value = String::with_capacity(entries.len() * 24);
    for (index, entry) in entries.iter().enumerate() {
        if cancel::requested() {
            break;
        }
        if index > 0 {
            value.push(',');
        }
        // Writing into a String cannot fail.
        let _ = write!(value, "{entry}");
    }
    value
}

/// The texts one entry becomes for `dialect`, and a warning if its meaning changes.
fn forms(dialect: Dialect, entry: &Entry) -> (Vec<String>, Option<String>) {
    let unsupported = |why: &str| (Vec::new(), Some(why.to_owned()));
    if entry.host == Host::Any {
        return match dialect {
            Dialect::Wget => unsupported("wget cannot bypass every host; the entry is left out."),
            Dialect::Ruby => unsupported("Ruby does not understand `*`; the entry is left out."),
            // reqwest's `*` covers names only; the two blocks cover IP literals.
            Dialect::Reqwest => (vec!["*".into(), "0.0.0.0/0".into(), "::/0".into()], None),
            _ => (vec!["*".to_owned()], None),
        };
    }
    match dialect {
        Dialect::Go => (vec![entry.to_string()], None),
        Dialect::Java => java_forms(entry),
        Dialect::Httpx => httpx_forms(entry),
        _ => {
            let port_note = entry.port.filter(|_| !dialect.supports_ports()).map(|_| {
                format!("{dialect} ignores ports in entries; the entry applies to every port.")
            });
            let (forms, note) = if port_note.is_some() {
                let host_only = Entry {
                    host: entry.host.clone(),
                    port: None,
                };
                env_forms(dialect, &host_only)
            } else {
                env_forms(dialect, entry)
            };
            (forms, note.or(port_note))
        }
    }
}

/// Forms for the dialects that read NO_PROXY (other than Go, which reads the canonical text).
fn env_forms(dialect: Dialect, entry: &Entry) -> (Vec<String>, Option<String>) {
    let canonical = entry.to_string();
    match &entry.host {
        Host::Cidr(net) => {
            if dialect.matches_cidr(matches!(net, IpNet::V6(_))) {
                (vec![canonical], None)
            } else {
                (
                    Vec::new(),
                    Some(format!("{dialect} does not match CIDR blocks; the entry is left out, so addresses in it go through the proxy unless listed one by one.")),
                )
            }
        }
        Host::Ip(IpAddr::V6(ip)) => match dialect {
            Dialect::Ruby => (
                Vec::new(),
                Some("Ruby splits entries at `:`, so IPv6 addresses cannot be written; the entry is left out.".to_owned()),
            ),
            Dialect::Python | Dialect::Node | Dialect::Undici => (
                vec![match entry.port {
                    Some(port) => format!("[{ip}]:{port}"),
                    None => format!("[{ip}]"),
                }],
                None,
            ),
            _ => (vec![ip.to_string()], None),
        },
        Host::Ip(_) => (vec![canonical], None),
        Host::Domain {
            name,
            subdomains_only,
        } => {
            let port = entry.port.map(|p| format!(":{p}")).unwrap_or_default();
            match (dialect, subdomains_only) {
                (Dialect::Node, false) => (vec![format!("{name}{port}"), format!(".{name}{port}")], None),
                (Dialect::Curl | Dialect::Python | Dialect::Requests | Dialect::Undici | Dialect::Reqwest, true) => (
                    vec![canonical],
                    Some(format!("{dialect} ignores the leading dot: the name itself also bypasses the proxy, not only the names below it.")),
                ),
                _ => (vec![canonical], None),
            }
        }
        Host::Any => (vec!["*".to_owned()], None),
    }
}

/// httpx forms for one entry (the rules in `dialect/httpx.rs`): never a
/// bracketed address or an IPv6 CIDR, which make httpx reject the whole
/// setting; `localhost` needs `.localhost` for its subdomains; default ports
/// never match, so they are left out.
fn httpx_forms(entry: &Entry) -> (Vec<String>, Option<String>) {
    let default_port = matches!(entry.port, Some(80 | 443));
    let v6_port = matches!(entry.host, Host::Ip(IpAddr::V6(_))) && entry.port.is_some();
    let port_note = if v6_port {
        Some("httpx cannot read an IPv6 address with a port (`[addr]:port` makes it reject the whole NO_PROXY value); the entry applies to every port.".to_owned())
    } else if default_port {
        Some("httpx removes a URL's default port before comparing, so this port would never match URLs that use it by default; the entry applies to every port.".to_owned())
    } else {
        None
    };
    let entry = Entry {
        host: entry.host.clone(),
        port: entry.port.filter(|_| port_note.is_none()),
    };
    match &entry.host {
        Host::Cidr(IpNet::V6(_)) => (
            Vec::new(),
            Some("httpx rejects the whole NO_PROXY value when it holds an IPv6 CIDR block; the entry is left out, so addresses in it go through the proxy unless listed one by one.".to_owned()),
        ),
        Host::Cidr(IpNet::V4(_)) => (
            Vec::new(),
            Some("httpx does not match CIDR blocks (only the network address itself); the entry is left out, so addresses in it go through the proxy unless listed one by one.".to_owned()),
        ),
        Host::Ip(_) => (vec![entry.to_string()], port_note),
        Host::Domain { name, subdomains_only } => {
            let mut forms = vec![entry.to_string()];
            if name == "localhost" && !subdomains_only && entry.port.is_none() {
                forms.push(".localhost".to_owned());
            }
            let idn_note = name.split('.').any(|label| label.starts_with("xn--")).then(|| {
                "httpx compares a host whose first label is internationalised in Unicode and cannot read Unicode entries, so such hosts under the entry go through the proxy.".to_owned()
            });
            (forms, port_note.or(idn_note))
        }
        Host::Any => (vec!["*".to_owned()], None),
    }
}

/// Java `http.nonProxyHosts` patterns for one entry.
fn java_forms(entry: &Entry) -> (Vec<String>, Option<String>) {
    let port_note = entry.port.map(|_| {
        "Java's http.nonProxyHosts has no ports; the entry applies to every port.".to_owned()
    });
    match &entry.host {
        Host::Any => (vec!["*".to_owned()], None),
        Host::Domain {
            name,
            subdomains_only: false,
        } => (vec![name.clone(), format!("*.{name}")], port_note),
        Host::Domain {
            name,
            subdomains_only: true,
        } => (vec![format!("*.{name}")], port_note),
        Host::Ip(IpAddr::V6(ip)) => (vec![format!("[{ip}]")], port_note),
        Host::Ip(ip) => (vec![ip.to_string()], port_note),
        Host::Cidr(IpNet::V4(net)) => match java_cidr_patterns(net) {
            Some(patterns) => (patterns, None),
            None => (
                Vec::new(),
                Some(format!("Java has no CIDR syntax and the block does not expand to at most {JAVA_MAX_EXPANSION} `a.b.*` patterns; the entry is left out.")),
            ),
        },
        Host::Cidr(IpNet::V6(_)) => (
            Vec::new(),
            Some("Java has no CIDR syntax for IPv6; the entry is left out.".to_owned()),
        ),
    }
}

/// `10.0.0.0/8` → `10.*`; `10.96.0.0/12` → `10.96.*` ... `10.111.*`.
pub fn java_cidr_patterns(net: &Ipv4Net) -> Option<Vec<String>> {
    let prefix = u32::from(net.prefix_len());
    if prefix == 0 {
        return Some(vec!["*".to_owned()]);
    }
    let (octets, count) = java_cidr_expansion(net)?;
    let base = u32::from(net.network());
    let step = 1u32 << (32 - octets * 8);
    Some(
        (0..count)
            .map(|i| {
                let bytes = (base + i * step).to_be_bytes();
                let head: Vec<String> =
                    bytes[..octets as usize].iter().map(u8::to_string).collect();
                format!("{}.*", head.join("."))
            })
            .collect(),
    )
}

/// How many leading octets the `a.b.*` patterns of `net` spell and how many
/// patterns it takes; `None` when Java cannot express the block.
fn java_cidr_expansion(net: &Ipv4Net) -> Option<(u32, u32)> {
    let prefix = u32::from(net.prefix_len());
    let octets = prefix.div_ceil(8);
    let count = 1u32 << (octets * 8 - prefix);
    (count <= JAVA_MAX_EXPANSION && octets < 4).then_some((octets, count))
}

/// Whether [`java_cidr_patterns`] can express `net` (without building the patterns).
pub fn java_expresses(net: &Ipv4Net) -> bool {
    net.prefix_len() == 0 || java_cidr_expansion(net).is_some()
}

/// The warnings of one client that share one message, with the entries concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningGroup<'w> {
    /// The client.
    pub dialect: Dialect,
    /// What happens to the entries.
    pub message: &'w str,
    /// The canonical entries concerned, in the order of the warnings.
    pub entries: Vec<&'w str>,
}

/// Groups warnings by (client, message), each group where its first warning
/// stands (linear).
pub fn group_warnings<'w>(
    warnings: impl IntoIterator<Item = &'w ClientWarning>,
) -> Vec<WarningGroup<'w>> {
    let mut index: HashMap<(Dialect, &str), usize> = HashMap::new();
    let mut groups: Vec<WarningGroup<'w>> = Vec::new();
    for warning in warnings {
        let at = *index
            .entry((warning.dialect, warning.message.as_str()))
            .or_insert_with(|| {
                groups.push(WarningGroup {
                    dialect: warning.dialect,
                    message: &warning.message,
                    entries: Vec::new(),
                });
                groups.len() - 1
            });
        groups[at].entries.push(&warning.entry);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(raw: &[&str]) -> Vec<Entry> {
        raw.iter().map(|r| Entry::parse(r).unwrap().entry).collect()
    }

    #[test]
    fn java_expands_octet_aligned_blocks() {
        let net: Ipv4Net = "10.96.0.0/12".parse().unwrap();
        let patterns = java_cidr_patterns(&net).unwrap();
        assert_eq!(patterns.len(), 16);
        assert_eq!(patterns[0], "10.96.*");
        assert_eq!(patterns[15], "10.111.*");
        assert_eq!(
            java_cidr_patterns(&"10.0.0.0/8".parse().unwrap()).unwrap(),
            ["10.*"]
        );
        assert!(
            java_cidr_patterns(&"10.0.0.0/7".parse().unwrap())
                .unwrap()
                .len()
                == 2
        );
        assert!(java_cidr_patterns(&"10.0.0.0/30".parse().unwrap()).is_none());
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

    /// The Go rendering is the canonical list, and `java_expresses` agrees
    /// with the patterns.
    #[test]
    fn go_reads_the_canonical_text_and_java_expression_agrees() {
        let list = entries(&["b.example:80", ".a.example", "fd00::1", "10.0.0.0/8", "*"]);
        let canonical: Vec<String> = list.iter().map(Entry::to_string).collect();
        assert_eq!(render(Dialect::Go, &list).value, canonical.join(","));
        for prefix in 0..=32 {
            let net = Ipv4Net::new(std::net::Ipv4Addr::new(10, 0, 0, 0), prefix).unwrap();
            assert_eq!(java_expresses(&net), java_cidr_patterns(&net).is_some());
        }
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
        let warned: Vec<&str> = rendering
            .warnings
            .iter()
            .map(|w| w.entry.as_str())
            .collect();
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
