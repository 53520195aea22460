//! Proxy profiles: the effective settings of an installation, their content
//! fingerprint and the revision counter that moves only when they change.

use std::fmt::Write as _;

use super::no_proxy::{merge, MergeOptions, Source};
use super::proxy_url::{ProxyCredentials, ProxyUrl};
use super::trusted_ca::TrustedCa;
use super::Finding;

/// The settings that decide how a cluster reaches the proxy. Two profiles
/// with equal effective settings behave the same on every node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EffectiveSettings<'a> {
    /// HTTP proxy URL including credentials.
    pub http_proxy: Option<&'a str>,
    /// HTTPS proxy URL including credentials.
    pub https_proxy: Option<&'a str>,
    /// Normalised installation-wide NO_PROXY entries, in order.
    pub no_proxy: &'a [String],
    /// Trusted CA bundle in canonical PEM.
    pub trusted_ca: Option<&'a str>,
}

/// Format version of the fingerprint input; bump only together with a state
/// upgrade, because every stored fingerprint would change.
const FINGERPRINT_FORMAT: &str = "clusterproxy-profile-v1";

/// SHA-256 (lowercase hex) of an unambiguous encoding of the settings: every
/// field is length-prefixed, so no two different settings share an input.
/// The fingerprint reveals nothing usable about the credentials it covers.
pub fn fingerprint(settings: &EffectiveSettings<'_>) -> String {
    let mut input = Vec::new();
    let mut field = |tag: &str, value: Option<&str>| {
        input.extend_from_slice(tag.as_bytes());
        match value {
            None => input.push(0),
            Some(v) => {
                input.push(1);
                input.extend_from_slice(&(v.len() as u64).to_be_bytes());
                input.extend_from_slice(v.as_bytes());
            }
        }
    };
    field("format", Some(FINGERPRINT_FORMAT));
    field("http_proxy", settings.http_proxy);
    field("https_proxy", settings.https_proxy);
    field("no_proxy_count", Some(&settings.no_proxy.len().to_string()));
    for entry in settings.no_proxy {
        field("no_proxy", Some(entry));
    }
    field("trusted_ca", settings.trusted_ca);
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &input);
    digest
        .as_ref()
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// The revision for settings with `fingerprint`: 1 for a new profile, the
/// prior revision while the fingerprint is unchanged, one more otherwise.
pub fn next_revision(prior: Option<(i64, &str)>, fingerprint: &str) -> i64 {
    match prior {
        None => 1,
        Some((revision, prior_fingerprint)) if prior_fingerprint == fingerprint => revision,
        Some((revision, _)) => revision.saturating_add(1),
    }
}

/// The raw settings of a profile, as configured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileInput {
    /// HTTP proxy URL.
    pub http_proxy: Option<String>,
    /// HTTPS proxy URL (the HTTP proxy when absent).
    pub https_proxy: Option<String>,
    /// Proxy user name.
    pub username: Option<String>,
    /// Proxy password.
    pub password: Option<String>,
    /// Installation-wide NO_PROXY entries.
    pub no_proxy: Vec<String>,
    /// Trusted CA bundle (PEM).
    pub trusted_ca: Option<String>,
}

/// A validated profile: normalised values, fingerprint.
#[derive(Debug, Clone)]
pub struct Profile {
    /// HTTP proxy, credentials applied.
    pub http_proxy: Option<ProxyUrl>,
    /// HTTPS proxy, credentials applied (the HTTP proxy when not set).
    pub https_proxy: Option<ProxyUrl>,
    /// Normalised, de-duplicated installation-wide entries, in order.
    pub no_proxy: Vec<String>,
    /// The parsed CA bundle.
    pub trusted_ca: Option<TrustedCa>,
    /// Content fingerprint of the effective settings.
    pub fingerprint: String,
}

impl Profile {
    /// Validates and normalises; findings name the input field (and index).
    pub fn new(input: &ProfileInput) -> Result<Self, Vec<Finding>> {
        let mut findings = Vec::new();
        let present = |v: &Option<String>| {
            v.as_deref()
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned)
        };
        let credentials = ProxyCredentials::new(
            &present(&input.username).unwrap_or_default(),
            &present(&input.password).unwrap_or_default(),
        )
        .unwrap_or_else(|f| {
            findings.push(f);
            None
        });
        let mut parse = |field: &str, text: Option<String>| {
            text.and_then(|t| match ProxyUrl::parse(field, &t) {
                Ok(url) => Some(url.with_credentials(credentials.clone())),
                Err(f) => {
                    findings.push(f);
                    None
                }
            })
        };
        let http_proxy = parse("http_proxy", present(&input.http_proxy));
        let https_proxy =
            parse("https_proxy", present(&input.https_proxy)).or_else(|| http_proxy.clone());
        if http_proxy.is_none() && https_proxy.is_none() && findings.is_empty() {
            findings.push(Finding::error(
                "http_proxy",
                None,
                "No proxy configured",
                "Set `http_proxy`, `https_proxy` or both.",
            ));
        }
        let trusted_ca = present(&input.trusted_ca).and_then(|pem| {
            TrustedCa::parse("trusted_ca", &pem)
                .map_err(|f| findings.push(f))
                .ok()
        });
        let options = MergeOptions::default();
        let no_proxy = match merge(
            &[Source::list("no_proxy", input.no_proxy.clone())],
            &options,
        ) {
            Ok(merged) => merged.entries.iter().map(ToString::to_string).collect(),
            Err(errors) => {
                findings.extend(errors);
                Vec::new()
            }
        };
        if !findings.is_empty() {
            return Err(findings);
        }
        let secret = |u: &Option<ProxyUrl>| u.as_ref().map(ProxyUrl::to_secret_string);
        let (http_secret, https_secret) = (secret(&http_proxy), secret(&https_proxy));
        let ca_pem = trusted_ca.as_ref().map(TrustedCa::to_pem);
        let fingerprint = fingerprint(&EffectiveSettings {
            http_proxy: http_secret.as_deref(),
            https_proxy: https_secret.as_deref(),
            no_proxy: &no_proxy,
            trusted_ca: ca_pem.as_deref(),
        });
        Ok(Self {
            http_proxy,
            https_proxy,
            no_proxy,
            trusted_ca,
            fingerprint,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings<'a>(no_proxy: &'a [String], http: Option<&'a str>) -> EffectiveSettings<'a> {
        EffectiveSettings {
            http_proxy: http,
            https_proxy: None,
            no_proxy,
            trusted_ca: None,
        }
    }

    #[test]
    fn fingerprint_is_stable_across_releases() {
        // Expected value computed independently (Python hashlib over the
        // documented length-prefixed encoding). A change here changes every
        // user's revision: never update it without a state upgrade.
        let entries = vec!["10.0.0.0/8".to_owned(), ".corp.example".to_owned()];
        assert_eq!(
            fingerprint(&settings(&entries, Some("http://proxy.corp.example:3128"))),
            "93d38ce1b81fb5bc9bfc57c707dc27d708e086ada74bbfe4e0a90ccd32c9c676"
        );
    }

    #[test]
    fn fingerprint_separates_fields_unambiguously() {
        let a = vec!["a,b".to_owned()];
        let b = vec!["a".to_owned(), "b".to_owned()];
        assert_ne!(
            fingerprint(&settings(&a, None)),
            fingerprint(&settings(&b, None))
        );
        let empty: Vec<String> = Vec::new();
        assert_ne!(
            fingerprint(&settings(&empty, None)),
            fingerprint(&settings(&empty, Some("")))
        );
    }

    #[test]
    fn fingerprint_covers_credentials() {
        let empty: Vec<String> = Vec::new();
        assert_ne!(
            fingerprint(&settings(&empty, Some("http://u:one@p:3128"))),
            fingerprint(&settings(&empty, Some("http://u:two@p:3128")))
        );
    }

    #[test]
    fn profile_normalises_and_fingerprints_effective_settings_only() {
        let input = ProfileInput {
            http_proxy: Some("HTTP://Proxy.Corp.Example:3128/".into()),
            username: Some("u".into()),
            password: Some("p w".into()),
            no_proxy: vec!["B.example".into(), "b.example".into(), "10.1.2.3/32".into()],
            ..ProfileInput::default()
        };
        let profile = Profile::new(&input).unwrap();
        assert_eq!(
            profile.http_proxy.as_ref().unwrap().to_secret_string(),
            "http://u:p%20w@proxy.corp.example:3128"
        );
        assert_eq!(profile.https_proxy, profile.http_proxy);
        assert_eq!(profile.no_proxy, ["b.example", "10.1.2.3"]);
        let same = ProfileInput {
            http_proxy: Some("http://proxy.corp.example:3128".into()),
            no_proxy: vec!["b.example".into(), "10.1.2.3".into()],
            ..input.clone()
        };
        assert_eq!(
            Profile::new(&same).unwrap().fingerprint,
            profile.fingerprint
        );
        let other = ProfileInput {
            password: Some("other".into()),
            ..input
        };
        assert_ne!(
            Profile::new(&other).unwrap().fingerprint,
            profile.fingerprint
        );
    }

    #[test]
    fn profile_errors_name_their_field() {
        let input = ProfileInput {
            http_proxy: Some("ftp://x".into()),
            password: Some("p".into()),
            no_proxy: vec!["ok.example".into(), "http://bad".into()],
            trusted_ca: Some("junk".into()),
            ..ProfileInput::default()
        };
        let errors = Profile::new(&input).unwrap_err();
        let located: Vec<_> = errors.iter().map(|f| (f.field.as_str(), f.index)).collect();
        assert_eq!(
            located,
            [
                ("password", None),
                ("http_proxy", None),
                ("trusted_ca", None),
                ("no_proxy", Some(1))
            ]
        );
    }

    #[test]
    fn revision_moves_only_on_change() {
        assert_eq!(next_revision(None, "f"), 1);
        assert_eq!(next_revision(Some((4, "f")), "f"), 4);
        assert_eq!(next_revision(Some((4, "f")), "g"), 5);
    }
}
