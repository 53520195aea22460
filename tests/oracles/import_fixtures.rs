//! The import corpus: fixtures in the shapes today's platforms produce (each
//! cites its upstream source in its header), one or more per kind and per
//! class of problem, under `tests/fixtures/import/<kind>/` (see
//! `import_corpus`). For each: its expected import, generated beside it
//! (what is kept, what is left out with the reason, the warnings and the
//! note), and three properties:
//! - the imported settings make a valid profile, and rendering that profile
//!   with the same cluster facts and importing the result gives it back;
//! - nothing the artifact sends direct goes through the proxy after import,
//!   per client, decided by the real clients (tests/oracle);
//! - bad artifacts are a diagnostic, never a panic.

use crate::oracle;

#[path = "../support/import_corpus.rs"]
mod import_corpus;

use clusterproxy::domain::import::{self, id, Imported, Syntax};
use clusterproxy::domain::no_proxy::dialect::Decision;
use clusterproxy::domain::no_proxy::{self, Cluster, MergeOptions, Source};
use clusterproxy::domain::profile::{Profile, ProfileInput};
use clusterproxy::domain::render::tkg::Tkg;
use clusterproxy::domain::render::{capi, systemd, Input, ProxySettings, Renderer, Secrets};
use clusterproxy::domain::InputField;
use import_corpus::{fixtures, Fixture, EXPECTED_SUFFIX, FACTS_SUFFIX};
use oracle::{decide, Case};
use serde_json::{json, Value};

/// Imports through the import ID, as `terraform import` does (the provider
/// reads the file it names), keeping what the artifact means: an artifact
/// that sends HTTPS direct stays so here ([`Fixture::import`] is the
/// provider's whole import, which refuses it without the option).
fn import_id(kind: &str, facts: &str, file: &str) -> Result<Imported, String> {
    let fixture = Fixture {
        kind: kind.to_owned(),
        file: file.to_owned(),
    };
    let id = id::parse(&fixture.import_id(facts)).map_err(|f| f.detail)?;
    let text = std::fs::read_to_string(fixture.path()).map_err(|e| e.to_string())?;
    import::parse_with(&id.kind, &text, &id.facts).map_err(|f| {
        f.iter()
            .map(|f| f.detail.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

const PROXY: &str = "http://proxy.corp.example:3128";

/// Every import of the corpus (see [`import_corpus`]): each fixture of each
/// registered kind with each of its facts, and what the provider imports.
fn corpus() -> Vec<(Fixture, String, Result<Imported, Vec<String>>)> {
    import::kinds()
        .iter()
        .flat_map(|kind| fixtures(kind))
        .flat_map(|fixture| {
            fixture.facts().into_iter().map(move |facts| {
                let imported = fixture.import(&facts);
                (fixture.clone(), facts, imported)
            })
        })
        .collect()
}

/// The imports of the corpus that give a profile.
fn profiles() -> Vec<(Fixture, Imported)> {
    corpus()
        .into_iter()
        .filter_map(|(fixture, _, imported)| Some((fixture, imported.ok()?)))
        .collect()
}

/// What `make generate` writes as the expected import of `fixture`, one
/// entry per facts: the settings, what was left out and why, the warnings
/// and the note, or the refusal (the corpus' path written relative to the
/// repository).
fn expected_import(fixture: &Fixture) -> String {
    let root = import_corpus::root().display().to_string();
    let entries: Vec<Value> = fixture
        .facts()
        .iter()
        .map(|facts| match fixture.import(facts) {
            Ok(i) => json!({
                "facts": facts,
                "name": i.name,
                "name_from": i.name_from,
                "http_proxy": i.http_proxy,
                "https_proxy": i.https_proxy,
                "https_direct": i.https_direct,
                "username": i.username,
                "password": i.password,
                "no_proxy": i.no_proxy,
                "dropped": i.dropped.iter().map(|d| json!({"entry": d.entry, "reason": d.reason})).collect::<Vec<_>>(),
                "trusted_ca": i.trusted_ca.is_some(),
                "platform": i.platform,
                "cluster": {
                    "pod_cidrs": i.facts.pod_cidrs,
                    "service_cidrs": i.facts.service_cidrs,
                    "node_cidrs": i.facts.node_cidrs,
                    "cluster_domain": i.facts.cluster_domain,
                    "apiserver_host": i.facts.apiserver_host,
                    "apiserver_ip": i.facts.apiserver_ip,
                    "control_plane_endpoint": i.facts.control_plane_endpoint,
                    "cloud": i.facts.cloud.map(|c| format!("{c:?}")),
                },
                "warnings": i.warnings,
                "note": i.note().lines().collect::<Vec<_>>(),
            }),
            Err(refusal) => json!({
                "facts": facts,
                "refused": refusal
                    .iter()
                    .map(|detail| detail.replace(&root, "tests/fixtures/import"))
                    .collect::<Vec<_>>(),
            }),
        })
        .collect();
    format!("{}\n", serde_json::to_string_pretty(&entries).unwrap())
}

/// What the note of an import must say: each entry left out with its
/// reason, and never the password.
fn check_note(label: &str, i: &Imported) {
    let note = i.note();
    for d in &i.dropped {
        assert!(!d.reason.is_empty(), "{label}: {d:?}");
        assert!(
            note.contains(&format!("  - {}: {}", d.entry, d.reason)),
            "{label}: {note}"
        );
    }
    if let Some(password) = &i.password {
        assert!(
            !note.contains(password.as_str()),
            "{label}: the note shows the password"
        );
    }
}

/// Each fixture imports as its generated `<file>.expected.json` says (a new
/// fixture's expectation is reviewed as a diff of `make generate`, which
/// writes them with `UPDATE_GOLDEN=1`); no expected or `.facts` file is
/// left without its fixture.
#[test]
fn corpus_imports_as_expected() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut stale = Vec::new();
    for kind in import::kinds() {
        for fixture in fixtures(kind) {
            let path = import_corpus::root()
                .join(kind)
                .join(format!("{}{EXPECTED_SUFFIX}", fixture.file));
            let expected = expected_import(&fixture);
            if update {
                std::fs::write(&path, &expected).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(expected.as_str()) {
                stale.push(format!("{kind}/{}{EXPECTED_SUFFIX}", fixture.file));
            }
        }
        for entry in std::fs::read_dir(import_corpus::root().join(kind))
            .into_iter()
            .flatten()
        {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let Some(file) = name
                .strip_suffix(EXPECTED_SUFFIX)
                .or_else(|| name.strip_suffix(FACTS_SUFFIX))
            else {
                continue;
            };
            assert!(
                import_corpus::root().join(kind).join(file).is_file(),
                "tests/fixtures/import/{kind}/{name} belongs to no fixture: remove it"
            );
        }
    }
    assert!(
        stale.is_empty(),
        "the import of these fixtures differs from their expected file: {stale:#?}; review the diff of `make generate`"
    );
    for (fixture, i) in profiles() {
        check_note(&format!("{}/{}", fixture.kind, fixture.file), &i);
    }
}

/// `kind/file` imported with `facts`, as [`import_id`] does, with a note
/// that says what it must ([`check_note`]).
fn check(kind: &str, file: &str, facts: &str) -> Imported {
    let label = format!("{kind}:{file} ({facts})");
    let i = import_id(kind, facts, file).unwrap_or_else(|e| panic!("{label}: {e}"));
    check_note(&label, &i);
    i
}

/// `kind/file` imported without facts ([`check`]).
fn corpus_entry(kind: &str, file: &str) -> Imported {
    check(kind, file, "")
}

#[test]
fn each_class_has_its_own_fixture() {
    // `local` covers every *.local host: kept, not "covered by the cluster domain".
    let gs = corpus_entry("giantswarm", "cluster-aws-values.yaml");
    assert!(gs.no_proxy.contains(&"local".to_owned()));
    // The current chart's keys, and `enabled: false` is a diagnostic.
    let off = import_id("giantswarm", "", "proxy-disabled.yaml").unwrap_err();
    assert!(off.contains("enabled` is false"), "{off}");
    // CAPI: the Cluster's clusterNetwork separates the CIDRs, and names the profile.
    let tkg = corpus_entry("capi", "tkg-cluster-and-kcp.yaml");
    assert_eq!(tkg.facts.pod_cidrs, ["100.96.0.0/11"]);
    assert_eq!(
        tkg.facts.control_plane_endpoint.as_deref(),
        Some("10.10.0.5")
    );
    // The infrastructure cluster's endpoint is the control-plane endpoint.
    let nutanix = corpus_entry("capi", "eks-anywhere-nutanix-capi.yaml");
    assert_eq!(
        nutanix.facts.control_plane_endpoint.as_deref(),
        Some("10.20.30.42")
    );
    // A template without its Cluster: the note says where the name comes from.
    for (file, how) in [
        ("eks-anywhere-md-template.yaml", "Named `test` after the name of KubeadmConfigTemplate `test-md-0-template-1234567890000`, by EKS Anywhere's `<cluster>-md-0-template-<milliseconds>` naming"),
        ("eks-anywhere-workers.yaml", "Named `eksa-edge` after `spec.clusterName` of MachineDeployment `eksa-edge-workers`, which uses KubeadmConfigTemplate `eksa-edge-workers-template-1767225600000`"),
        ("tkg-cluster-and-kcp.yaml", "Named `tkg-wc1` after the Cluster document."),
    ] {
        let note = corpus_entry("capi", file).note();
        assert!(note.contains(how), "{file}: {note}");
    }
    // An HTTP-only drop-in keeps its meaning unless the user accepts the change.
    let mut http_only = corpus_entry("systemd", "http-only.conf");
    assert!(http_only.https_direct);
    let refused = http_only
        .clone()
        .keep_meaning(false, "systemd", &Syntax::Id)
        .unwrap_err();
    assert!(
        refused.detail.contains("HTTPS direct"),
        "{}",
        refused.detail
    );
    http_only
        .keep_meaning(true, "systemd", &Syntax::Id)
        .unwrap();
    assert!(http_only
        .note()
        .contains("the profile sends it through http://proxy.corp.example:3128"));
    // Invalid percent-encoding is refused, never read as U+FFFD.
    let bad = import_id("systemd", "", "bad-percent.conf").unwrap_err();
    assert!(
        bad.contains("not UTF-8") && !bad.contains('\u{fffd}'),
        "{bad}"
    );
}

/// The profile a user writes for the imported settings.
fn profile(i: &Imported) -> Profile {
    Profile::new(&ProfileInput {
        http_proxy: i.http_proxy.clone(),
        https_proxy: i.https_proxy.clone(),
        username: i.username.clone(),
        password: i.password.clone(),
        no_proxy: i.no_proxy.clone(),
        trusted_ca: i.trusted_ca.clone(),
    })
    .unwrap_or_else(|f| panic!("{}: imported settings make no profile: {f:?}", i.name))
}

/// The merged list the renderers write for the profile and the facts.
fn rendered_no_proxy(no_proxy: &[String], facts: &Cluster, platform: &[String]) -> Vec<String> {
    let cluster = Cluster {
        installation: no_proxy.to_vec(),
        ..facts.clone()
    };
    let mut sources = cluster.sources().unwrap();
    sources.push(Source::list(
        InputField::Platform("platform"),
        platform.to_vec(),
    ));
    no_proxy::merge(&sources, &MergeOptions::default())
        .unwrap()
        .list
}

/// Renders the imported profile as artifacts of its kind, the way the
/// renderer data sources do, and imports them back with the same facts.
#[test]
fn render_then_import_gives_the_same_profile() {
    // Profiles with both proxies: each of these artifacts (TKG's variables
    // among them) can hold them; an HTTPS-only artifact (Bottlerocket) is
    // checked by the domain's `every_renderer_imports_back`.
    for (fixture, i) in profiles()
        .into_iter()
        .filter(|(_, i)| i.http_proxy.is_some() && i.https_proxy.is_some())
    {
        let p = profile(&i);
        let settings = ProxySettings {
            http_proxy: p.http_proxy.clone(),
            https_proxy: p.https_proxy.clone(),
            no_proxy: rendered_no_proxy(&p.no_proxy, &i.facts, &[]),
            trusted_ca: p.trusted_ca.clone(),
            revision: None,
        };
        let dropin = systemd::dropin(&settings, "containerd.service", Secrets::Include).content;
        let kubeadm = capi::Capi {
            units: vec!["containerd.service".to_owned()],
            os: clusterproxy::domain::render::trust::OsFamily::Debian,
            base64_content: true,
            cluster_name: None,
            namespace: String::new(),
        }
        .render(Input {
            settings: &settings,
            cluster: &i.facts,
            secrets: Secrets::Include,
        })
        .unwrap()
        .output
        .kubeadm
        .to_yaml();
        let kcp = format!(
            "apiVersion: controlplane.cluster.x-k8s.io/v1beta1\nkind: KubeadmControlPlane\nmetadata:\n  name: x\nspec:\n  kubeadmConfigSpec:\n{}",
            kubeadm.lines().map(|l| format!("    {l}\n")).collect::<String>()
        );
        let values = capi::cluster_values(&settings, Secrets::Include);
        let tkg_config = Tkg::default()
            .render(Input {
                settings: &settings,
                cluster: &i.facts,
                secrets: Secrets::Include,
            })
            .unwrap_or_else(|f| panic!("{}: {f:?}", fixture.file))
            .output
            .to_yaml();
        for (kind, text) in [
            ("systemd", dropin),
            ("capi", kcp),
            ("giantswarm", values),
            ("tkg", tkg_config),
        ] {
            let back = import::parse_with(kind, &text, &i.facts)
                .unwrap_or_else(|f| panic!("{} as {kind}: {f:?}", fixture.file));
            let q = profile(&back);
            let label = format!("{} rendered as {kind}", fixture.file);
            assert_eq!(q.http_proxy, p.http_proxy, "{label}");
            assert_eq!(q.https_proxy, p.https_proxy, "{label}");
            assert_eq!(q.no_proxy, p.no_proxy, "{label}: {:?}", back.dropped);
            assert_eq!(
                (back.username.as_deref(), back.password.as_deref()),
                (i.username.as_deref(), i.password.as_deref()),
                "{label}"
            );
            // Of these artifacts only TKG's variables carry the CA
            // (TKG_PROXY_CA_CERT); the others deliver it as a separate file.
            if kind == "tkg" || p.trusted_ca.is_none() {
                assert_eq!(q.fingerprint, p.fingerprint, "{label}");
            }
        }
    }
}

/// URLs that probe an entry: the host itself, a subdomain, an address in a block.
fn probes(entry: &str) -> Vec<String> {
    let parsed = no_proxy::Entry::parse(entry).unwrap().entry;
    let text = parsed.to_string();
    let (host, port) = match text.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') || h.ends_with(']') => (h.to_owned(), Some(p.to_owned())),
        _ => (text.clone(), None),
    };
    let with_port = |h: &str| match &port {
        Some(p) => vec![format!("http://{h}:{p}/"), format!("http://{h}/")],
        None => vec![format!("http://{h}/"), format!("https://{h}/")],
    };
    if let Ok(net) = host.parse::<ipnet::IpNet>() {
        let inside = net.hosts().nth(1).unwrap_or(net.addr());
        return match inside {
            std::net::IpAddr::V6(a) => with_port(&format!("[{a}]")),
            std::net::IpAddr::V4(a) => with_port(&a.to_string()),
        };
    }
    if let Ok(std::net::IpAddr::V6(a)) = host.trim_matches(['[', ']']).parse() {
        return with_port(&format!("[{a}]"));
    }
    let bare = host.trim_start_matches('.');
    let mut out = with_port(bare);
    out.extend(with_port(&format!("a.{bare}")));
    out
}

/// Per client, with the real clients: every URL the artifact's own NO_PROXY
/// sends direct is still sent direct by what the renderers write from the
/// imported profile and the same facts (plus what the platform adds itself).
#[test]
fn import_never_sends_through_the_proxy_what_the_artifact_sends_direct() {
    let mut questions: Vec<(String, String, String, String)> = Vec::new();
    for (fixture, i) in profiles() {
        let before: Vec<String> = i
            .no_proxy
            .iter()
            .chain(i.dropped.iter().map(|d| &d.entry))
            .cloned()
            .collect();
        let after = rendered_no_proxy(&profile(&i).no_proxy, &i.facts, &i.platform);
        let mut urls: Vec<String> = before.iter().flat_map(|e| probes(e)).collect();
        urls.extend(
            ["http://printer.local/", "https://kubernetes.default.svc/"].map(str::to_owned),
        );
        urls.sort();
        urls.dedup();
        for url in urls {
            questions.push((
                fixture.file.to_owned(),
                before.join(","),
                after.join(","),
                url,
            ));
        }
    }
    for dialect in oracle::checked() {
        let setting = |list: &str| -> String {
            if dialect.client().traits().reads_no_proxy {
                return list.to_owned();
            }
            let entries: Vec<String> = list.split(',').map(str::to_owned).collect();
            let merged = no_proxy::merge(
                &[Source::list(InputField::Defaults, entries)],
                &MergeOptions::default(),
            )
            .unwrap();
            no_proxy::setting_for(dialect, &merged)
        };
        let cases: Vec<Case> = questions
            .iter()
            .flat_map(|(_, before, after, url)| {
                [setting(before), setting(after)].map(|s| Case {
                    setting: s,
                    url: url.clone(),
                })
            })
            .collect();
        let real = decide(dialect, &cases);
        let widened: Vec<String> = questions
            .iter()
            .zip(real.chunks(2))
            .filter(|(_, d)| d[0] == Decision::Direct && d[1] == Decision::Proxy)
            .map(|((file, before, after, url), _)| {
                format!("{dialect} {file}: {url} direct with {before:?}, proxied with {after:?}")
            })
            .collect();
        assert!(widened.is_empty(), "{}", widened.join("\n"));
    }
}

/// The fleet scan tells the kind of every fixture that imports: each
/// importer recognises the artifacts it reads (`Importer::recognises`), so
/// a new importer's fixtures check its answer.
#[test]
fn the_fleet_scan_tells_every_fixture_kind() {
    let mut wrong = Vec::new();
    for (fixture, _) in profiles() {
        let text = std::fs::read_to_string(fixture.path()).unwrap();
        let told = import::fleet::kind_of(&fixture.file, &text);
        if told != Some(fixture.kind.as_str()) {
            wrong.push(format!("{}/{}: told {told:?}", fixture.kind, fixture.file));
        }
    }
    assert!(
        wrong.is_empty(),
        "fixtures the fleet scan does not tell as their kind (see the importer's `recognises`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn unreadable_input_is_an_error() {
    for (kind, text) in [
        ("aks", "{}"),
        ("aks", "not json: ["),
        ("tkg", "TKG_HTTP_PROXY_ENABLED: false"),
        ("tkg", "CLUSTER_NAME: x"),
        ("capi", "kind: Cluster"),
        ("systemd", "[Service]\nExecStart=/bin/true"),
        ("giantswarm", "kind: Secret\nmetadata:\n  name: x\n"),
    ] {
        assert!(import::parse(kind, text).is_err(), "{kind}: {text:?}");
    }
}

/// Hostile sizes and nesting are refused before the parser runs, in bounded
/// CPU time (the issue measured 78 s for 100k-deep `{` and 80 s for a 500 KB
/// Giant Swarm YAML; the bound is 1 s per MB).
#[test]
fn hostile_inputs_take_bounded_time() {
    let cpu = || {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
        // SAFETY: getrusage fills the struct it is given.
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) };
        // SAFETY: initialised by the call above.
        let usage = unsafe { usage.assume_init() };
        usage.ru_utime.tv_sec as f64
            + usage.ru_utime.tv_usec as f64 / 1e6
            + usage.ru_stime.tv_sec as f64
            + usage.ru_stime.tv_usec as f64 / 1e6
    };
    let entries: Vec<String> = (0..30_000)
        .map(|n| format!("host{n}.corp.example"))
        .collect();
    let big_gs = format!(
        "global:\n  connectivity:\n    proxy:\n      httpProxy: {PROXY}\n      httpsProxy: {PROXY}\n      noProxy: \"{}\"\n",
        entries.join(",")
    );
    assert!(big_gs.len() > 500_000);
    let inputs: Vec<(&str, String)> = vec![
        ("giantswarm", big_gs),
        ("capi", "{".repeat(100_000)),
        ("aks", "[".repeat(100_000)),
        ("tkg", format!("a: {}", "[".repeat(1_000_000))),
        (
            "systemd",
            format!(
                "[Service]\nEnvironment=\"HTTP_PROXY={PROXY}\" \"NO_PROXY={}\"\n",
                entries.join(",")
            ),
        ),
    ];
    for (kind, text) in inputs {
        let started = cpu();
        let result = import::parse(kind, &text);
        let seconds = cpu() - started;
        let megabytes = text.len() as f64 / 1e6;
        eprintln!(
            "{kind}: {} bytes, {seconds:.3} s CPU, ok={}",
            text.len(),
            result.is_ok()
        );
        // Unoptimised test builds run the NO_PROXY parser (IDNA) about 10
        // times slower than the release binary: a generous bound there.
        let per_mb = if cfg!(debug_assertions) { 3.0 } else { 1.0 };
        assert!(
            seconds <= per_mb * megabytes.max(1.0),
            "{kind}: {seconds:.3} s CPU for {megabytes:.2} MB"
        );
    }
}

#[test]
fn k3s_env_file_with_containerd_variables() {
    let i = import_id("rke2", "", "k3s.service.env").unwrap();
    assert_eq!(i.name, "rke2");
    assert_eq!(
        i.http_proxy.as_deref(),
        Some("http://proxy.corp.example:3128")
    );
    assert_eq!(
        (i.username.as_deref(), i.password.as_deref()),
        (Some("svc-k8s"), Some("s3cr@t"))
    );
    assert_eq!(
        i.no_proxy,
        [
            "127.0.0.0/8",
            "10.0.0.0/8",
            "registry.corp.example",
            ".corp.example",
            "10.42.0.0/16",
            "10.43.0.0/16"
        ]
    );
    let dropped: Vec<&str> = i.dropped.iter().map(|d| d.entry.as_str()).collect();
    assert_eq!(dropped, [".svc", ".cluster.local", "localhost"]);
}

#[test]
fn rke2_server_env_file() {
    let i = import_id("rke2", "", "rke2-server").unwrap();
    assert_eq!(
        i.https_proxy.as_deref(),
        Some("http://proxy.corp.example:3129")
    );
    assert_eq!(i.username, None);
    assert!(i.no_proxy.contains(&"registry.corp.example".to_owned()));
}

/// Rancher's documented env file, written with a quoted heredoc: the
/// refusal names the shell variable nobody expanded.
#[test]
fn rancher_quoted_heredoc_names_the_unexpanded_variable() {
    let refused = import_id("rke2", "", "rancher-quoted-heredoc.env").unwrap_err();
    assert!(
        refused.starts_with(
            "HTTP_PROXY: `${proxy_host}` is a shell variable the heredoc did not expand: "
        ),
        "{refused}"
    );
    assert!(!refused.contains("invalid proxy host"), "{refused}");
}

/// The `<kind>` paragraph of the profile's import documentation
/// (`examples/resources/clusterproxy_profile/import.sh`), generated from
/// the registry: every kind with what it reads, wrapped at 80 columns.
fn kinds_paragraph() -> String {
    let text = format!("{}.", import::described_kinds());
    // A kind and the parenthesis that says what it reads stay on one line.
    let mut words: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match words.last_mut() {
            Some(kind) if word.starts_with('(') && kind.ends_with('`') => {
                kind.push(' ');
                kind.push_str(word);
            }
            _ => words.push(word.to_owned()),
        }
    }
    let mut lines = vec!["# <kind>   ".to_owned()];
    for word in &words {
        let line = lines.last_mut().unwrap();
        if line.len() > 12 && line.len() + 1 + word.len() > 80 {
            lines.push(format!("#{} {word}", " ".repeat(10)));
        } else {
            line.push(' ');
            line.push_str(word);
        }
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The guide for adding an importer (module doc of `import`), followed for
/// every registered importer, without reading any source (an importer left
/// out of the registry is dead code, which the build refuses): its file is
/// named after its kind; its fixtures are under `tests/fixtures/import/<kind>/`
/// and each imports the same way twice, to a profile whose note never shows
/// its password, or to findings; the import docs list it. `UPDATE_DOCS=1`
/// rewrites the kind list of `import.sh`.
#[test]
fn the_importer_guide_is_followed() {
    use std::path::Path;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &Path| std::fs::read_to_string(path).unwrap();
    let kinds = import::kinds();
    // Step 1: `crates/domain/src/import/<kind>.rs`.
    for kind in kinds {
        let file = format!("crates/domain/src/import/{kind}.rs");
        assert!(root.join(&file).is_file(), "{file} is missing");
    }
    // Step 2: fixtures per kind, each imported (their expected imports are
    // checked by `corpus_imports_as_expected`).
    for entry in std::fs::read_dir(import_corpus::root()).unwrap() {
        let dir = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            kinds.contains(&dir.as_str()),
            "tests/fixtures/import/{dir} is no kind"
        );
    }
    for kind in kinds {
        let files = fixtures(kind);
        assert!(
            !files.is_empty(),
            "no fixture in tests/fixtures/import/{kind}/"
        );
        for fixture in files {
            let file = &fixture.file;
            let first = import_id(kind, "", file);
            let again = import_id(kind, "", file);
            match (&first, &again) {
                (Ok(first), Ok(again)) => {
                    assert_eq!(first.note(), again.note(), "{kind}/{file}");
                    check_note(&format!("{kind}/{file}"), first);
                }
                (Err(first), Err(again)) => assert_eq!(first, again, "{kind}/{file}"),
                _ => panic!("{kind}/{file} imports differently the second time"),
            }
        }
    }
    // Step 3: the kind list of the import docs is generated from the registry.
    let example = root.join("examples/resources/clusterproxy_profile/import.sh");
    let text = read(&example);
    let start = text
        .find("# <kind>")
        .expect("import.sh has a `# <kind>` paragraph");
    let end = start
        + text[start..]
            .find("# (facts)")
            .expect("followed by `# (facts)`");
    let expected = kinds_paragraph();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(
            &example,
            format!("{}{expected}{}", &text[..start], &text[end..]),
        )
        .unwrap();
        // The pages follow with `UPDATE_DOCS=1 cargo test --test suite docs::`.
        return;
    }
    assert_eq!(
        &text[start..end],
        expected,
        "import.sh lists other kinds than the registry: run `make generate`"
    );
    for page in [
        "docs/resources/profile.md",
        "docs/data-sources/artifact_settings.md",
    ] {
        let page_text = read(&root.join(page));
        for kind in kinds {
            assert!(
                page_text.contains(&format!("`{kind}` (")),
                "{page} does not list `{kind}`"
            );
        }
    }
}
