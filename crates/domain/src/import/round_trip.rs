//! What the provider renders imports back: every renderer of the registry
//! ([`RENDERERS`](crate::render::RENDERERS)) renders sample profiles, and each file a cluster
//! or node holds of the output ([`Renderer::held`](crate::render::Renderer::held))
//! is told by the fleet scan's kind detection and imported by the ID import
//! and by the scan's import, to the same public settings: the proxies, the
//! user and password, the CA where the file carries it, and the same
//! canonical merged NO_PROXY. A renderer whose output is no artifact says
//! why, and the test names it.

use super::fleet::kind_of;
use super::id::{Artifact, ImportId};
use super::{parse_with, Imported};
use crate::no_proxy::{merge, Cluster, MergeOptions, Source};
use crate::profile::Profile;
use crate::render::openshift::tests::fixed_ca;
use crate::render::tests::{settings, NASTY_PASSWORD};
use crate::render::{Held, Input, ProxySettings, Secrets, RENDERERS};
use crate::InputField;

/// The merged NO_PROXY list the renderers get for `installation` and the
/// facts of `cluster`, plus the entries a platform adds by itself.
fn merged(installation: &[String], cluster: &Cluster, platform: &[String]) -> Vec<String> {
    let cluster = Cluster {
        installation: installation.to_vec(),
        ..cluster.clone()
    };
    let mut sources = cluster.sources().unwrap();
    sources.push(Source::list(
        InputField::Platform("platform"),
        platform.to_vec(),
    ));
    merge(&sources, &MergeOptions::default()).unwrap().list
}

/// The installation-wide entries of every sample profile.
fn installation() -> Vec<String> {
    ["registry.corp.example", ".corp.example", "10.0.0.0/8"]
        .map(str::to_owned)
        .to_vec()
}

/// Sample profiles, each with the cluster it is rendered for (the cluster
/// domain at the renderers' default): with credentials and the cluster's
/// CIDRs; with a CA and no CIDRs; with neither credentials nor a CA; and
/// with an HTTPS proxy alone (the one proxy some platforms have).
fn samples() -> Vec<(ProxySettings, Cluster)> {
    let without_cidrs = Cluster {
        cluster_domain: Some("cluster.local".to_owned()),
        ..Cluster::default()
    };
    let with_cidrs = Cluster {
        pod_cidrs: vec!["100.96.0.0/11".to_owned()],
        service_cidrs: vec!["100.64.0.0/13".to_owned()],
        ..without_cidrs.clone()
    };
    let mut out = Vec::new();
    for (credentials, ca, cluster, http) in [
        (true, false, with_cidrs.clone(), true),
        (false, true, without_cidrs, true),
        (false, false, with_cidrs.clone(), true),
        (false, false, with_cidrs, false),
    ] {
        let mut s = settings();
        if !credentials {
            s.http_proxy = s.http_proxy.map(|u| u.with_credentials(None));
            s.https_proxy = s.https_proxy.map(|u| u.with_credentials(None));
        }
        s.http_proxy = s.http_proxy.filter(|_| http);
        s.trusted_ca = ca.then(fixed_ca);
        s.no_proxy = merged(&installation(), &cluster, &[]);
        out.push((s, cluster));
    }
    out
}

/// Where `imported` differs from `settings` in its public settings.
fn differences(
    imported: &Imported,
    settings: &ProxySettings,
    cluster: &Cluster,
    carries_ca: bool,
) -> Vec<String> {
    let profile = match Profile::new(&imported.input()) {
        Ok(profile) => profile,
        Err(findings) => return vec![format!("makes no profile: {findings:?}")],
    };
    let mut out = Vec::new();
    let url = |u: &Option<crate::proxy_url::ProxyUrl>| u.as_ref().map(|u| u.to_secret_string());
    for (what, got, want) in [
        (
            "http_proxy",
            url(&profile.http_proxy),
            url(&settings.http_proxy),
        ),
        (
            "https_proxy",
            url(&profile.https_proxy),
            url(&settings.https_proxy),
        ),
    ] {
        if got != want {
            out.push(format!("{what}: {got:?}, not {want:?}"));
        }
    }
    let user = settings
        .http_proxy
        .as_ref()
        .and_then(|u| u.credentials())
        .map(|c| c.username().to_owned());
    if imported.username != user {
        out.push(format!("username: {:?}, not {user:?}", imported.username));
    }
    let password = user.as_ref().map(|_| NASTY_PASSWORD.to_owned());
    if imported.password != password {
        out.push("password differs".to_owned());
    }
    let ca = settings.trusted_ca.as_ref().filter(|_| carries_ca);
    if profile.trusted_ca.as_ref().map(|c| c.to_pem()) != ca.map(|c| c.to_pem()) {
        out.push(format!(
            "trusted CA: {}, not {}",
            profile.trusted_ca.is_some(),
            ca.is_some()
        ));
    }
    // What the platform adds (its own entries, its cloud's addresses) is
    // added on both sides: the renders were made without it.
    let cloud = imported.facts.cloud.or(cluster.cloud);
    let facts = Cluster {
        cloud,
        ..imported.facts.clone()
    };
    let back = merged(&profile.no_proxy, &facts, &imported.platform);
    let given = Cluster {
        cloud,
        ..cluster.clone()
    };
    let want = merged(&installation(), &given, &imported.platform);
    if back != want {
        out.push(format!(
            "merged NO_PROXY: {back:?}, not {want:?} (left out: {:?})",
            imported.dropped
        ));
    }
    out
}

#[test]
fn every_renderer_imports_back() {
    let mut wrong = Vec::new();
    for platform in RENDERERS {
        let mut imported_back = 0;
        for (index, (settings, cluster)) in samples().iter().enumerate() {
            let input = Input {
                settings,
                cluster,
                secrets: Secrets::Include,
            };
            let label = format!("{} (sample {index})", platform.module());
            let files = match platform.render_sample(input).map(|r| r.output) {
                Err(findings) => {
                    // A platform that takes no credentials or no CA refuses
                    // such a profile, with the reason.
                    let why: Vec<&str> = findings.iter().map(|f| f.summary.as_str()).collect();
                    eprintln!("{label}: cannot carry this profile: {}", why.join("; "));
                    continue;
                }
                Ok(Held::NoArtifact(why)) => {
                    assert!(!why.is_empty(), "{label}: no reason");
                    eprintln!("{label}: not imported back: {why}");
                    continue;
                }
                Ok(Held::Files(files)) => files,
            };
            if files.is_empty() {
                wrong.push(format!("{label}: holds no file"));
            }
            let before = wrong.len();
            for file in files {
                let label = format!("{label}, {} as {}", file.name, file.kind);
                let told = kind_of(&file.name, &file.text);
                if told != Some(file.kind) {
                    wrong.push(format!("{label}: the fleet scan tells {told:?}"));
                }
                let id = ImportId {
                    name: None,
                    kind: file.kind.to_owned(),
                    facts: cluster.clone(),
                    https_through_proxy: false,
                    artifact: Artifact::File(file.name.clone()),
                };
                for (how, imported) in [
                    ("ID import", id.import(&file.text)),
                    ("fleet scan", parse_with(file.kind, &file.text, cluster)),
                ] {
                    match imported {
                        Ok(imported) => wrong.extend(
                            differences(&imported, settings, cluster, file.carries_ca)
                                .into_iter()
                                .map(|d| format!("{label}, {how}: {d}")),
                        ),
                        Err(findings) => wrong.push(format!(
                            "{label}, {how}: refused: {:?}",
                            findings.iter().map(|f| &f.detail).collect::<Vec<_>>()
                        )),
                    }
                }
            }
            imported_back += usize::from(wrong.len() == before);
        }
        let held = samples().iter().any(|(settings, cluster)| {
            let input = Input {
                settings,
                cluster,
                secrets: Secrets::Include,
            };
            matches!(
                platform.render_sample(input).map(|r| r.output),
                Ok(Held::Files(_))
            )
        });
        if held && imported_back == 0 {
            wrong.push(format!(
                "{}: no sample profile imports back",
                platform.module()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
