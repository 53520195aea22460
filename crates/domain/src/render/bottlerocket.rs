//! Bottlerocket: `settings.network` (`https-proxy`, `no-proxy`) as TOML user
//! data and as the JSON of `apiclient set --json`, and the CA as a
//! `settings.pki` bundle.
//!
//! The settings model (bottlerocket-os/bottlerocket v1.20.0,
//! `sources/models/src/lib.rs`, `NetworkSettings`; field names kebab-case and
//! unknown fields refused, `sources/models/model-derive/src/lib.rs`) has
//! `https-proxy: Url` and `no-proxy: Vec<SingleLineString>`, and no
//! `http-proxy`: the API refuses the whole input with one. `Url`
//! (`sources/models/modeled-types/src/shared.rs`) is what `url::Url` parses,
//! with or without a scheme, userinfo included; `SingleLineString` refuses
//! any line terminator (`\n`, `\r`, VT, FF, NEL, U+2028, U+2029).
//! `settings.pki.<Identifier>` is a `PemCertificate` (`data`: base64 of PEM
//! certificates, `trusted`), the identifier ASCII letters, digits and `-`.
//!
//! Who reads them (bottlerocket-os/bottlerocket-core-kit v3.1.1): the
//! `proxy-env` template (`packages/release/proxy-env`) writes
//! `/etc/network/proxy.env`, `HTTPS_PROXY`/`https_proxy` and
//! `NO_PROXY`/`no_proxy` = each `no-proxy` entry followed by `,`, then
//! `localhost,127.0.0.1`, the host of `settings.kubernetes.api-server` and
//! `.` + `settings.kubernetes.cluster-domain`; containerd, the kubelet,
//! Docker, the ECS agent and host-containerd (all Go) read that file
//! (`EnvironmentFile=` of their units in bottlerocket v1.20.0 `packages/`),
//! so the list is rendered in the Go dialect: the merged list as it is.
//! Bottlerocket's own Rust clients read the same values (`sundog`,
//! `updog`, `pluto`). An entry holding a `,` would be split by that
//! template. Nothing sets `HTTP_PROXY`: plain-HTTP destinations go direct.
//! `pluto` (`sources/api/pluto/src/proxy.rs`) authenticates with the
//! user and password as `url::Url` returns them, still percent-encoded,
//! which the docs tell.

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::{shell, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering};
use crate::redact::quoted;
use crate::{Finding, InputField, Location};

/// The `settings.pki` bundle that holds the proxy's CA.
pub const PKI_NAME: &str = "clusterproxy-proxy-ca";

/// Bottlerocket: no options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bottlerocket;

/// What a Bottlerocket node is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BottlerocketSettings {
    /// TOML user data: `[settings.network]` and, with a CA,
    /// `[settings.pki.clusterproxy-proxy-ca]`.
    pub user_data: String,
    /// The same settings as the JSON `apiclient set --json` takes.
    pub apiclient_json: String,
    /// `apiclient set --json '<apiclient_json>'`, quoted for a POSIX shell.
    pub apiclient_command: String,
}

/// The line terminators `SingleLineString` refuses.
const LINE_TERMINATORS: [char; 7] = [
    '\n', '\r', '\u{000B}', '\u{000C}', '\u{0085}', '\u{2028}', '\u{2029}',
];

impl Renderer for Bottlerocket {
    type Output = BottlerocketSettings;

    const MODULE: &'static str = "bottlerocket";

    fn sample() -> Self {
        Bottlerocket
    }

    fn render(&self, input: Input) -> Rendering<BottlerocketSettings> {
        let settings = input.settings;
        let findings = validate(settings);
        let (Some(https), true) = (&settings.https_proxy, findings.is_empty()) else {
            return Err(findings);
        };
        let https = ProxySettings::url(https, input.secrets);
        let ca = settings
            .trusted_ca
            .as_ref()
            .map(|ca| base64::engine::general_purpose::STANDARD.encode(ca.to_pem()));
        let mut network = Map::new();
        network.insert("https-proxy".into(), https.clone().into());
        network.insert("no-proxy".into(), settings.no_proxy.clone().into());
        let mut root = Map::new();
        root.insert("network".into(), Value::Object(network));
        if let Some(data) = &ca {
            root.insert(
                "pki".into(),
                json!({ PKI_NAME: { "data": data, "trusted": true } }),
            );
        }
        let apiclient_json = json!({ "settings": root }).to_string();
        let mut user_data = format!(
            "[settings.network]\nhttps-proxy = {}\nno-proxy = [{}]\n",
            toml_string(&https),
            settings
                .no_proxy
                .iter()
                .map(|entry| toml_string(entry))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if let Some(data) = &ca {
            user_data.push_str(&format!(
                "\n[settings.pki.{PKI_NAME}]\ndata = {}\ntrusted = true\n",
                toml_string(data)
            ));
        }
        Ok(Rendered::new(BottlerocketSettings {
            apiclient_command: format!("apiclient set --json {}", shell::quote(&apiclient_json)),
            apiclient_json,
            user_data,
        }))
    }

    /// The node's user data and the `apiclient` settings, both read back by
    /// the `bottlerocket` import kind, which takes no CA from them.
    fn held(&self, output: &BottlerocketSettings) -> Held {
        Held::Files(vec![
            HeldFile::new(
                "user-data.toml",
                "bottlerocket",
                output.user_data.clone(),
                false,
            ),
            HeldFile::new(
                "settings.json",
                "bottlerocket",
                output.apiclient_json.clone(),
                false,
            ),
        ])
    }
}

/// A TOML basic string: JSON's string escapes (`\"`, `\\`, `\n`, `\uXXXX`
/// for control characters) are TOML's too; DEL, which JSON leaves as it is
/// and TOML refuses raw, is escaped as well.
fn toml_string(text: &str) -> String {
    serde_json::Value::from(text)
        .to_string()
        .replace('\u{7f}', "\\u007F")
}

/// Bottlerocket's rules: `https-proxy` is its one proxy (an `http_proxy`
/// other than it has nowhere to go), and each `no-proxy` entry is one line
/// without a `,`.
fn validate(settings: &ProxySettings) -> Vec<Finding> {
    let mut findings = Vec::new();
    if settings.https_proxy.is_none() {
        findings.push(Finding::error(
            InputField::HttpsProxy,
            "Bottlerocket needs https-proxy",
            "Bottlerocket's one proxy setting is `settings.network.https-proxy`: set `https_proxy`.",
        ));
    }
    if let Some(http) = &settings.http_proxy {
        if settings.https_proxy.as_ref() != Some(http) {
            findings.push(Finding::error(
                InputField::HttpProxy,
                "Bottlerocket has no http-proxy setting",
                "Bottlerocket sets HTTPS_PROXY alone, from `settings.network.https-proxy`, and its API refuses an `http-proxy`: plain-HTTP destinations go direct. Leave `http_proxy` unset, or equal to `https_proxy`.",
            ));
        }
    }
    for (index, entry) in settings.no_proxy.iter().enumerate() {
        let why = if entry.contains(LINE_TERMINATORS) {
            "holds a line break, which Bottlerocket's settings model refuses in `no-proxy` (one line per entry)"
        } else if entry.contains(',') {
            "holds a `,`, where Bottlerocket's proxy.env template splits NO_PROXY"
        } else {
            continue;
        };
        findings.push(Finding::error(
            Location::element(InputField::Merged, index),
            "NO_PROXY entry Bottlerocket refuses",
            format!("Entry {} of the merged list {why}.", quoted(entry)),
        ));
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::Cluster;
    use crate::render::openshift::tests::fixed_ca;
    use crate::render::tests::{golden, settings, NASTY_PASSWORD};
    use crate::render::Secrets;

    /// `settings.network` as Bottlerocket's model declares it: kebab-case,
    /// unknown fields refused.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Network {
        https_proxy: String,
        no_proxy: Vec<String>,
    }

    /// `settings.pki.<name>`.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Pem {
        data: String,
        trusted: bool,
    }

    /// The settings this renderer writes, and nothing else.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Settings {
        network: Network,
        #[serde(default)]
        pki: std::collections::BTreeMap<String, Pem>,
    }

    /// A user data or `apiclient` document.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Document {
        settings: Settings,
    }

    /// `settings()` with Bottlerocket's one proxy.
    fn https_only() -> ProxySettings {
        ProxySettings {
            http_proxy: None,
            ..settings()
        }
    }

    fn render(settings: &ProxySettings, secrets: Secrets) -> Rendering<BottlerocketSettings> {
        let cluster = Cluster::default();
        Bottlerocket.render(Input {
            settings,
            cluster: &cluster,
            secrets,
        })
    }

    /// The TOML user data parses with the `toml` crate, and it and the
    /// `apiclient` JSON to the settings model's shape, with the proxy (and
    /// its percent-encoded credentials) and the merged list as a list.
    #[test]
    fn renders_user_data_and_apiclient_json() {
        let s = https_only();
        let out = render(&s, Secrets::Include).unwrap().output;
        golden("bottlerocket/user-data.toml", &out.user_data);
        golden("bottlerocket/apiclient.json", &out.apiclient_json);
        let toml: Document = toml::from_str(&out.user_data).unwrap();
        let json: Document = serde_json::from_str(&out.apiclient_json).unwrap();
        for document in [&toml, &json] {
            let network = &document.settings.network;
            assert_eq!(network.no_proxy, s.no_proxy);
            assert_eq!(
                network.https_proxy,
                s.https_proxy.as_ref().unwrap().to_secret_string()
            );
            assert!(network.https_proxy.contains("p%2540ss"));
            assert!(document.settings.pki.is_empty());
        }
        assert_eq!(
            out.apiclient_command,
            format!("apiclient set --json '{}'", out.apiclient_json)
        );
        let redacted = render(&s, Secrets::Redact).unwrap().output;
        for text in [
            &redacted.user_data,
            &redacted.apiclient_json,
            &redacted.apiclient_command,
        ] {
            assert!(!text.contains("p%2540ss") && !text.contains(NASTY_PASSWORD));
        }
    }

    /// With a CA, a trusted `settings.pki` bundle holds it, base64 of the
    /// PEM, in both forms.
    #[test]
    fn the_ca_is_a_trusted_pki_bundle() {
        let s = ProxySettings {
            trusted_ca: Some(fixed_ca()),
            ..https_only()
        };
        let out = render(&s, Secrets::Redact).unwrap().output;
        golden("bottlerocket/user-data-with-ca.toml", &out.user_data);
        let toml: Document = toml::from_str(&out.user_data).unwrap();
        let json: Document = serde_json::from_str(&out.apiclient_json).unwrap();
        for document in [toml, json] {
            let pem = &document.settings.pki[PKI_NAME];
            assert!(pem.trusted);
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(&pem.data)
                .unwrap();
            assert_eq!(decoded, fixed_ca().to_pem().into_bytes());
        }
        assert!(PKI_NAME
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }

    /// An `http_proxy` equal to `https_proxy` is accepted (plain HTTP goes
    /// direct, as the docs say); another one, or none for HTTPS, is an
    /// error on the input; every error is returned.
    #[test]
    fn refuses_a_second_proxy_and_entries_bottlerocket_refuses() {
        let mut same = https_only();
        same.http_proxy = same.https_proxy.clone();
        assert!(render(&same, Secrets::Include).is_ok());
        let findings = render(&settings(), Secrets::Include).unwrap_err();
        assert_eq!(
            findings.iter().map(|f| f.location).collect::<Vec<_>>(),
            [InputField::HttpProxy.into()]
        );
        let mut http_only = settings();
        http_only.https_proxy = None;
        http_only.no_proxy = vec![
            "a.example".to_owned(),
            "b.example\u{2028}c".to_owned(),
            "d.example,e.example".to_owned(),
            "f\rg".to_owned(),
        ];
        let findings = render(&http_only, Secrets::Include).unwrap_err();
        assert_eq!(
            findings.iter().map(|f| f.location).collect::<Vec<_>>(),
            [
                InputField::HttpsProxy.into(),
                InputField::HttpProxy.into(),
                Some(Location::element(InputField::Merged, 1)),
                Some(Location::element(InputField::Merged, 2)),
                Some(Location::element(InputField::Merged, 3)),
            ]
        );
    }

    /// Any entry text is a TOML string the `toml` crate reads back as it
    /// was: quotes, backslashes, control characters and DEL.
    #[test]
    fn toml_strings_read_back() {
        for text in ["a\"b\\c", "tab\there", "\u{1}\u{7f}x", "ünï"] {
            let document = format!("v = {}\n", toml_string(text));
            let table: toml::Table = toml::from_str(&document).unwrap();
            assert_eq!(table["v"].as_str(), Some(text), "{document}");
        }
    }
}
