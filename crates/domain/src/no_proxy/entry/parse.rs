//! Parsing and normalising one raw NO_PROXY entry.
//!
//! Accepted forms: `*`; host names and domains (`example.com`, `.example.com`,
//! `*.example.com`, internationalised names); IPv4 and IPv6 addresses (IPv6
//! bare or bracketed); CIDR blocks; each host or address optionally with
//! `:port` (IPv6 with a port must be bracketed). Normalisation trims, lowercases,
//! converts to punycode, removes a trailing dot, writes `*.x` as `.x`, and
//! writes `/32` and `/128` blocks as plain addresses.

use std::borrow::Cow;
use std::net::IpAddr;

use ipnet::IpNet;

use super::{Entry, Host};
use crate::redact::redact_userinfo;

/// Why a raw entry was rejected, in words for a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// One-line summary.
    pub summary: &'static str,
    /// Explanation quoting the entry.
    pub detail: String,
}

/// A parsed entry and the normalisations worth telling the user about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The normalised entry.
    pub entry: Entry,
    /// Remarks on changes of meaning or form (for warnings).
    pub notes: Vec<String>,
}

impl Entry {
    /// Parses and normalises one raw entry.
    pub fn parse(input: &str) -> Result<Parsed, Rejection> {
        // `raw` is what messages quote: a URL's userinfo never is.
        let raw: &str = &redact_userinfo(input);
        let reject = |summary, detail: String| Err(Rejection { summary, detail });
        let text = input.trim();
        if text.is_empty() {
            return reject("Empty NO_PROXY entry", "The entry is empty.".to_owned());
        }
        // One pass over the bytes finds what the checks below look for.
        let scan = Scan::of(text);
        if scan.colons > 0 && scan.slash && text.contains("://") {
            return reject(
                "URL given as a NO_PROXY entry",
                format!("{raw:?} is a URL; NO_PROXY entries are host names, domains, IP addresses or CIDR blocks. Give only the host part."),
            );
        }
        let separator = |c: char| c.is_whitespace() || c == ',' || c == '|';
        if scan.separator || (scan.non_ascii && text.contains(separator)) {
            return reject(
                "Several entries in one NO_PROXY element",
                format!("{raw:?} contains a space, comma or `|`; give each entry as its own list element."),
            );
        }
        // Most entries are written in lowercase ASCII already: no copy then.
        let text: Cow<'_, str> = if scan.non_ascii || scan.upper {
            Cow::Owned(text.to_lowercase())
        } else {
            Cow::Borrowed(text)
        };
        if text == "*" {
            return Ok(Parsed {
                entry: Entry {
                    host: Host::Any,
                    port: None,
                },
                notes: Vec::new(),
            });
        }
        // Lowercasing leaves `/`, `:` and digits where they were.
        if scan.slash {
            return cidr_entry(raw, &text);
        }
        let (host, port) = split_port(raw, &text, scan.colons)?;
        // An IPv4 address starts with a digit, an IPv6 one holds a colon.
        let may_be_ip = host.starts_with(|c: char| c.is_ascii_digit()) || host.contains(':');
        if let Some(ip) = may_be_ip.then(|| host.parse::<IpAddr>().ok()).flatten() {
            return Ok(Parsed {
                entry: Entry {
                    host: Host::Ip(ip),
                    port,
                },
                notes: Vec::new(),
            });
        }
        if host.starts_with('[') || host.contains(':') {
            return reject(
                "Invalid IPv6 address",
                format!("{raw:?} is not a valid IPv6 address."),
            );
        }
        parse_domain(raw, host, port)
    }
}

/// Parses a CIDR block (`10.0.0.0/8`, `FD00::/8`; blanks around it are
/// ignored): the one CIDR grammar, of NO_PROXY entries and of the cluster
/// networks. Host bits set are an error that names the network.
pub fn parse_cidr(raw: &str) -> Result<IpNet, Rejection> {
    cidr_block(&redact_userinfo(raw), raw.trim())
}

/// [`parse_cidr`] of `text`, the trimmed `raw` (lowercased or not).
fn cidr_block(raw: &str, text: &str) -> Result<IpNet, Rejection> {
    let net: IpNet = text.parse().map_err(|_| Rejection {
        summary: "Invalid CIDR block",
        detail: format!(
            "{raw:?} is not a valid CIDR block (address/prefix, e.g. 10.0.0.0/8 or fd00::/8)."
        ),
    })?;
    if net.trunc() != net {
        return Err(Rejection {
            summary: "CIDR block with host bits set",
            detail: format!(
                "{raw:?} has host bits set: clients read it differently (some ignore it). The network is {}.",
                net.trunc()
            ),
        });
    }
    Ok(net)
}

fn cidr_entry(raw: &str, text: &str) -> Result<Parsed, Rejection> {
    Ok(Parsed {
        entry: Entry::network(cidr_block(raw, text)?),
        notes: Vec::new(),
    })
}

/// What one pass over an entry's bytes found.
struct Scan {
    /// Number of `:`.
    colons: usize,
    /// A `/`.
    slash: bool,
    /// An ASCII uppercase letter.
    upper: bool,
    /// A byte outside ASCII (the text may hold Unicode whitespace).
    non_ascii: bool,
    /// ASCII whitespace, `,` or `|`.
    separator: bool,
}

impl Scan {
    fn of(text: &str) -> Scan {
        let mut scan = Scan {
            colons: 0,
            slash: false,
            upper: false,
            non_ascii: false,
            separator: false,
        };
        for byte in text.bytes() {
            match byte {
                b':' => scan.colons += 1,
                b'/' => scan.slash = true,
                b'A'..=b'Z' => scan.upper = true,
                b',' | b'|' => scan.separator = true,
                0x80.. => scan.non_ascii = true,
                b if b.is_ascii_whitespace() || b == 0x0b => scan.separator = true,
                _ => {}
            }
        }
        scan
    }
}

/// Splits `host:port` / `[v6]:port` (`colons` is the number of `:` in
/// `text`); a bare IPv6 address has no port.
fn split_port<'t>(
    raw: &str,
    text: &'t str,
    colons: usize,
) -> Result<(&'t str, Option<u16>), Rejection> {
    let bad_port = || Rejection {
        summary: "Invalid port in NO_PROXY entry",
        detail: format!("{raw:?} has a port that is not a number from 1 to 65535."),
    };
    let parse_port = |p: &str| -> Result<u16, Rejection> {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad_port());
        }
        p.parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(bad_port)
    };
    if let Some(rest) = text.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return Err(Rejection {
                summary: "Invalid IPv6 address",
                detail: format!("{raw:?} opens a bracket it does not close."),
            });
        };
        if inside.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(Rejection {
                summary: "Invalid IPv6 address",
                detail: format!("{raw:?}: brackets may only enclose an IPv6 address."),
            });
        }
        return match after {
            "" => Ok((inside, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((inside, Some(parse_port(port)?))),
                None => Err(bad_port()),
            },
        };
    }
    match colons {
        0 => Ok((text, None)),
        1 => {
            let (host, port) = text.split_once(':').unwrap_or((text, ""));
            Ok((host, Some(parse_port(port)?)))
        }
        _ => Ok((text, None)),
    }
}

fn parse_domain(raw: &str, host: &str, port: Option<u16>) -> Result<Parsed, Rejection> {
    let mut notes = Vec::new();
    let (subdomains_only, name) = if let Some(rest) = host.strip_prefix("*.") {
        notes.push(format!(
            "{raw:?} is written `.{}`: Go reads `*.` as `.`, while AKS and TKG reject `*.` and wget, Ruby and Node do not understand it.",
            rest.trim_end_matches('.')
        ));
        (true, rest)
    } else if let Some(rest) = host.strip_prefix('.') {
        (true, rest)
    } else {
        (false, host)
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    let invalid = |why: String| Rejection {
        summary: "Invalid NO_PROXY entry",
        detail: format!("{raw:?} is not a host name, domain, IP address or CIDR block: {why}."),
    };
    if name.contains('*') {
        return Err(invalid(
            "`*` is only understood alone or as a leading `*.`".to_owned(),
        ));
    }
    let ascii = if name.is_ascii() {
        name.to_owned()
    } else {
        let converted = idna::domain_to_ascii(name).map_err(|_| {
            invalid("the internationalised name cannot be converted to punycode".to_owned())
        })?;
        notes.push(format!("{raw:?} is written in punycode as {converted:?}."));
        converted
    };
    validate_labels(&ascii).map_err(invalid)?;
    Ok(Parsed {
        entry: Entry {
            host: Host::Domain {
                name: ascii,
                subdomains_only,
            },
            port,
        },
        notes,
    })
}

fn validate_labels(name: &str) -> Result<(), String> {
    if plainly_valid(name) {
        return Ok(());
    }
    label_errors(name)
}

/// What is wrong with a host name (ASCII, without a trailing dot); `Ok`
/// exactly when [`plainly_valid`] is true. Proxy URLs' hosts follow it too.
pub(crate) fn label_errors(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".to_owned());
    }
    if name.len() > 253 {
        return Err("the name is longer than 253 characters".to_owned());
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Err("it has an empty label".to_owned());
        }
        if label.len() > 63 {
            return Err(format!("the label {label:?} is longer than 63 characters"));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(format!("the label {label:?} starts or ends with `-`"));
        }
        if let Some(c) = label
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(format!("the label {label:?} contains {c:?}"));
        }
    }
    let last = name.rsplit('.').next().unwrap_or(name);
    if last.bytes().all(|b| b.is_ascii_digit()) {
        return Err("it looks like an IP address but is not a valid one".to_owned());
    }
    Ok(())
}

/// One pass over the bytes for the common case, a valid name: labels of 1 to
/// 63 letters, digits, `-` and `_`, none starting or ending with `-`, at most
/// 253 bytes, the last label not all digits. False sends the name through
/// [`label_errors`], which says what is wrong.
fn plainly_valid(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > 253 {
        return false;
    }
    let mut start = 0;
    let mut all_digits = true;
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b'.' => {
                let label = &bytes[start..at];
                if label.is_empty() || label.len() > 63 || label.ends_with(b"-") {
                    return false;
                }
                start = at + 1;
                all_digits = true;
            }
            b'-' if at == start => return false,
            b'0'..=b'9' => {}
            b'a'..=b'z' | b'A'..=b'Z' | b'-' | b'_' => all_digits = false,
            _ => return false,
        }
    }
    let last = &bytes[start..];
    !last.is_empty() && last.len() <= 63 && !last.ends_with(b"-") && !all_digits
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn the_byte_scan_finds_every_separator_url_and_case() {
        for raw in [
            "a b",
            "a\tb",
            "a\u{0b}b",
            "a\u{0c}b",
            "a\nb",
            "a,b",
            "a|b",
            "a\u{a0}b",
            "é\u{2003}b",
            "a\u{3000}b",
            "a\u{85}b",
        ] {
            let rejected = Entry::parse(raw).unwrap_err();
            assert_eq!(
                rejected.summary, "Several entries in one NO_PROXY element",
                "{raw:?}"
            );
        }
        for raw in ["HTTP://x.example", "https://x:443/", "a://b"] {
            let rejected = Entry::parse(raw).unwrap_err();
            assert_eq!(rejected.summary, "URL given as a NO_PROXY entry", "{raw:?}");
        }
        assert_eq!(canon("Ä.Example:8080"), "xn--4ca.example:8080");
        assert_eq!(canon("FD00::/8"), "fd00::/8");
        assert_eq!(canon("[FD00::1]:443"), "[fd00::1]:443");
        assert_eq!(canon("1password.com"), "1password.com");
        assert_eq!(canon("10.0.0.1:80"), "10.0.0.1:80");
        assert_eq!(canon("::ffff:10.0.0.1"), "::ffff:10.0.0.1");
    }

    #[test]
    fn the_one_pass_name_check_accepts_exactly_the_valid_names() {
        // Every name of up to 5 characters over an alphabet that reaches each
        // rule, and the length limits.
        let alphabet = ['a', 'Z', '0', '-', '_', '.', 'é', '*'];
        let mut names = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            names.extend(last.iter().cloned());
        }
        let label = |n: usize| "a".repeat(n);
        names.extend([
            label(63),
            label(64),
            format!("{}.{}", label(63), label(63)),
            format!("{}.{}", label(64), label(2)),
            format!("{}.{}", label(2), label(64)),
            [label(63), label(63), label(63), label(61)].join("."),
            [label(63), label(63), label(63), label(62)].join("."),
        ]);
        for name in &names {
            assert_eq!(plainly_valid(name), label_errors(name).is_ok(), "{name:?}");
        }
    }

    pub(in crate::no_proxy::entry) fn canon(raw: &str) -> String {
        Entry::parse(raw).unwrap().entry.to_string()
    }

    fn rejected(raw: &str) -> &'static str {
        Entry::parse(raw).unwrap_err().summary
    }

    #[test]
    fn normalises_every_form() {
        let cases = [
            (" Registry.Corp.Example. ", "registry.corp.example"),
            (".Corp.Example", ".corp.example"),
            ("*.corp.example", ".corp.example"),
            ("*", "*"),
            ("10.0.0.0/8", "10.0.0.0/8"),
            ("10.1.2.3/32", "10.1.2.3"),
            ("FD00::/8", "fd00::/8"),
            ("fd00:0::1/128", "fd00::1"),
            ("[FD00::1]", "fd00::1"),
            ("fd00:0:0::1", "fd00::1"),
            ("[fd00::1]:8443", "[fd00::1]:8443"),
            ("10.0.0.1:8080", "10.0.0.1:8080"),
            ("example.com:443", "example.com:443"),
            ("bücher.example", "xn--bcher-kva.example"),
            ("_acme.example", "_acme.example"),
        ];
        for (raw, want) in cases {
            assert_eq!(canon(raw), want, "{raw}");
        }
    }

    #[test]
    fn star_dot_and_punycode_leave_a_note() {
        assert_eq!(Entry::parse("*.x.example").unwrap().notes.len(), 1);
        assert_eq!(Entry::parse("bücher.example").unwrap().notes.len(), 1);
        assert!(Entry::parse("x.example").unwrap().notes.is_empty());
    }

    #[test]
    fn rejects_with_a_reason() {
        let cases = [
            ("", "Empty NO_PROXY entry"),
            ("   ", "Empty NO_PROXY entry"),
            ("https://x.example", "URL given as a NO_PROXY entry"),
            (
                "a.example b.example",
                "Several entries in one NO_PROXY element",
            ),
            (
                "a.example,b.example",
                "Several entries in one NO_PROXY element",
            ),
            ("10.0.0.1/8", "CIDR block with host bits set"),
            ("10.0.0.0/33", "Invalid CIDR block"),
            ("x.example/8", "Invalid CIDR block"),
            ("-x.example", "Invalid NO_PROXY entry"),
            ("x..example", "Invalid NO_PROXY entry"),
            ("x.*.example", "Invalid NO_PROXY entry"),
            ("10.0.0.256", "Invalid NO_PROXY entry"),
            ("010.0.0.1", "Invalid NO_PROXY entry"),
            ("x.example:0", "Invalid port in NO_PROXY entry"),
            ("x.example:99999", "Invalid port in NO_PROXY entry"),
            ("x.example:", "Invalid port in NO_PROXY entry"),
            ("[fd00::1", "Invalid IPv6 address"),
            ("[x.example]", "Invalid IPv6 address"),
            ("fd00:::1::2", "Invalid IPv6 address"),
            ("[fd00::1]8080", "Invalid port in NO_PROXY entry"),
        ];
        for (raw, want) in cases {
            assert_eq!(rejected(raw), want, "{raw:?}");
        }
        assert!(Entry::parse("10.0.0.1/8")
            .unwrap_err()
            .detail
            .contains("10.0.0.0/8"));
    }
}
