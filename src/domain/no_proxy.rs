//! NO_PROXY merging: one normalised, de-duplicated list in a documented,
//! deterministic order.
//!
//! Order of sources: installation-wide entries, pod CIDRs, service CIDRs,
//! node CIDRs, the cluster domain, the apiserver host, the loopback defaults
//! (`localhost`, `127.0.0.1`), then extra entries. Within that order the first
//! occurrence of an entry wins.

use ipnet::IpNet;

use super::Finding;

/// One named input list (the field name is the Terraform attribute).
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// Input field name, used in findings.
    pub field: &'a str,
    /// Raw entries.
    pub entries: &'a [String],
}

/// Entries every cluster needs so that local traffic never reaches the proxy.
pub const LOOPBACK_DEFAULTS: [&str; 2] = ["localhost", "127.0.0.1"];

/// Normalises one entry: trimmed, lowercased, trailing dot removed, CIDRs in
/// canonical form. Errors name the field and index and quote the entry.
pub fn normalize(field: &str, index: usize, raw: &str) -> Result<String, Finding> {
    let bad = |summary: &str, detail: String| Finding::error(field, Some(index), summary, detail);
    let entry = raw.trim().to_ascii_lowercase();
    if entry.is_empty() {
        return Err(bad(
            "Empty NO_PROXY entry",
            format!("Entry {index} of {field} is empty."),
        ));
    }
    if entry.contains("://") {
        return Err(bad(
            "URL given as a NO_PROXY entry",
            format!("{raw:?} is a URL; NO_PROXY entries are host names, domains, IP addresses or CIDRs. Use only the host part."),
        ));
    }
    if entry.chars().any(char::is_whitespace) || entry.contains(',') {
        return Err(bad(
            "Several entries in one NO_PROXY element",
            format!("{raw:?} contains a space or comma; give each entry as its own list element."),
        ));
    }
    if entry.contains('/') {
        let net: IpNet = entry.parse().map_err(|_| {
            bad(
                "Invalid CIDR",
                format!("{raw:?} is not a valid CIDR block."),
            )
        })?;
        if net.trunc() != net {
            return Err(bad(
                "CIDR with host bits set",
                format!("{raw:?} has host bits set; the network is {}.", net.trunc()),
            ));
        }
        return Ok(net.to_string());
    }
    if entry.parse::<std::net::IpAddr>().is_ok() || entry == "*" {
        return Ok(entry);
    }
    let host = entry.trim_end_matches('.');
    let labels = host.strip_prefix('.').unwrap_or(host);
    let valid = !labels.is_empty()
        && labels.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if !valid {
        return Err(bad(
            "Invalid NO_PROXY entry",
            format!("{raw:?} is not a host name, domain, IP address or CIDR block."),
        ));
    }
    Ok(host.to_owned())
}

/// Merges the sources in order, normalising every entry and dropping exact
/// duplicates (first occurrence wins). Returns the entries, or every error.
pub fn merge(sources: &[Source<'_>]) -> Result<Vec<String>, Vec<Finding>> {
    let mut merged: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut errors = Vec::new();
    for source in sources {
        for (index, raw) in source.entries.iter().enumerate() {
            match normalize(source.field, index, raw) {
                Ok(entry) => {
                    if seen.insert(entry.clone()) {
                        merged.push(entry);
                    }
                }
                Err(finding) => errors.push(finding),
            }
        }
    }
    if errors.is_empty() {
        Ok(merged)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn normalises_and_dedupes_in_source_order() {
        let a = strings(&[" Registry.Corp.Example ", "10.0.0.0/8", ".corp.example."]);
        let b = strings(&["registry.corp.example", "192.168.0.0/16", "localhost"]);
        let merged = merge(&[
            Source {
                field: "installation",
                entries: &a,
            },
            Source {
                field: "extra",
                entries: &b,
            },
        ])
        .unwrap();
        assert_eq!(
            merged,
            strings(&[
                "registry.corp.example",
                "10.0.0.0/8",
                ".corp.example",
                "192.168.0.0/16",
                "localhost"
            ])
        );
    }

    #[test]
    fn merge_is_idempotent() {
        let a = strings(&["B.example", "a.example", "b.example", "fd00::/8"]);
        let once = merge(&[Source {
            field: "x",
            entries: &a,
        }])
        .unwrap();
        let twice = merge(&[Source {
            field: "x",
            entries: &once,
        }])
        .unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn bad_entries_name_field_and_index() {
        let a = strings(&[
            "ok.example",
            "",
            "https://x.example",
            "a b",
            "10.0.0.1/8",
            "bad_cidr/99",
            "-x.example",
            "10.0.0.0/33",
        ]);
        let errors = merge(&[Source {
            field: "installation",
            entries: &a,
        }])
        .unwrap_err();
        let indexes: Vec<_> = errors.iter().map(|f| f.index.unwrap()).collect();
        assert_eq!(indexes, vec![1, 2, 3, 4, 5, 6, 7]);
        assert!(errors
            .iter()
            .all(|f| f.field == "installation" && f.is_error()));
        assert!(errors[3].detail.contains("10.0.0.0/8"));
    }
}
