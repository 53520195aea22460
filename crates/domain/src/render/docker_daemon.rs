//! Docker Engine: the daemon's proxies in `daemon.json`, merged into the
//! rest of the daemon's settings.
//!
//! Docker Engine 23.0 and later read the daemon's own proxies (image pulls,
//! registry logins; not the containers') from the `proxies` object of
//! `daemon.json`: `http-proxy`, `https-proxy` and `no-proxy`, each a string
//! (moby/moby `daemon/config/config.go`, `type Proxies`, the same json tags
//! at v23.0.0 and v28.5.2). `dockerd` puts them into its environment
//! (`cmd/dockerd/daemon.go`, `configureProxyEnv`, v28.5.2), where Go's
//! `net/http` reads them: NO_PROXY in the Go dialect, the merged list as it
//! is. The file has no place for a CA: the daemon trusts the OS store (and
//! `/etc/docker/certs.d`).
//!
//! How `dockerd` reads the file (`getConflictFreeConfiguration`,
//! `configValuesSet` and `findConfigurationConflicts` in
//! `daemon/config/config.go`): it flattens each nested object's keys and
//! refuses keys that match no flag ("the following directives don't match
//! any configuration option"), which is why a daemon older than 23.0 (no
//! `--http-proxy` flag: v20.10.27 has no `Proxies`) refuses the whole file;
//! then `encoding/json` fills the settings, matching keys without regard to
//! case, so that `"Proxies"` is the `proxies` object too, and a top-level
//! `http-proxy` passes the check but sets nothing.

use super::{Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering};
use crate::{Finding, InputField};

/// The option `daemon_settings`: the rest of `daemon.json`.
pub const DAEMON_SETTINGS: InputField = InputField::Option("daemon_settings");

/// Docker Engine: the daemon settings the proxies are merged into, as JSON
/// text (`None`: a `daemon.json` of the proxies alone).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DockerDaemon {
    /// The rest of `daemon.json`: a JSON object without `proxies`.
    pub settings: Option<String>,
}

/// The keys of the `proxies` object (`Proxies`' json tags), in the order
/// they are written.
pub const PROXY_KEYS: [&str; 3] = ["http-proxy", "https-proxy", "no-proxy"];

impl Renderer for DockerDaemon {
    /// `daemon.json`, pretty-printed, the given settings in their order
    /// and `proxies` last.
    type Output = String;

    const MODULE: &'static str = "docker_daemon";

    const OPTIONS: &'static [InputField] = &[DAEMON_SETTINGS];

    fn sample() -> Self {
        DockerDaemon {
            settings: Some(r#"{"log-driver":"json-file","debug":true}"#.to_owned()),
        }
    }

    fn render(&self, input: Input) -> Rendering<String> {
        let Input {
            settings, secrets, ..
        } = input;
        let mut findings = Vec::new();
        if settings.trusted_ca.is_some() {
            findings.push(Finding::error(
                InputField::TrustedCa,
                "daemon.json has no place for a proxy CA",
                "Docker Engine trusts the OS trust store for its proxy and registries: add the CA there (or under /etc/docker/certs.d/<registry>/ca.crt) and leave `trusted_ca` unset here.",
            ));
        }
        let given = match &self.settings {
            Some(text) => match check_settings(text) {
                Ok(given) => Some(given),
                Err(finding) => {
                    findings.push(finding);
                    None
                }
            },
            None => None,
        };
        if !findings.is_empty() {
            return Err(findings);
        }
        let mut proxies = serde_json::Map::new();
        for (key, url) in [
            (PROXY_KEYS[0], &settings.http_proxy),
            (PROXY_KEYS[1], &settings.https_proxy),
        ] {
            if let Some(url) = url {
                proxies.insert(key.into(), ProxySettings::url(url, secrets).into());
            }
        }
        proxies.insert(PROXY_KEYS[2].into(), settings.no_proxy_value().into());
        let member = format!("\"proxies\":{}", serde_json::Value::Object(proxies));
        let compact = match given {
            Some(Given { text, empty: false }) => {
                format!("{},{member}}}", &text[..text.len() - 1])
            }
            _ => format!("{{{member}}}"),
        };
        Ok(Rendered::new(pretty(&compact)))
    }

    /// The node holds `/etc/docker/daemon.json`, which the `docker` import
    /// kind reads back; it has no place for a CA.
    fn held(&self, output: &String) -> Held {
        Held::Files(vec![HeldFile::new(
            "daemon.json",
            "docker",
            output.clone(),
            false,
        )])
    }
}

/// The given settings, checked: their text without surrounding blanks, and
/// whether the object is empty.
struct Given<'a> {
    text: &'a str,
    empty: bool,
}

/// Checks the given settings: a JSON object with no `proxies` key (in any
/// case, as `encoding/json` matches it) and none of the `proxies` keys at
/// the top, where Docker accepts and ignores them. The text is never
/// quoted: it may hold credentials of its own.
fn check_settings(text: &str) -> Result<Given<'_>, Finding> {
    let at = DAEMON_SETTINGS;
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Finding::error(
            at,
            "Daemon settings are not JSON",
            format!(
                "`daemon_settings` is not valid JSON (line {}, column {}); give the rest of daemon.json as `jsonencode({{...}})`.",
                e.line(),
                e.column()
            ),
        )
    })?;
    let Some(object) = value.as_object() else {
        return Err(Finding::error(
            at,
            "Daemon settings are not a JSON object",
            "daemon.json is one JSON object: give `daemon_settings` as `jsonencode({...})` of a map.",
        ));
    };
    if let Some(key) = object.keys().find(|k| k.eq_ignore_ascii_case("proxies")) {
        return Err(Finding::error(
            at,
            "Daemon settings already hold proxies",
            format!(
                "`daemon_settings` has a `{key}` key (dockerd reads keys without regard to case), which this data source writes from the proxy settings: remove it from `daemon_settings` and give the proxies as `http_proxy`/`https_proxy`/`profile`."
            ),
        ));
    }
    if let Some(key) = object.keys().find(|k| PROXY_KEYS.contains(&k.as_str())) {
        return Err(Finding::error(
            at,
            "Proxy key outside `proxies`",
            format!(
                "`daemon_settings` has a top-level `{key}` key: dockerd accepts it and sets no proxy with it (it reads the proxies from the `proxies` object only). Remove it; this data source writes `proxies`."
            ),
        ));
    }
    Ok(Given {
        text: text.trim(),
        empty: object.is_empty(),
    })
}

/// Valid JSON `compact` (any blanks between tokens) pretty-printed: two
/// spaces per level, `": "` after a key, empty objects and arrays as `{}`
/// and `[]`; strings and numbers byte for byte, members in their order.
fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push('"');
                while let Some(c) = chars.next() {
                    out.push(c);
                    match c {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '{' | '[' => {
                out.push(c);
                while chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth -= 1;
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_ascii_whitespace() => {}
            c => out.push(c),
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::Cluster;
    use crate::render::tests::{golden, settings, NASTY_PASSWORD};
    use crate::render::Secrets;
    use crate::Location;

    /// The `proxies` object as moby/moby `daemon/config/config.go` (v23.0.0
    /// to v28.5.2) declares it: three strings, under these json tags, and
    /// nothing else.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Proxies {
        #[serde(rename = "http-proxy")]
        http: Option<String>,
        #[serde(rename = "https-proxy")]
        https: Option<String>,
        #[serde(rename = "no-proxy")]
        no: Option<String>,
    }

    fn render(options: &DockerDaemon, secrets: Secrets) -> Rendering<String> {
        let settings = settings();
        let cluster = Cluster::default();
        options.render(Input {
            settings: &settings,
            cluster: &cluster,
            secrets,
        })
    }

    fn with(text: &str) -> DockerDaemon {
        DockerDaemon {
            settings: Some(text.to_owned()),
        }
    }

    /// The given settings keep their order (here not sorted) and their
    /// numbers as written; `proxies` comes last with Docker's keys and the
    /// merged list as one Go-dialect string.
    #[test]
    fn merges_the_proxies_into_the_given_settings() {
        let options = with(
            r#"{"log-driver":"json-file","log-opts":{"max-size":"10m","max-file":"3"},"debug":true,"default-address-pools":[{"base":"172.30.0.0/16","size":24}],"mtu":1.50e3,"features":{}}"#,
        );
        let out = render(&options, Secrets::Include).unwrap().output;
        golden("docker_daemon/daemon.json", &out);
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        let keys: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("  \""))
            .map(|l| l.trim().split('"').nth(1).unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "log-driver",
                "log-opts",
                "debug",
                "default-address-pools",
                "mtu",
                "features",
                "proxies"
            ]
        );
        assert!(out.contains("\"max-size\": \"10m\",\n    \"max-file\": \"3\""));
        assert!(out.contains("\"mtu\": 1.50e3"), "{out}");
        assert!(out.contains("\"features\": {}"), "{out}");
        let proxies: Proxies = serde_json::from_value(parsed["proxies"].clone()).unwrap();
        assert_eq!(
            proxies.no.as_deref(),
            Some(settings().no_proxy_value().as_str())
        );
        assert!(proxies.http.unwrap().contains("p%2540ss"));
        let redacted = render(&options, Secrets::Redact).unwrap().output;
        assert!(!redacted.contains("p%2540ss") && !redacted.contains(NASTY_PASSWORD));
        assert_eq!(redacted.lines().count(), out.lines().count(), "{redacted}");
    }

    /// Without given settings, and with an empty object, the file holds
    /// the proxies alone; a proxy not set is left out.
    #[test]
    fn renders_the_proxies_alone() {
        let alone = render(&DockerDaemon::default(), Secrets::Redact)
            .unwrap()
            .output;
        golden("docker_daemon/proxies-only.json", &alone);
        let empty = render(&with(" { } \n"), Secrets::Redact).unwrap().output;
        assert_eq!(alone, empty);
        let mut https_only = settings();
        https_only.http_proxy = None;
        let cluster = Cluster::default();
        let out = DockerDaemon::default()
            .render(Input {
                settings: &https_only,
                cluster: &cluster,
                secrets: Secrets::Redact,
            })
            .unwrap()
            .output;
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        let proxies: Proxies = serde_json::from_value(parsed["proxies"].clone()).unwrap();
        assert!(proxies.http.is_none() && proxies.https.is_some());
    }

    /// Settings that are no JSON object, that hold `proxies` (in any case)
    /// or a proxy key at the top are errors on `daemon_settings`, never
    /// quoting the text; a CA is an error on `trusted_ca`, and both come
    /// together.
    #[test]
    fn refuses_what_docker_would_not_read_as_meant() {
        let at = Some(Location::from(DAEMON_SETTINGS));
        for (text, summary) in [
            (r#"{"debug": tru, "x": "s3cr3t"}"#, "not JSON"),
            (r#"["s3cr3t"]"#, "not a JSON object"),
            (r#""s3cr3t""#, "not a JSON object"),
            (
                r#"{"proxies": {"http-proxy": "http://s3cr3t@p:1"}}"#,
                "already hold proxies",
            ),
            (r#"{"Proxies": {}}"#, "already hold proxies"),
            (
                r#"{"https-proxy": "http://s3cr3t@p:1"}"#,
                "outside `proxies`",
            ),
        ] {
            let findings = render(&with(text), Secrets::Include).unwrap_err();
            assert_eq!(findings.len(), 1, "{text}: {findings:?}");
            assert_eq!(findings[0].location, at, "{text}");
            assert!(
                findings[0].summary.contains(summary),
                "{text}: {findings:?}"
            );
            assert!(!findings[0].detail.contains("s3cr3t"), "{text}");
        }
        let mut with_ca = settings();
        with_ca.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let cluster = Cluster::default();
        let findings = with("[]")
            .render(Input {
                settings: &with_ca,
                cluster: &cluster,
                secrets: Secrets::Include,
            })
            .unwrap_err();
        let locations: Vec<_> = findings.iter().map(|f| f.location).collect();
        assert_eq!(locations, [InputField::TrustedCa.into(), at]);
    }

    /// The pretty-printer keeps strings byte for byte, escapes and
    /// brackets inside them included, and nests arrays in objects.
    #[test]
    fn pretty_printing_keeps_strings_and_nesting() {
        let text = r#"{"a":"x\"{[,:]}\\","b":[1,{"c":[]}]}"#;
        let out = pretty(text);
        assert_eq!(
            out,
            "{\n  \"a\": \"x\\\"{[,:]}\\\\\",\n  \"b\": [\n    1,\n    {\n      \"c\": []\n    }\n  ]\n}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
    }
}
