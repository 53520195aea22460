//! The Secret variant of [`super::Capi`], with a cluster name (Giant Swarm:
//! `<cluster>-systemd-proxy`, key `containerdProxy`): every file comes from
//! the Secret, the credentials included, and the commands only source a
//! file; and the `<cluster>-cluster-values` `cluster.proxy` values.

use crate::redact::quoted;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::json;

use super::{apply, template_suffix, Content, File, Kubeadm};
use crate::render::trust::{self, OsFamily};
use crate::render::{k8s, shell, systemd, yaml, ProxySettings, Secrets};
use crate::{Finding, InputField, Location};

/// Where the Secret variant puts the environment file that the commands source.
pub const ENV_FILE_PATH: &str = "/etc/clusterproxy/proxy.env";
/// Key of the environment file in the Secret.
pub const ENV_KEY: &str = "proxyEnv";
/// Key of the CA bundle in the Secret.
pub const CA_KEY: &str = "trustedCa";

/// The Secret key of the drop-in for `unit`: `<name>Proxy`
/// (`containerdProxy` as Giant Swarm names it). Characters a Secret key
/// cannot hold (`@`, `:`, `\`) and `_` itself become `_xx` (hex), so that
/// two units never share a key. Kubernetes may still refuse the key (too
/// long, or starting with `..`; see [`k8s::data_key`]): the Secret variant
/// reports that as an error on the unit.
pub fn secret_key(unit: &str) -> String {
    let base = unit.strip_suffix(".service").unwrap_or(unit);
    let mut key = String::with_capacity(base.len() + 5);
    for b in base.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'.' {
            key.push(char::from(b));
        } else {
            key.push_str(&format!("_{b:02x}"));
        }
    }
    key + "Proxy"
}

/// An error on element `index` of [`InputField::Units`] when Kubernetes would
/// refuse `key`, the Secret key of `unit`'s drop-in. Kubernetes holds Secret
/// keys to `IsConfigMapKey` (k8s.io/apimachinery `validation.go`:
/// `[-._a-zA-Z0-9]+`, at most 253 characters, not `.` or `..` and not
/// starting with `..`; see [`k8s::data_key`]); [`secret_key`] writes only
/// those characters, but escaping can take a long unit name over 253
/// characters, and a unit named `..foo` gives `..fooProxy`.
fn secret_key_error(index: usize, unit: &str, key: &str) -> Option<Finding> {
    let why = k8s::data_key(key).err()?;
    let shown = if key.len() > 64 {
        format!("{}...", &key[..64])
    } else {
        key.to_owned()
    };
    Some(Finding::error(
        Location::element(InputField::Units, index),
        "Secret key not accepted by Kubernetes",
        format!("The drop-in of {unit} would be stored under the Secret key {shown} (`_`, `:`, `@` and `\\` are written as three characters each), and Kubernetes refuses it: {why}. Rename the unit or leave out `cluster_name` to write the files inline.", unit = quoted(unit), shown = quoted(&shown)),
    ))
}

/// The environment file the Secret variant's commands source: `export` lines.
pub fn env_file(settings: &ProxySettings, secrets: Secrets) -> String {
    let mut out = "# Proxy settings for kubeadm, managed by Terraform (clusterproxy).\n".to_owned();
    for line in shell::exports(&settings.variables(secrets)) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

impl Kubeadm {
    /// Every file from the Secret `secret` (see [`secret_name`]) through
    /// `contentFrom.secret`: a drop-in per unit, the environment file that the
    /// commands source, and the CA bundle for `os`. Nothing in the result
    /// holds a credential.
    pub(super) fn from_secret(
        settings: &ProxySettings,
        secret: &str,
        units: &[String],
        os: OsFamily,
    ) -> Result<Self, Vec<Finding>> {
        let from = |path: String, permissions: &str, key: String| File {
            path,
            owner: "root:root".to_owned(),
            permissions: permissions.to_owned(),
            content: Content::Secret {
                name: secret.to_owned(),
                key,
            },
        };
        let mut findings = Vec::new();
        let mut files = Vec::with_capacity(units.len() + 2);
        for (index, unit) in units.iter().enumerate() {
            let key = secret_key(unit);
            findings.extend(secret_key_error(index, unit, &key));
            let dropin = systemd::dropin(settings, unit, Secrets::Redact);
            files.push(from(dropin.path, dropin.permissions, key));
        }
        files.push(from(
            ENV_FILE_PATH.to_owned(),
            systemd::permissions(settings),
            ENV_KEY.to_owned(),
        ));
        if let Some(ca) = &settings.trusted_ca {
            let ca = trust::ca_file(ca, os);
            files.push(from(ca.path.to_owned(), ca.permissions, CA_KEY.to_owned()));
        }
        let mut commands = apply(settings, units, os);
        commands.push(format!(". {}", shell::quote(ENV_FILE_PATH)));
        Self::checked(files, commands, findings)
    }
}

/// `<cluster>-systemd-proxy`, with a revision (the profile's, see
/// [`ProxySettings::revision`]) `<cluster>-systemd-proxy-r<revision>`.
/// The name is the only part of the Secret that the `kubeadmConfigSpec`
/// holds: suffixing it with the revision makes every change of settings a
/// change of that spec, without putting anything derived from the password
/// in it. The name stays a DNS subdomain (a cluster name is a label).
pub fn secret_name(cluster: &str, revision: Option<i64>) -> String {
    format!("{cluster}{SECRET_SUFFIX}{}", template_suffix(revision))
}

/// What [`secret_name`] appends to the cluster name, before the revision.
const SECRET_SUFFIX: &str = "-systemd-proxy";

/// The cluster whose Secret [`secret_name`] named `name`, with or without a
/// revision (`prod-systemd-proxy`, `prod-systemd-proxy-r3`: `prod`).
pub fn cluster_of_secret(name: &str) -> Option<&str> {
    let unrevised = name
        .rsplit_once("-r")
        .filter(|(base, digits)| {
            base.ends_with(SECRET_SUFFIX)
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
        })
        .map_or(name, |(base, _)| base);
    unrevised.strip_suffix(SECRET_SUFFIX)
}

/// The Secret the Secret variant's files come from (YAML manifest): a
/// drop-in per unit, the environment file and the CA bundle.
pub fn secret_manifest(
    settings: &ProxySettings,
    name: &str,
    namespace: &str,
    units: &[String],
    secrets: Secrets,
) -> String {
    let mut data = serde_json::Map::new();
    for unit in units {
        let dropin = systemd::dropin(settings, unit, secrets);
        data.insert(secret_key(unit), json!(STANDARD.encode(dropin.content)));
    }
    data.insert(
        ENV_KEY.to_owned(),
        json!(STANDARD.encode(env_file(settings, secrets))),
    );
    if let Some(ca) = &settings.trusted_ca {
        data.insert(CA_KEY.to_owned(), json!(STANDARD.encode(ca.to_pem())));
    }
    let manifest = json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "type": "Opaque",
        "data": data,
    });
    yaml::to_string(&manifest)
}

/// The `cluster.proxy` values of `<cluster>-cluster-values` (YAML).
pub fn cluster_values(settings: &ProxySettings, secrets: Secrets) -> String {
    let url =
        |u: &Option<crate::proxy_url::ProxyUrl>| u.as_ref().map(|u| ProxySettings::url(u, secrets));
    let values = json!({"cluster": {"proxy": {
        "http": url(&settings.http_proxy),
        "https": url(&settings.https_proxy),
        "noProxy": settings.no_proxy_value(),
    }}});
    yaml::to_string(&values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::capi::testing::files_from_secret;
    use crate::render::capi::tests::units;
    use crate::render::capi::{Capi, CapiConfig};
    use crate::render::tests::{golden, settings, NASTY_PASSWORD};
    use crate::render::trust::testing::ca_and_leaf;
    use crate::render::{Input, Renderer};
    use crate::trusted_ca::TrustedCa;
    use serde_json::Value;

    /// The Secret variant: no credential in the kubeadm pieces in any form,
    /// every unit gets its drop-in, credentials files are 0600. (Run in an
    /// isolated root with the files in place, the commands make the system
    /// trust the CA and give kubeadm exactly the variables:
    /// tests/oracles/render_tools.rs.)
    #[test]
    fn secret_variant_keeps_credentials_in_the_secret() {
        let (ca, _) = ca_and_leaf();
        let mut s = settings();
        let units = vec![
            "containerd.service".to_owned(),
            "kubelet.service".to_owned(),
            r"foo\x2dbar@a_b.service".to_owned(),
        ];
        golden(
            "capi/secret.yaml",
            &secret_manifest(
                &s,
                "prod-systemd-proxy",
                "org-acme",
                &units,
                Secrets::Include,
            ),
        );
        s.trusted_ca = Some(TrustedCa::parse(&ca).unwrap());
        let kubeadm =
            Kubeadm::from_secret(&s, "prod-systemd-proxy", &units, OsFamily::Debian).unwrap();
        let yaml = kubeadm.to_yaml();
        golden("capi/kubeadm-secret.yaml", &yaml);
        let encoded_password = NASTY_PASSWORD.replace('%', "%25");
        for form in [NASTY_PASSWORD, "p%2540ss", &encoded_password, "svc-proxy:"] {
            assert!(!yaml.contains(form), "{form} in\n{yaml}");
        }
        assert!(kubeadm
            .files
            .iter()
            .all(|f| matches!(f.content, Content::Secret { .. })));
        let manifest = secret_manifest(
            &s,
            "prod-systemd-proxy",
            "org-acme",
            &units,
            Secrets::Include,
        );
        let files = files_from_secret(&kubeadm, &manifest);
        for unit in &units {
            let path = format!("/etc/systemd/system/{unit}.d/http-proxy.conf");
            let (_, content, mode) = files.iter().find(|(p, ..)| *p == path).expect(&path);
            assert_eq!(
                *content,
                systemd::dropin(&s, unit, Secrets::Include).content
            );
            assert_eq!(mode, "0600");
        }
        let env_mode = &files.iter().find(|(p, ..)| p == ENV_FILE_PATH).unwrap().2;
        assert_eq!(env_mode, "0600");
    }

    /// The Secret variant with `revision`, rendered with or without the
    /// credentials.
    fn secret_variant(
        settings: &ProxySettings,
        revision: Option<i64>,
        secrets: Secrets,
    ) -> CapiConfig {
        let settings = &ProxySettings {
            revision,
            ..settings.clone()
        };
        let capi = Capi {
            units: units(),
            os: OsFamily::Debian,
            base64_content: false,
            cluster_name: Some("prod".to_owned()),
            namespace: "org-acme".to_owned(),
        };
        let cluster = crate::no_proxy::Cluster::default();
        capi.render(Input {
            settings,
            cluster: &cluster,
            secrets,
        })
        .unwrap()
        .output
    }

    /// A password-only rotation (which moves the profile's revision) changes
    /// the Secret variant's `kubeadmConfigSpec`, so Cluster API rolls the
    /// machines, and shows the change without the password; the same
    /// settings at the same revision change no byte; without a revision the
    /// names are those of earlier releases.
    #[test]
    fn a_rotation_changes_the_kubeadm_config_spec_through_the_revision() {
        let before = settings();
        let mut after = settings();
        let rotated = crate::proxy_url::ProxyCredentials::new("svc-proxy", "n3w-pass").unwrap();
        for url in [&mut after.http_proxy, &mut after.https_proxy] {
            *url = url.take().map(|u| u.with_credentials(rotated.clone()));
        }
        let old = secret_variant(&before, Some(1), Secrets::Include);
        let new = secret_variant(&after, Some(2), Secrets::Include);
        assert_ne!(old.kubeadm, new.kubeadm);
        assert_eq!(new.secret_name.as_deref(), Some("prod-systemd-proxy-r2"));
        assert_eq!(new.template_suffix, "-r2");
        let manifest: Value =
            serde_yaml_ng::from_str(new.secret_manifest.as_deref().unwrap()).unwrap();
        assert_eq!(manifest["metadata"]["name"], "prod-systemd-proxy-r2");
        let redacted = secret_variant(&after, Some(2), Secrets::Redact);
        assert_eq!(
            redacted.kubeadm, new.kubeadm,
            "the spec holds no credential"
        );
        let yaml = redacted.kubeadm.to_yaml();
        assert!(yaml.contains("name: prod-systemd-proxy-r2"), "{yaml}");
        assert!(!yaml.contains("n3w-pass"), "{yaml}");
        assert_eq!(secret_variant(&after, Some(2), Secrets::Include), new);
        assert_eq!(
            secret_variant(&before, Some(1), Secrets::Include).kubeadm,
            old.kubeadm
        );
        for revision in [None, Some(1), Some(42)] {
            let name = secret_name("prod-r1", revision);
            assert_eq!(cluster_of_secret(&name), Some("prod-r1"), "{name}");
        }
        assert_eq!(cluster_of_secret("prod-systemd-proxy-rx"), None);
        let unversioned = secret_variant(&before, None, Secrets::Include);
        assert_eq!(
            unversioned.secret_name.as_deref(),
            Some("prod-systemd-proxy")
        );
        assert_eq!(unversioned.template_suffix, "");
    }

    #[test]
    fn secret_keys_are_valid_and_distinct() {
        let keys: Vec<String> = [
            "containerd.service",
            "a_b.service",
            "a@b.service",
            r"a\x40b.service",
            "a_40b.service",
        ]
        .iter()
        .map(|u| secret_key(u))
        .collect();
        assert_eq!(keys[0], "containerdProxy");
        for key in &keys {
            assert!(
                key.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)),
                "{key}"
            );
        }
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "{keys:?}");
    }

    /// A unit whose Secret key Kubernetes would refuse (over 253
    /// characters once escaped, or starting with `..`) is an error on its
    /// `units` element in the Secret variant only; the longest key accepted
    /// passes.
    #[test]
    fn secret_keys_kubernetes_refuses_are_errors_on_their_unit() {
        let long = format!("{}.service", "_".repeat(110));
        assert_eq!(secret_key(&long).len(), 335);
        let longest = format!("{}.service", "a".repeat(248));
        assert_eq!(secret_key(&longest).len(), k8s::MAX_DATA_KEY);
        let units = [
            "containerd.service".to_owned(),
            long,
            "..foo.service".to_owned(),
            longest,
            ".foo.service".to_owned(),
        ];
        let errors =
            Kubeadm::from_secret(&settings(), "prod", &units, OsFamily::Debian).unwrap_err();
        let found: Vec<_> = errors
            .iter()
            .map(|f| (f.summary.as_str(), f.location))
            .collect();
        let at = |index| Some(Location::element(InputField::Units, index));
        let summary = "Secret key not accepted by Kubernetes";
        assert_eq!(found, [(summary, at(1)), (summary, at(2))]);
        assert!(
            errors[0].detail.contains("253 characters"),
            "{}",
            errors[0].detail
        );
        assert!(errors[1].detail.contains("`..`"), "{}", errors[1].detail);
        Kubeadm::inline(
            &settings(),
            &units,
            OsFamily::Debian,
            false,
            Secrets::Include,
        )
        .unwrap();
    }

    #[test]
    fn cluster_values() {
        let s = settings();
        let values = super::cluster_values(&s, Secrets::Include);
        golden("capi/cluster-values.yaml", &values);
        let parsed: Value = serde_yaml_ng::from_str(&values).unwrap();
        assert_eq!(parsed["cluster"]["proxy"]["noProxy"], s.no_proxy_value());
    }
}
