//! Ignition (spec 3.3.0) and Butane configs for Flatcar Container Linux and
//! Fedora CoreOS: the systemd drop-ins and the trusted CA as files, and a
//! oneshot unit that rebuilds the trust store before the proxied units start.
//!
//! Facts from coreos/ignition (`config/v3_3/types/schema.go`, docs
//! `configuration-v3_3.md`): `storage.files[]` take `path`, `mode` (a decimal
//! integer: 384 is 0600, 420 is 0644), `overwrite` and `contents.source`, a
//! URL that may be an RFC 2397 `data:` URL; `systemd.units[]` take `name`,
//! `enabled` and `contents`. Ignition writes every file before the real root
//! boots, so no restart is needed. Drop-ins are written as files, not as
//! `systemd.units[].dropins`, because Ignition gives drop-ins mode 0644 and a
//! drop-in with credentials must be 0600.
//!
//! Butane (coreos/butane, docs `config-flatcar-v1_0.md` and
//! `config-fcos-v1_4.md`): variant `flatcar` 1.0.0 and `fcos` 1.4.0 both
//! translate to Ignition 3.3.0; `storage.files[].contents.inline` holds the
//! text that Butane turns into a `data:` URL.
//!
//! One spec version serves every release: spec 3.3.0 is stable since
//! Ignition 2.11.0, and Ignition 2.26.0 (tag v2.26.0, commit 7e288ed,
//! `docs/release-notes.md`), whose newest stable spec is 3.6.0, still reads
//! every spec from 3.0.0 by translating it forward (`config/config.go`,
//! `ParseCompatibleVersion`); the fields written here are the same in 3.6.0.
//! Butane v0.29.0 (commit 7effcdc, `docs/specs.md`) still lists `fcos`
//! 1.4.0 and `flatcar` 1.0.0 as stable. No proxy-related change in these
//! releases touches what is written: `ignition.proxy` (since spec 3.1.0)
//! is for Ignition's own fetches, and this config fetches nothing.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::trust::{self, OsFamily};
use super::{systemd, yaml, Held, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};

/// The Ignition spec version written.
pub const IGNITION_VERSION: &str = "3.3.0";

/// The unit that rebuilds the trust store at boot when a CA is written.
pub const TRUST_UNIT: &str = "clusterproxy-trust-ca.service";

/// The distribution the config is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Flatcar Container Linux (`/etc/ssl/certs`, `update-ca-certificates`).
    Flatcar,
    /// Fedora CoreOS (`/etc/pki/ca-trust/source/anchors`, `update-ca-trust extract`).
    Fcos,
}

impl Variant {
    /// The names accepted in configuration, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["flatcar", "fcos"];

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "flatcar" => Some(Self::Flatcar),
            "fcos" => Some(Self::Fcos),
            _ => None,
        }
    }

    /// Where the CA goes and how it is trusted: Flatcar like the flatcar OS
    /// family, Fedora CoreOS like the RHEL family (p11-kit's `update-ca-trust`).
    pub fn os_family(self) -> OsFamily {
        match self {
            Self::Flatcar => OsFamily::Flatcar,
            Self::Fcos => OsFamily::Rhel,
        }
    }

    /// Butane's `variant` and `version` that translate to [`IGNITION_VERSION`].
    pub fn butane(self) -> (&'static str, &'static str) {
        match self {
            Self::Flatcar => ("flatcar", "1.0.0"),
            Self::Fcos => ("fcos", "1.4.0"),
        }
    }
}

/// Ignition: the units to give the proxy settings and the OS variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignition {
    /// Full unit names (`containerd.service`), at least one.
    pub units: Vec<String>,
    /// Flatcar or Fedora CoreOS.
    pub variant: Variant,
}

/// The node configuration in both forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnitionConfig {
    /// The Ignition config (see [`config`]).
    pub config: String,
    /// The Butane config (see [`butane`]).
    pub butane: String,
}

impl Renderer for Ignition {
    type Output = IgnitionConfig;

    const MODULE: &'static str = "ignition";

    fn sample() -> Self {
        Ignition {
            units: crate::render::systemd::typical_units(),
            variant: Variant::Flatcar,
        }
    }

    /// Both forms, within systemd's limits.
    fn render(&self, input: Input) -> Rendering<IgnitionConfig> {
        let Input {
            settings, secrets, ..
        } = input;
        Rendered::checked(
            IgnitionConfig {
                config: config(settings, &self.units, self.variant, secrets),
                butane: butane(settings, &self.units, self.variant, secrets),
            },
            systemd::check_dropins(settings, &self.units),
        )
    }

    /// The drop-ins the Butane config (which translates to the Ignition
    /// config) writes, as the node holds them.
    fn held(&self, output: &IgnitionConfig) -> Held {
        let document: Value = serde_yaml_ng::from_str(&output.butane).unwrap_or_default();
        let files = document.pointer("/storage/files").and_then(Value::as_array);
        Held::Files(systemd::held_dropins(files.into_iter().flatten(), |file| {
            file.pointer("/contents/inline").and_then(Value::as_str)
        }))
    }
}

/// A file of the config: path, mode (decimal) and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFile {
    /// Absolute path.
    pub path: String,
    /// Permissions as Ignition's decimal `mode`.
    pub mode: u32,
    /// Text content.
    pub content: String,
}

fn mode(octal: &str) -> u32 {
    u32::from_str_radix(octal, 8).expect("renderer permissions are octal")
}

/// The files: the CA bundle (with a trusted CA), then a drop-in per unit.
pub fn files(
    settings: &ProxySettings,
    units: &[String],
    variant: Variant,
    secrets: Secrets,
) -> Vec<NodeFile> {
    let ca = settings.trusted_ca.iter().map(|ca| {
        let file = trust::ca_file(ca, variant.os_family());
        NodeFile {
            path: file.path.to_owned(),
            mode: mode(file.permissions),
            content: file.content,
        }
    });
    let dropins = units.iter().map(|unit| {
        let d = systemd::dropin(settings, unit, secrets);
        NodeFile {
            path: d.path,
            mode: mode(d.permissions),
            content: d.content,
        }
    });
    ca.chain(dropins).collect()
}

/// The trust unit: a oneshot that runs the trust store update of the variant
/// once per boot, before the proxied units (`Before=`), pulled in by
/// `multi-user.target`.
pub fn trust_unit(units: &[String], variant: Variant) -> String {
    format!(
        "# Trusts the proxy CA, managed by Terraform (clusterproxy).\n[Unit]\nDescription=Trust the proxy CA\nBefore={}\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart={}\n\n[Install]\nWantedBy=multi-user.target\n",
        units.join(" "),
        variant.os_family().trust_command()
    )
}

/// The `storage` and `systemd` sections shared by Ignition and Butane, with
/// each file's text turned into its `contents` by `contents`.
fn sections(
    settings: &ProxySettings,
    units: &[String],
    variant: Variant,
    secrets: Secrets,
    contents: fn(String) -> Value,
) -> serde_json::Map<String, Value> {
    let files: Vec<Value> = files(settings, units, variant, secrets)
        .into_iter()
        .map(|f| json!({"path": f.path, "mode": f.mode, "overwrite": true, "contents": contents(f.content)}))
        .collect();
    let mut out = serde_json::Map::new();
    out.insert("storage".into(), json!({"files": files}));
    if settings.trusted_ca.is_some() {
        out.insert(
            "systemd".into(),
            json!({"units": [{"name": TRUST_UNIT, "enabled": true, "contents": trust_unit(units, variant)}]}),
        );
    }
    out
}

/// The Ignition config as JSON (keys sorted, no insignificant whitespace).
pub fn config(
    settings: &ProxySettings,
    units: &[String],
    variant: Variant,
    secrets: Secrets,
) -> String {
    let mut document = sections(
        settings,
        units,
        variant,
        secrets,
        |text| json!({"source": format!("data:;base64,{}", STANDARD.encode(text))}),
    );
    document.insert("ignition".into(), json!({"version": IGNITION_VERSION}));
    Value::Object(document).to_string()
}

/// The same config as Butane YAML, for teams that keep Butane sources.
pub fn butane(
    settings: &ProxySettings,
    units: &[String],
    variant: Variant,
    secrets: Secrets,
) -> String {
    let (name, version) = variant.butane();
    let mut document = sections(
        settings,
        units,
        variant,
        secrets,
        |text| json!({"inline": text}),
    );
    document.insert("variant".into(), json!(name));
    document.insert("version".into(), json!(version));
    yaml::to_string(&Value::Object(document))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::cloud_init::tests::with_ca;
    use crate::render::tests::{golden, settings, NASTY_PASSWORD};

    fn units() -> Vec<String> {
        vec![
            "containerd.service".to_owned(),
            "kubelet.service".to_owned(),
        ]
    }

    fn decode(source: &str) -> String {
        let data = source.strip_prefix("data:;base64,").unwrap();
        String::from_utf8(STANDARD.decode(data).unwrap()).unwrap()
    }

    /// Decoded, the files are the systemd renderer's drop-ins and CA bundle,
    /// with 0600 for drop-ins with credentials, and the trust unit. (The
    /// trust unit passes `systemd-analyze verify`, and `ignition-validate`
    /// accepts every variant: tests/oracles/render_tools.rs.)
    #[test]
    fn parses_back_to_the_systemd_files() {
        let s = with_ca();
        let parsed: Value =
            serde_json::from_str(&config(&s, &units(), Variant::Flatcar, Secrets::Include))
                .unwrap();
        let files = parsed["storage"]["files"].as_array().unwrap();
        assert_eq!(files[0]["path"], OsFamily::Flatcar.ca_path());
        assert_eq!(files[0]["mode"], 420);
        assert_eq!(
            decode(files[0]["contents"]["source"].as_str().unwrap()),
            s.trusted_ca.as_ref().unwrap().to_pem()
        );
        let dropin = systemd::dropin(&s, "containerd.service", Secrets::Include);
        assert_eq!(files[1]["path"], dropin.path.as_str());
        assert_eq!(files[1]["mode"], 384);
        assert_eq!(
            decode(files[1]["contents"]["source"].as_str().unwrap()),
            dropin.content
        );
        let unit = parsed["systemd"]["units"][0]["contents"].as_str().unwrap();
        assert_eq!(unit, trust_unit(&units(), Variant::Flatcar));
        let fcos = config(&s, &units(), Variant::Fcos, Secrets::Include);
        assert!(fcos.contains("update-ca-trust extract"), "{fcos}");
        assert!(fcos.contains(OsFamily::Rhel.ca_path()), "{fcos}");
        let redacted = config(&s, &units(), Variant::Flatcar, Secrets::Redact);
        let plain: String = redacted.clone();
        assert!(!plain.contains(NASTY_PASSWORD));
        let redacted: Value = serde_json::from_str(&redacted).unwrap();
        assert!(!decode(
            redacted["storage"]["files"][1]["contents"]["source"]
                .as_str()
                .unwrap()
        )
        .contains("p%%2540ss"));
    }

    /// Butane's YAML, translated by Butane's documented rules for these
    /// fields (variant/version to the Ignition version, `contents.inline` to
    /// a `data:` URL), is exactly the Ignition config, which
    /// `ignition-validate` accepts.
    #[test]
    fn butane_translates_to_the_ignition_config() {
        for variant in [Variant::Flatcar, Variant::Fcos] {
            let s = with_ca();
            let text = butane(&s, &units(), variant, Secrets::Include);
            let mut parsed: Value = serde_yaml_ng::from_str(&text).unwrap();
            let object = parsed.as_object_mut().unwrap();
            assert_eq!(
                (
                    object.remove("variant").unwrap(),
                    object.remove("version").unwrap()
                ),
                (json!(variant.butane().0), json!(variant.butane().1))
            );
            object.insert("ignition".into(), json!({"version": IGNITION_VERSION}));
            for file in object["storage"]["files"].as_array_mut().unwrap() {
                let inline = file["contents"]["inline"].as_str().unwrap().to_owned();
                file["contents"] =
                    json!({"source": format!("data:;base64,{}", STANDARD.encode(inline))});
            }
            let expected: Value =
                serde_json::from_str(&config(&s, &units(), variant, Secrets::Include)).unwrap();
            assert_eq!(parsed, expected);
        }
    }

    #[test]
    fn golden_files() {
        golden(
            "ignition/config.ign",
            &config(&settings(), &units(), Variant::Flatcar, Secrets::Include),
        );
        golden(
            "ignition/butane.yaml",
            &butane(&settings(), &units(), Variant::Fcos, Secrets::Redact),
        );
    }
}
