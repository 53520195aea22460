//! The import ID of `clusterproxy_profile`, and reading the artifact it names.
//!
//! ```text
//! [<name>=]<kind>[(<fact>;<fact>...)]:<source>
//! <kind>   = the kind of an importer in `importers()`
//! <fact>   = pod_cidrs=<cidr>,<cidr> | service_cidrs=... | node_cidrs=...
//!          | cluster_domain=<domain> | apiserver_host=<host> | apiserver_ip=<ip>
//!          | control_plane_endpoint=<host[:port] or URL> | cloud=aws|azure|gcp|vsphere
//!          | https_through_proxy=true|false
//! <source> = file:<path> | inline:<content> | <path or content>
//! ```
//!
//! The facts are the cluster inputs the renderers get; with them, entries the
//! renderers add back are separated from installation-wide ones. Without a
//! `file:` or `inline:` prefix (the syntax of earlier releases, still read),
//! a source of one line without whitespace or any of `{ [ = :` is a path, and
//! anything else is content. Parsing does no I/O: a `file:` source is
//! handed back as its path ([`Artifact::File`]) for the caller to read, at
//! most [`MAX_INPUT_BYTES`](super::MAX_INPUT_BYTES) (4 MiB) of a regular file
//! (the artifacts crate's `file::read`).
//!
//! An inline artifact that holds a proxy password is refused
//! ([`ImportId::import`]): Terraform prints an import ID in plan output,
//! keeps it in a saved plan (`importing.id`) and writes it to trace logs, so
//! the password would be in all of them. From a `file:` it is read and kept
//! nowhere but as the salted verifier of the private state.

use super::facts::{fact_values, FactValue};
use super::hint::Syntax;
use super::imported::Imported;
use super::input::error;
use super::registry::{importer, kinds};
use crate::no_proxy::typed::Kind;
use crate::no_proxy::{Cloud, Cluster};
use crate::redact::quoted;
use crate::Finding;

/// What an import ID asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportId {
    /// The profile name, when the ID gives one.
    pub name: Option<String>,
    /// The kind, one of [`kinds()`].
    pub kind: String,
    /// The cluster facts (empty when the ID gives none).
    pub facts: Cluster,
    /// Whether an artifact that sends HTTPS direct may become a profile that
    /// sends it through the HTTP proxy.
    pub https_through_proxy: bool,
    /// Where the artifact is.
    pub artifact: Artifact,
}

/// Where an import ID's artifact is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Artifact {
    /// In the file at this path (trimmed, never empty), for the caller to read.
    File(String),
    /// Given in the ID: the artifact's text.
    Inline(String),
}

impl Artifact {
    /// Where the text comes from, for messages: `file "<path>"` or `inline
    /// content (<n> bytes)`; never the content, which may hold a credential.
    pub fn source(&self) -> String {
        match self {
            Self::File(path) => format!("file {path}", path = quoted(path)),
            Self::Inline(content) => format!("inline content ({} bytes)", content.len()),
        }
    }
}

impl ImportId {
    /// The facts in the ID's syntax (`key=value;...`, a list's elements
    /// joined by `,`), in the order of [`FACTS`], `https_through_proxy`
    /// only when true; `None` when there are none. Reads back ([`of_file`])
    /// as the same facts, however the ID wrote them: what the identity of an
    /// imported profile records. Facts hold no credential (a
    /// `control_plane_endpoint` has none).
    pub fn facts_text(&self) -> Option<String> {
        let mut parts: Vec<String> = fact_values(&self.facts)
            .into_iter()
            .map(|(name, value)| match value {
                FactValue::List(items) => format!("{name}={}", items.join(",")),
                FactValue::Single(text) => format!("{name}={text}"),
            })
            .collect();
        if self.https_through_proxy {
            parts.push("https_through_proxy=true".to_owned());
        }
        (!parts.is_empty()).then(|| parts.join(";"))
    }

    /// This ID written as an import ID takes it, for an `import { id = ...
    /// }` block: `<name>=<kind>(<facts>):file:<path>`. `None` for inline
    /// content (never written out: it may hold a credential) and for a name
    /// or path the syntax cannot spell back (the text is checked to parse
    /// back as this ID).
    pub fn text(&self) -> Option<String> {
        let Artifact::File(path) = &self.artifact else {
            return None;
        };
        let name = self
            .name
            .as_ref()
            .map(|n| format!("{n}="))
            .unwrap_or_default();
        let facts = self
            .facts_text()
            .map(|f| format!("({f})"))
            .unwrap_or_default();
        let text = format!("{name}{kind}{facts}:file:{path}", kind = self.kind);
        (parse(&text).as_ref() == Ok(self)).then_some(text)
    }

    /// The profile settings of this ID's artifact, given its `text` (read
    /// from its file, or inline): parsed with the ID's facts, its meaning
    /// kept as the ID's options allow, and named by the ID when it names the
    /// profile. Findings end with the kind and the source (never the
    /// content). An inline artifact that holds a password is refused
    /// without quoting it: an import ID shows in plan output, saved plans
    /// and trace logs.
    pub fn import(&self, text: &str) -> Result<Imported, Vec<Finding>> {
        let mut imported = super::parse_with(&self.kind, text, &self.facts)
            .and_then(|mut imported| {
                if imported.password.is_some() && matches!(self.artifact, Artifact::Inline(_)) {
                    return Err(vec![error(format!(
                        "The inline artifact holds a proxy password, and Terraform shows an import ID in plan output, keeps it in saved plans (`importing.id`) and writes it to trace logs. Save the artifact to a file and import it with `file:`, e.g. `{}:file:./artifact.yaml`: the password is then read from the file and kept nowhere.",
                        self.kind
                    ))]);
                }
                imported
                    .keep_meaning(self.https_through_proxy, &self.kind, &Syntax::Id)
                    .map_err(|f| vec![f])?;
                Ok(imported)
            })
            .map_err(|mut findings| {
                for finding in &mut findings {
                    finding.detail = format!(
                        "{} Import kind `{}`, from {}.",
                        finding.detail,
                        self.kind,
                        self.artifact.source()
                    );
                }
                findings
            })?;
        if let Some(name) = &self.name {
            imported.name.clone_from(name);
            imported.name_from = None;
        }
        Ok(imported)
    }
}

/// The fact and option names an import ID accepts.
pub const FACTS: [&str; 9] = [
    "pod_cidrs",
    "service_cidrs",
    "node_cidrs",
    "cluster_domain",
    "apiserver_host",
    "apiserver_ip",
    "control_plane_endpoint",
    "cloud",
    "https_through_proxy",
];

fn invalid(detail: impl Into<String>) -> Finding {
    Finding::error(None, "Invalid import ID", detail)
}

/// Parses an import ID; a `file:` artifact is named, not read.
pub fn parse(id: &str) -> Result<ImportId, Finding> {
    let syntax = || {
        format!(
            "The import ID must be `[<name>=]<kind>[(<facts>)]:<file:PATH | inline:CONTENT | PATH or CONTENT>` with kind one of {}.",
            kinds().join(", ")
        )
    };
    let (name, rest) = match id.split_once('=') {
        Some((name, rest))
            if !name.is_empty()
                && !name.contains([':', '(', ')'])
                && !name.contains(char::is_whitespace) =>
        {
            (Some(name.to_owned()), rest)
        }
        _ => (None, id),
    };
    let kind_end = rest.find(['(', ':']).ok_or_else(|| invalid(syntax()))?;
    let kind = &rest[..kind_end];
    if importer(kind).is_none() {
        return Err(invalid(syntax()));
    }
    let mut after = &rest[kind_end..];
    let mut facts = Cluster::default();
    let mut https_through_proxy = false;
    if let Some(inner) = after.strip_prefix('(') {
        let close = inner
            .find(')')
            .ok_or_else(|| invalid("The cluster facts after the kind have no closing `)`."))?;
        https_through_proxy = read_facts(&inner[..close], &mut facts)?;
        after = &inner[close + 1..];
    }
    let source = after.strip_prefix(':').ok_or_else(|| invalid(syntax()))?;
    let path = match source.strip_prefix("file:") {
        Some(path) => Some(path),
        None if is_path(source) => Some(source),
        None => None,
    };
    let artifact = match path.map(str::trim) {
        Some("") => return Err(invalid("`file:` needs a path.")),
        Some(path) => Artifact::File(path.to_owned()),
        None => Artifact::Inline(source.strip_prefix("inline:").unwrap_or(source).to_owned()),
    };
    Ok(ImportId {
        name,
        kind: kind.to_owned(),
        facts,
        https_through_proxy,
        artifact,
    })
}

/// What the import ID `<name>=<kind>(<facts>):file:<path>` asks for, from
/// its parts (an import by the identity of a profile imported from a
/// file), checked as [`parse`] checks an ID. The name may be any profile
/// name, even one an ID cannot spell.
pub fn of_file(
    name: &str,
    kind: &str,
    facts: Option<&str>,
    path: &str,
) -> Result<ImportId, Finding> {
    if importer(kind).is_none() {
        return Err(invalid(format!(
            "Unknown import kind {kind:?}; use one of {}.",
            kinds().join(", ")
        )));
    }
    let path = path.trim();
    if path.is_empty() {
        return Err(invalid("The artifact's path is empty."));
    }
    let mut cluster = Cluster::default();
    let https_through_proxy = match facts {
        Some(facts) => read_facts(facts, &mut cluster)?,
        None => false,
    };
    Ok(ImportId {
        name: Some(name.to_owned()),
        kind: kind.to_owned(),
        facts: cluster,
        https_through_proxy,
        artifact: Artifact::File(path.to_owned()),
    })
}

/// The legacy rule: one line, no whitespace, none of `{ [ = :`.
fn is_path(source: &str) -> bool {
    let source = source.trim();
    !source.is_empty()
        && !source.contains(char::is_whitespace)
        && !source.contains(['{', '[', '=', ':'])
}

/// Reads `facts` (`key=value;...`) into `cluster`; returns `https_through_proxy`.
pub(crate) fn read_facts(text: &str, cluster: &mut Cluster) -> Result<bool, Finding> {
    let mut https_through_proxy = false;
    let mut seen = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| {
                invalid(format!(
                    "Cluster fact {part} is not `key=value`.",
                    part = quoted(part)
                ))
            })?;
        if seen.contains(&key) {
            return Err(invalid(format!("Cluster fact `{key}` is given twice.")));
        }
        seen.push(key);
        // Each fact is checked as the renderer input it stands for.
        let check = |kind: Kind, item: &str, at: String| {
            kind.check(item)
                .map_err(|r| invalid(format!("`{key}`{at}: {}", r.detail)))
        };
        let list = |kind: Kind| -> Result<Vec<String>, Finding> {
            let items: Vec<String> = value
                .split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .collect();
            for (index, item) in items.iter().enumerate() {
                check(kind, item, format!(" element {index}"))?;
            }
            Ok(items)
        };
        let single = |kind: Kind| -> Result<Option<String>, Finding> {
            check(kind, value, String::new())?;
            Ok(Some(value.to_owned()))
        };
        match key {
            "pod_cidrs" => cluster.pod_cidrs = list(Kind::Cidr)?,
            "service_cidrs" => cluster.service_cidrs = list(Kind::Cidr)?,
            "node_cidrs" => cluster.node_cidrs = list(Kind::Cidr)?,
            "cluster_domain" => cluster.cluster_domain = single(Kind::Domain)?,
            "apiserver_host" => cluster.apiserver_host = single(Kind::Host)?,
            "apiserver_ip" => cluster.apiserver_ip = single(Kind::Ip)?,
            "control_plane_endpoint" => {
                cluster.control_plane_endpoint = single(Kind::Endpoint)?;
            }
            "cloud" => {
                cluster.cloud = Some(Cloud::from_name(value).ok_or_else(|| {
                    invalid(format!(
                        "`cloud` ({value}) must be one of {}.",
                        Cloud::NAMES.join(", "),
                        value = quoted(value)
                    ))
                })?);
            }
            "https_through_proxy" => {
                https_through_proxy = match value {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(invalid(format!(
                            "`https_through_proxy` ({value}) must be true or false.",
                            value = quoted(value)
                        )))
                    }
                }
            }
            other => {
                return Err(invalid(format!(
                    "Unknown cluster fact {other}; use {}.",
                    FACTS.join(", "),
                    other = quoted(other)
                )))
            }
        }
    }
    Ok(https_through_proxy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cluster fact the import ID reads ([`FACTS`]) is one
    /// [`fact_values`] gives back (to the import note and the identity), in
    /// the same order (`https_through_proxy` aside: it is no cluster input),
    /// so the two hand-written lists cannot drift apart.
    #[test]
    fn every_fact_read_is_written_back() {
        let text = "pod_cidrs=10.0.0.0/16; service_cidrs=10.96.0.0/12; node_cidrs=192.168.0.0/24; \
            cluster_domain=cluster.local; apiserver_host=api.corp.example; apiserver_ip=10.0.0.1; \
            control_plane_endpoint=api.corp.example:6443; cloud=aws; https_through_proxy=true";
        for fact in FACTS {
            assert!(text.contains(&format!("{fact}=")), "{fact}");
        }
        let mut cluster = Cluster::default();
        assert!(read_facts(text, &mut cluster).unwrap());
        let written: Vec<&str> = fact_values(&cluster)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let read: Vec<&str> = FACTS
            .into_iter()
            .filter(|fact| *fact != "https_through_proxy")
            .collect();
        assert_eq!(written, read);
    }

    /// An inline artifact with a password is refused, naming `file:` and
    /// quoting no part of the password; the same artifact from a file (its
    /// text read by the caller) imports, and without a password inline is
    /// fine.
    #[test]
    fn an_inline_artifact_with_a_password_is_refused() {
        let password = "s3cr%40t-pw";
        let dropin = |userinfo: &str| {
            format!("[Service]\nEnvironment=\"HTTP_PROXY=http://{userinfo}proxy.corp.example:3128\"\nEnvironment=\"HTTPS_PROXY=http://{userinfo}proxy.corp.example:3128\"\n")
        };
        let with_password = dropin(&format!("svc:{password}@"));
        for id in [
            format!("systemd:inline:{with_password}"),
            format!("systemd:{with_password}"),
        ] {
            let parsed = parse(&id).unwrap();
            let Artifact::Inline(text) = &parsed.artifact else {
                panic!("{id}")
            };
            let findings = parsed.import(text).unwrap_err();
            let shown = format!("{findings:?}");
            assert!(
                shown.contains("`file:`") && shown.contains("importing.id"),
                "{shown}"
            );
            assert!(!shown.contains("s3cr") && !shown.contains("40t"), "{shown}");
        }
        let from_file = parse("systemd:file:./dropin.conf").unwrap();
        let imported = from_file.import(&with_password).unwrap();
        assert_eq!(imported.password.as_deref(), Some("s3cr@t-pw"));
        let without = dropin("svc@");
        let inline = parse(&format!("systemd:inline:{without}")).unwrap();
        assert_eq!(
            inline.import(&without).unwrap().username.as_deref(),
            Some("svc")
        );
    }

    /// A name given in the ID names the profile, and the note then says
    /// nothing of a name found in the artifact.
    #[test]
    fn a_name_in_the_id_is_the_name_the_note_tells() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/import/capi/eks-anywhere-cluster.yaml"
        ))
        .unwrap();
        let found = parse("capi:file:x").unwrap().import(&text).unwrap();
        assert!(found
            .note()
            .contains(&format!("Named `{}` after", found.name)));
        let named = parse("corp=capi:file:x").unwrap().import(&text).unwrap();
        assert_eq!(named.name, "corp");
        assert!(!named.note().contains("Named `"), "{}", named.note());
    }

    #[test]
    fn names_kinds_facts_and_inline_content() {
        let id = parse("corp=systemd:[Service]").unwrap();
        assert_eq!(
            (id.name.as_deref(), id.kind.as_str(), id.artifact),
            (
                Some("corp"),
                "systemd",
                Artifact::Inline("[Service]".into())
            )
        );
        let id = parse("aks:{\"httpProxy\": \"http://p:1\"}").unwrap();
        assert_eq!((id.name, id.kind.as_str()), (None, "aks"));
        let id = parse(
            "corp=capi(pod_cidrs=10.244.0.0/16, fd00:10:244::/56; service_cidrs=10.96.0.0/12;cluster_domain=k8s.local;apiserver_ip=fd00::1;cloud=aws;https_through_proxy=true):inline:kind: x",
        )
        .unwrap();
        assert_eq!(id.name.as_deref(), Some("corp"));
        assert_eq!(id.facts.pod_cidrs, ["10.244.0.0/16", "fd00:10:244::/56"]);
        assert_eq!(id.facts.service_cidrs, ["10.96.0.0/12"]);
        assert_eq!(id.facts.cluster_domain.as_deref(), Some("k8s.local"));
        assert_eq!(id.facts.apiserver_ip.as_deref(), Some("fd00::1"));
        assert_eq!(id.facts.cloud, Some(Cloud::Aws));
        assert!(id.https_through_proxy);
        assert_eq!(id.artifact, Artifact::Inline("kind: x".into()));
        assert_eq!(id.artifact.source(), "inline content (7 bytes)");
        let id = parse("capi(pod_cidrs=10.0.0.0/8):{}").unwrap();
        assert_eq!(
            (id.name, id.artifact),
            (None, Artifact::Inline("{}".into()))
        );
    }

    #[test]
    fn bad_ids_and_facts_are_errors() {
        for (id, needle) in [
            ("nope:x", "kind one of"),
            ("x", "kind one of"),
            ("capi(pod_cidrs=10.0.0.0/8:x", "closing"),
            ("capi(pods=10.0.0.0/8):x", "Unknown cluster fact"),
            ("capi(pod_cidrs=10.0.0.1/8):{}", "pod_cidrs"),
            ("capi(cloud=mars):{}", "cloud"),
            ("capi(apiserver_ip=host):{}", "not an IP"),
            ("capi(cloud=aws;cloud=gcp):{}", "twice"),
            ("capi(https_through_proxy=yes):{}", "true or false"),
            (
                "capi(control_plane_endpoint=ftp://x y):{}",
                "control_plane_endpoint",
            ),
            // Each fact is checked as the type of the renderer input it
            // stands for, not only as a NO_PROXY entry.
            ("capi(pod_cidrs=10.0.0.0/8, localhost):{}", "CIDR block"),
            ("capi(service_cidrs=[::1]:80):{}", "CIDR block"),
            ("capi(node_cidrs=*):{}", "CIDR block"),
            ("capi(apiserver_host=*):{}", "host name or IP address"),
            (
                "capi(apiserver_host=api.example:6443):{}",
                "host name or IP address",
            ),
            ("capi(cluster_domain=10.0.0.1):{}", "DNS domain"),
            ("capi(apiserver_ip=10.0.0.0/8):{}", "IP address"),
            (
                "capi(control_plane_endpoint=https://api.example/path):{}",
                "control_plane_endpoint",
            ),
        ] {
            let err = parse(id).unwrap_err();
            assert_eq!(err.summary, "Invalid import ID", "{id}");
            assert!(err.detail.contains(needle), "{id}: {}", err.detail);
        }
    }

    /// The facts of any ID, written canonically, read back as the same
    /// facts; with the ID's kind, path and name they ask for what the ID
    /// asks for.
    #[test]
    fn facts_text_reads_back_as_the_same_import() {
        for id in [
            "corp=capi(cloud=aws; pod_cidrs=10.244.0.0/16, fd00:10:244::/56;https_through_proxy=true; control_plane_endpoint=https://api.corp.example:6443):file: /etc/capi.yaml ",
            "systemd:/etc/systemd/system/http-proxy.conf",
            "x=tkg(service_cidrs=10.96.0.0/12;node_cidrs=192.168.0.0/24;cluster_domain=k8s.local;apiserver_host=api.example;apiserver_ip=10.0.0.1;cloud=vsphere;https_through_proxy=false):file:/tmp/t.yaml",
        ] {
            let parsed = parse(id).unwrap();
            let Artifact::File(path) = &parsed.artifact else {
                panic!("{id}")
            };
            let facts = parsed.facts_text();
            let name = parsed.name.clone().unwrap_or_else(|| "n".to_owned());
            let again = of_file(&name, &parsed.kind, facts.as_deref(), path).unwrap();
            assert_eq!(
                again,
                ImportId {
                    name: Some(name),
                    ..parsed.clone()
                },
                "{id}"
            );
            assert_eq!(again.facts_text(), facts, "{id}");
        }
        let parsed =
            parse("capi(cloud=aws;pod_cidrs=10.0.0.0/8,10.1.0.0/16;https_through_proxy=true):x")
                .unwrap();
        assert_eq!(
            parsed.facts_text().as_deref(),
            Some("pod_cidrs=10.0.0.0/8,10.1.0.0/16;cloud=aws;https_through_proxy=true")
        );
        assert_eq!(parse("capi:x").unwrap().facts_text(), None);
        for (kind, facts, path, needle) in [
            ("nope", None, "/x", "Unknown import kind"),
            ("capi", None, " ", "path is empty"),
            ("capi", Some("cloud=mars"), "/x", "cloud"),
        ] {
            let err = of_file("n", kind, facts, path).unwrap_err();
            assert_eq!(err.summary, "Invalid import ID");
            assert!(err.detail.contains(needle), "{}", err.detail);
        }
    }

    /// An ID from a file is written back as an ID that parses as the same
    /// import; inline content and names the syntax cannot spell give none.
    #[test]
    fn text_parses_back_as_the_same_import() {
        for id in [
            "corp=capi(cloud=aws; pod_cidrs=10.244.0.0/16, fd00:10:244::/56;https_through_proxy=true; control_plane_endpoint=https://api.corp.example:6443):file: /etc/capi.yaml ",
            "systemd:/etc/systemd/system/http-proxy.conf",
            "a/b=rke2:file:clusters/a (copy)/rke2-server",
        ] {
            let parsed = parse(id).unwrap();
            let text = parsed.text().expect(id);
            assert_eq!(parse(&text), Ok(parsed), "{id} -> {text}");
        }
        assert_eq!(parse("systemd:inline:[Service]").unwrap().text(), None);
        for name in ["a=b", "x:y", "has space", "(p)"] {
            let mut id = parse("capi:file:/x").unwrap();
            id.name = Some(name.to_owned());
            assert_eq!(id.text(), None, "{name}");
        }
    }

    /// A path, with `file:` or in the legacy form, is handed back trimmed
    /// and unread; `file:` without one is an error.
    #[test]
    fn files_are_named_not_read() {
        for id in [
            "systemd:/etc/systemd/system/http-proxy.conf",
            "systemd:file: /etc/systemd/system/a b.conf ",
            "systemd:/nonexistent/http-proxy.conf",
        ] {
            let artifact = parse(id).unwrap().artifact;
            let Artifact::File(path) = &artifact else {
                panic!("{id}: {artifact:?}")
            };
            assert!(id.contains(path.as_str()) && path.trim() == path, "{id}");
            assert_eq!(artifact.source(), format!("file {path:?}"));
        }
        let err = parse("systemd:file: ").unwrap_err();
        assert_eq!(
            (err.summary.as_str(), err.detail.as_str()),
            ("Invalid import ID", "`file:` needs a path.")
        );
    }
}
