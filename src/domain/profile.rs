//! Proxy profiles: the effective settings of an installation, their content
//! fingerprint and the revision counter that moves only when they change.

use std::fmt::Write as _;

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
    /// Trusted CA bundle (PEM) as given.
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
    fn revision_moves_only_on_change() {
        assert_eq!(next_revision(None, "f"), 1);
        assert_eq!(next_revision(Some((4, "f")), "f"), 4);
        assert_eq!(next_revision(Some((4, "f")), "g"), 5);
    }
}
