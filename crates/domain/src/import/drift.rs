//! Drift: does an artifact hold the settings a profile renders for a cluster?
//! Both sides are compared as the renderers would write them for the same
//! cluster facts, so entries the renderers add (pod CIDRs, the cluster
//! domain...) never count as drift, and credentials are compared directly,
//! never through anything derived from them.

use std::collections::BTreeSet;

use super::imported::Imported;
use crate::no_proxy::{merge, Cluster, MergeOptions};
use crate::profile::{Profile, ProfileInput};
use crate::Finding;

/// The fields in which the artifact differs from `expected`, each named with
/// what differs (never a password or anything derived from one). Empty when
/// the artifact holds exactly what the profile renders for `imported.facts`.
pub fn differences(
    imported: &Imported,
    expected: &ProfileInput,
) -> Result<Vec<String>, Vec<Finding>> {
    let node = Profile::new(&imported.input())?;
    let wanted = Profile::new(expected)?;
    let mut out = Vec::new();
    let plain =
        |url: &Option<crate::proxy_url::ProxyUrl>| url.as_ref().map(|u| u.to_plain_string());
    let shown = |url: Option<String>, direct: &str| url.unwrap_or_else(|| direct.to_owned());
    if plain(&node.http_proxy) != plain(&wanted.http_proxy) {
        out.push(format!(
            "http_proxy differs: the artifact has {}, the profile {}.",
            shown(plain(&node.http_proxy), "none"),
            shown(plain(&wanted.http_proxy), "none")
        ));
    }
    let node_https = if imported.https_direct {
        None
    } else {
        plain(&node.https_proxy)
    };
    if node_https != plain(&wanted.https_proxy) {
        out.push(format!(
            "https_proxy differs: the artifact sends HTTPS {}, the profile {}.",
            shown(node_https.map(|u| format!("through {u}")), "direct"),
            shown(
                plain(&wanted.https_proxy).map(|u| format!("through {u}")),
                "direct"
            )
        ));
    }
    let user = |p: &Profile| {
        p.http_proxy
            .as_ref()
            .or(p.https_proxy.as_ref())
            .and_then(|u| u.credentials())
            .map(|c| (c.username().to_owned(), c.password().map(str::to_owned)))
    };
    let (node_user, wanted_user) = (user(&node), user(&wanted));
    let name = |c: &Option<(String, Option<String>)>| c.as_ref().map(|(u, _)| u.clone());
    if name(&node_user) != name(&wanted_user) {
        out.push(format!(
            "username differs: the artifact has {:?}, the profile {:?}.",
            name(&node_user).unwrap_or_default(),
            name(&wanted_user).unwrap_or_default()
        ));
    }
    let secret = |c: &Option<(String, Option<String>)>| c.as_ref().and_then(|(_, p)| p.clone());
    // A profile that gives no password (a profile's `settings` never hold
    // one) says nothing about the artifact's: not compared
    // ([`password_not_compared`]).
    let wanted_secret = secret(&wanted_user);
    if wanted_secret.is_some() && secret(&node_user) != wanted_secret {
        out.push("password differs.".to_owned());
    }
    let rendered = |no_proxy: &[String]| -> Result<BTreeSet<String>, Vec<Finding>> {
        let cluster = Cluster {
            installation: no_proxy.to_vec(),
            ..imported.facts.clone()
        };
        Ok(merge(&cluster.sources()?, &MergeOptions::default())?
            .entries
            .iter()
            .map(ToString::to_string)
            .collect())
    };
    let (on_node, in_profile) = (rendered(&node.no_proxy)?, rendered(&wanted.no_proxy)?);
    if on_node != in_profile {
        let list = |set: BTreeSet<&String>| {
            set.into_iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push(format!(
            "no_proxy differs: in the artifact only: [{}]; in the profile only: [{}].",
            list(on_node.difference(&in_profile).collect()),
            list(in_profile.difference(&on_node).collect())
        ));
    }
    let pem = |p: &Profile| p.trusted_ca.as_ref().map(|c| c.to_pem());
    if pem(&node) != pem(&wanted) {
        out.push("trusted_ca differs.".to_owned());
    }
    Ok(out)
}

/// Whether [`differences`] leaves the artifact's password uncompared: the
/// artifact has one and `expected` gives none.
pub fn password_not_compared(imported: &Imported, expected: &ProfileInput) -> bool {
    imported.password.is_some() && expected.password.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::parse_with;
    use crate::render::{systemd, ProxySettings, Secrets};

    fn expected(password: &str, no_proxy: &[&str]) -> ProfileInput {
        ProfileInput {
            http_proxy: Some("http://proxy.corp.example:3128".into()),
            username: Some("svc".into()),
            password: Some(password.into()),
            no_proxy: no_proxy.iter().map(|s| (*s).to_owned()).collect(),
            ..ProfileInput::default()
        }
    }

    fn facts() -> Cluster {
        Cluster {
            pod_cidrs: vec!["10.244.0.0/16".into()],
            service_cidrs: vec!["10.96.0.0/12".into()],
            apiserver_ip: Some("10.0.0.10".into()),
            ..Cluster::default()
        }
    }

    /// What the systemd renderer writes for `input` on a cluster with `facts()`.
    fn rendered(input: &ProfileInput) -> String {
        let profile = Profile::new(input).unwrap();
        let cluster = Cluster {
            installation: profile.no_proxy.clone(),
            ..facts()
        };
        let merged = merge(&cluster.sources().unwrap(), &MergeOptions::default()).unwrap();
        let settings = ProxySettings {
            http_proxy: profile.http_proxy,
            https_proxy: profile.https_proxy,
            no_proxy: merged.list,
            trusted_ca: profile.trusted_ca,
            revision: None,
        };
        systemd::dropin(&settings, "containerd.service", Secrets::Include).content
    }

    #[test]
    fn a_faithful_node_is_in_sync_and_a_changed_one_names_the_field() {
        let wanted = expected("p@ss word", &["registry.corp.example", ".corp.example"]);
        let node = rendered(&wanted);
        let imported = parse_with("systemd", &node, &facts()).unwrap();
        assert_eq!(
            differences(&imported, &wanted).unwrap(),
            Vec::<String>::new()
        );
        // Without the facts the renderer had, its pod CIDR looks like drift.
        let blind = parse_with("systemd", &node, &Cluster::default()).unwrap();
        assert!(!differences(&blind, &wanted).unwrap().is_empty());
        let other_password = parse_with(
            "systemd",
            &rendered(&expected(
                "other",
                &["registry.corp.example", ".corp.example"],
            )),
            &facts(),
        )
        .unwrap();
        let found = differences(&other_password, &wanted).unwrap();
        assert_eq!(found, ["password differs."]);
        let other_list = parse_with(
            "systemd",
            &rendered(&expected("p@ss word", &["registry.corp.example"])),
            &facts(),
        )
        .unwrap();
        let found = differences(&other_list, &wanted).unwrap();
        assert_eq!(found, ["no_proxy differs: in the artifact only: [registry.corp.example]; in the profile only: [.corp.example]."]);
        let http_only = parse_with("systemd", "[Service]\nEnvironment=HTTP_PROXY=http://svc:p%%40ss%%20word@proxy.corp.example:3128\n", &facts()).unwrap();
        let found = differences(&http_only, &expected("p@ss word", &[])).unwrap();
        assert_eq!(found, ["https_proxy differs: the artifact sends HTTPS direct, the profile through http://proxy.corp.example:3128."]);
        assert!(found.iter().all(|f| !f.contains("p@ss")));
    }

    /// A profile without a password (what a profile's `settings` hold)
    /// leaves the artifact's password uncompared: no difference, and
    /// [`password_not_compared`] says so; a profile with one is compared.
    #[test]
    fn a_profile_without_a_password_leaves_the_password_uncompared() {
        let wanted = expected("p@ss word", &["registry.corp.example"]);
        let imported = parse_with("systemd", &rendered(&wanted), &facts()).unwrap();
        let without = ProfileInput {
            password: None,
            ..wanted.clone()
        };
        assert_eq!(
            differences(&imported, &without).unwrap(),
            Vec::<String>::new()
        );
        assert!(password_not_compared(&imported, &without));
        assert!(!password_not_compared(&imported, &wanted));
        let mut other = wanted.clone();
        other.password = Some("other".into());
        assert_eq!(
            differences(&imported, &other).unwrap(),
            ["password differs."]
        );
    }
}
