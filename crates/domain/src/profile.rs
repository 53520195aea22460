//! Proxy profiles: the effective settings of an installation, their content
//! fingerprint and the revision counter that moves only when they change.

use std::fmt::Write as _;

use super::no_proxy::{merge, MergeOptions, Source};
use super::proxy_url::{ProxyCredentials, ProxyUrl};
use super::trusted_ca::TrustedCa;
use super::{Finding, InputField};

/// The non-secret settings that decide how a cluster reaches the proxy: all
/// a profile's fingerprint covers. The password is deliberately absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublicSettings<'a> {
    /// HTTP proxy URL without credentials.
    pub http_proxy: Option<&'a str>,
    /// HTTPS proxy URL without credentials.
    pub https_proxy: Option<&'a str>,
    /// Proxy user name (shown in plans anyway).
    pub username: Option<&'a str>,
    /// Normalised installation-wide NO_PROXY entries (order does not count).
    pub no_proxy: &'a [String],
    /// Trusted CA bundle in canonical PEM.
    pub trusted_ca: Option<&'a str>,
}

/// Format version of the fingerprint input; bump only together with a state
/// upgrade, because every stored fingerprint would change. Version 1 covered
/// the URLs with their credentials, which let anyone who saw a plan check a
/// password guess offline; version 2 covers no secret.
const FINGERPRINT_FORMAT: &str = "clusterproxy-profile-v2";

/// SHA-256 (lowercase hex) of an unambiguous encoding of the public
/// settings: every field is length-prefixed, so no two different settings
/// share an input, and the NO_PROXY entries are sorted, so their order does
/// not count. No secret enters it: a fingerprint helps no one check a guess.
pub fn fingerprint(settings: &PublicSettings<'_>) -> String {
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
    field("username", settings.username);
    let mut entries: Vec<&str> = settings.no_proxy.iter().map(String::as_str).collect();
    entries.sort_unstable();
    field("no_proxy_count", Some(&entries.len().to_string()));
    for entry in entries {
        field("no_proxy", Some(entry));
    }
    field("trusted_ca", settings.trusted_ca);
    hex(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &input).as_ref())
}

/// PBKDF2-HMAC-SHA256 iterations of a [`PasswordVerifier`]: OWASP's
/// Password Storage Cheat Sheet recommendation for that function (600,000).
const VERIFIER_ITERATIONS: u32 = 600_000;

/// The most iterations a stored verifier may ask for, so that a tampered
/// private state cannot make a plan hang.
const MAX_VERIFIER_ITERATIONS: u32 = 10 * VERIFIER_ITERATIONS;

/// A salted, deliberately slow verifier of a password (PBKDF2-HMAC-SHA256,
/// random 16-byte salt): it answers "is this the same password" and nothing
/// cheaper. Kept where Terraform never shows it (a resource's private state)
/// for the first plan after an import, which stores no password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordVerifier {
    iterations: u32,
    salt: [u8; 16],
    hash: [u8; 32],
}

impl PasswordVerifier {
    /// A verifier of `password` with a fresh random salt.
    pub fn new(password: &str) -> Self {
        let mut salt = [0; 16];
        aws_lc_rs::rand::fill(&mut salt).expect("the system random source works");
        Self {
            iterations: VERIFIER_ITERATIONS,
            salt,
            hash: pbkdf2_sha256(password, &salt, VERIFIER_ITERATIONS),
        }
    }

    /// Whether `password` is the verified one (compared in constant time).
    pub fn matches(&self, password: &str) -> bool {
        let hash = pbkdf2_sha256(password, &self.salt, self.iterations);
        aws_lc_rs::constant_time::verify_slices_are_equal(&hash, &self.hash).is_ok()
    }

    /// The verified password when `candidate` is it percent-encoded, as a
    /// proxy URL's user info writes it (`S3cr3t%23Bank` for
    /// `S3cr3t#Bank`): its decoding differs from it and matches. `None`
    /// otherwise, after one verification at most (none when nothing
    /// decodes).
    pub fn decoded_match(&self, candidate: &str) -> Option<String> {
        let decoded = percent_encoding::percent_decode_str(candidate)
            .decode_utf8()
            .ok()?;
        (decoded != candidate && self.matches(&decoded)).then(|| decoded.into_owned())
    }

    /// `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>`.
    pub fn encode(&self) -> String {
        format!(
            "pbkdf2-sha256${}${}${}",
            self.iterations,
            hex(&self.salt),
            hex(&self.hash)
        )
    }

    /// Reads what [`PasswordVerifier::encode`] wrote; `None` for anything
    /// else, or for more than ten times the iterations it is made with.
    pub fn decode(text: &str) -> Option<Self> {
        let mut parts = text.split('$');
        let (Some("pbkdf2-sha256"), Some(iterations), Some(salt), Some(hash), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let iterations = iterations
            .parse()
            .ok()
            .filter(|n| (1..=MAX_VERIFIER_ITERATIONS).contains(n))?;
        Some(Self {
            iterations,
            salt: unhex(salt)?,
            hash: unhex(hash)?,
        })
    }
}

/// PBKDF2-HMAC-SHA256 of `password` with one 32-byte block of output (RFC
/// 8018 section 5.2: T1 = U1 xor ... xor Uc, U1 = HMAC(P, S || INT(1)),
/// Uj = HMAC(P, Uj-1)), computed a round at a time so that it stops at once
/// when its request is cancelled (up to [`MAX_VERIFIER_ITERATIONS`] take
/// seconds): a cancelled request's result is discarded.
fn pbkdf2_sha256(password: &str, salt: &[u8], iterations: u32) -> [u8; 32] {
    /// Rounds between two looks at the cancellation flag (a few ms).
    const ROUNDS_PER_CHECK: u32 = 4096;
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, password.as_bytes());
    let mut first = aws_lc_rs::hmac::Context::with_key(&key);
    first.update(salt);
    first.update(&1u32.to_be_bytes());
    let mut block = [0; 32];
    block.copy_from_slice(first.sign().as_ref());
    let mut output = block;
    for round in 1..iterations {
        if round % ROUNDS_PER_CHECK == 0 && clusterproxy_cancel::requested() {
            break;
        }
        let next = aws_lc_rs::hmac::sign(&key, &block);
        block.copy_from_slice(next.as_ref());
        output
            .iter_mut()
            .zip(block)
            .for_each(|(out, byte)| *out ^= byte);
    }
    output
}

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// The `N` bytes lowercase hex `text` spells, if it spells exactly that.
fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut bytes = [0; N];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(bytes)
}

/// What a stored profile holds about its revision: the counter, the public
/// fingerprint and the proxy URLs with credentials (secret; only compared
/// for equality, never hashed or shown).
#[derive(Debug, Clone, Copy)]
pub struct StoredRevision<'a> {
    /// The stored revision.
    pub revision: i64,
    /// The stored fingerprint.
    pub fingerprint: &'a str,
    /// The stored HTTP proxy URL with credentials.
    pub http_proxy_url: Option<&'a str>,
    /// The stored HTTPS proxy URL with credentials.
    pub https_proxy_url: Option<&'a str>,
    /// The stored `password_wo_version` when the stored password was
    /// write-only (the URLs then hold no credentials).
    pub write_only_version: Option<i64>,
    /// The verifier of an imported password, which the stored URLs then
    /// lack: the credentials are the same when it matches the password.
    pub imported_password: Option<&'a PasswordVerifier>,
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
    /// Fingerprint of the public settings (see [`fingerprint`]).
    pub fingerprint: String,
}

impl Profile {
    /// Validates and normalises; findings name the input (and element).
    pub fn new(input: &ProfileInput) -> Result<Self, Vec<Finding>> {
        let mut findings = Vec::new();
        let mut present = |at: InputField, field: &str, v: &Option<String>| match v.as_deref() {
            Some(text) if text.trim().is_empty() => {
                findings.push(Finding::error(
                    at,
                    "Empty value",
                    format!("`{field}` is set to an empty string. Leave it unset (null) when there is none: an empty value is never taken as unset."),
                ));
                None
            }
            other => other.map(str::to_owned),
        };
        let http_text = present(InputField::HttpProxy, "http_proxy", &input.http_proxy);
        let https_text = present(InputField::HttpsProxy, "https_proxy", &input.https_proxy);
        let username = present(InputField::Username, "username", &input.username);
        let password = present(InputField::Password, "password", &input.password);
        let ca_text = present(InputField::TrustedCa, "trusted_ca", &input.trusted_ca);
        let credentials =
            ProxyCredentials::new(&username.unwrap_or_default(), &password.unwrap_or_default())
                .unwrap_or_else(|f| {
                    findings.push(f);
                    None
                });
        let mut parse = |at: InputField, text: Option<String>| {
            text.and_then(|t| match ProxyUrl::parse(at, &t) {
                Ok(url) => Some(url.with_credentials(credentials.clone())),
                Err(f) => {
                    findings.push(f);
                    None
                }
            })
        };
        let http_proxy = parse(InputField::HttpProxy, http_text);
        let https_proxy = parse(InputField::HttpsProxy, https_text).or_else(|| http_proxy.clone());
        if http_proxy.is_none() && https_proxy.is_none() && findings.is_empty() {
            findings.push(Finding::error(
                InputField::HttpProxy,
                "No proxy configured",
                "Set `http_proxy`, `https_proxy` or both.",
            ));
        }
        let trusted_ca =
            ca_text.and_then(|pem| TrustedCa::parse(&pem).map_err(|f| findings.push(f)).ok());
        let options = MergeOptions::default();
        let no_proxy = match merge(
            &[Source::list(
                InputField::Installation,
                input.no_proxy.clone(),
            )],
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
        let plain = |u: &Option<ProxyUrl>| u.as_ref().map(ProxyUrl::to_plain_string);
        let (http_plain, https_plain) = (plain(&http_proxy), plain(&https_proxy));
        let username = http_proxy
            .as_ref()
            .or(https_proxy.as_ref())
            .and_then(ProxyUrl::credentials)
            .map(ProxyCredentials::username);
        let ca_pem = trusted_ca.as_ref().map(TrustedCa::to_pem);
        let fingerprint = fingerprint(&PublicSettings {
            http_proxy: http_plain.as_deref(),
            https_proxy: https_plain.as_deref(),
            username,
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

    /// The HTTP and HTTPS proxy URLs with credentials (secret).
    pub fn secret_urls(&self) -> [Option<String>; 2] {
        [&self.http_proxy, &self.https_proxy].map(|u| u.as_ref().map(ProxyUrl::to_secret_string))
    }

    /// The proxy credentials: the HTTP proxy's, else the HTTPS proxy's.
    pub fn credentials(&self) -> Option<&ProxyCredentials> {
        self.http_proxy
            .as_ref()
            .or(self.https_proxy.as_ref())
            .and_then(ProxyUrl::credentials)
    }

    /// The revision of these settings: 1 for a new profile, the stored one
    /// while neither the fingerprint nor the credentials changed, one more
    /// otherwise. The credentials are compared with the stored URLs, never
    /// through a digest. A stored revision that is not positive, or one that
    /// cannot be incremented, is an error on `revision`.
    ///
    /// `write_only_version` is the version of a write-only password (this
    /// profile's credentials then hold that password, which is stored
    /// nowhere): between two write-only passwords only the version counts;
    /// from a stored password to a write-only one the credentials are
    /// compared as always, so that moving to write-only with the same
    /// password keeps the revision.
    pub fn revision(
        &self,
        stored: Option<&StoredRevision<'_>>,
        write_only_version: Option<i64>,
    ) -> Result<i64, Finding> {
        let Some(stored) = stored else {
            return Ok(1);
        };
        if stored.revision < 1 {
            return Err(Finding::error(
                InputField::Revision,
                "Invalid stored revision",
                format!("The stored revision is {}; a revision is a positive integer. Remove the resource from the state and import it again.", stored.revision),
            ));
        }
        let same_credentials = match (stored.write_only_version, write_only_version) {
            (Some(before), Some(now)) => before == now,
            _ if stored.imported_password.is_some() => {
                let password = self.credentials().and_then(ProxyCredentials::password);
                // No password yet: the imported one still stands (the
                // fingerprint covers the user name).
                password.is_none_or(|p| stored.imported_password.is_some_and(|v| v.matches(p)))
            }
            _ => {
                let [http, https] = self.secret_urls();
                stored.http_proxy_url == http.as_deref()
                    && stored.https_proxy_url == https.as_deref()
            }
        };
        let unchanged = stored.fingerprint == self.fingerprint && same_credentials;
        if unchanged {
            return Ok(stored.revision);
        }
        stored.revision.checked_add(1).ok_or_else(|| {
            Finding::error(
                InputField::Revision,
                "Revision overflow",
                format!("The stored revision {} is the largest there is; it cannot move again. Replace the profile (a new name starts at 1).", stored.revision),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Location;

    fn settings<'a>(no_proxy: &'a [String], http: Option<&'a str>) -> PublicSettings<'a> {
        PublicSettings {
            http_proxy: http,
            no_proxy,
            ..PublicSettings::default()
        }
    }

    fn input(password: &str) -> ProfileInput {
        ProfileInput {
            http_proxy: Some("http://proxy.corp.example:3128".into()),
            username: Some("svc-k8s".into()),
            password: Some(password.into()),
            no_proxy: vec!["b.example".into(), "10.0.0.0/8".into()],
            ..ProfileInput::default()
        }
    }

    fn stored<'a>(
        revision: i64,
        profile: &'a Profile,
        urls: &'a [Option<String>; 2],
    ) -> StoredRevision<'a> {
        StoredRevision {
            revision,
            fingerprint: &profile.fingerprint,
            http_proxy_url: urls[0].as_deref(),
            https_proxy_url: urls[1].as_deref(),
            write_only_version: None,
            imported_password: None,
        }
    }

    #[test]
    fn password_verifier_matches_only_its_password_and_reveals_nothing() {
        let verifier = PasswordVerifier::new("s3cret pw");
        assert!(verifier.matches("s3cret pw"));
        assert!(!verifier.matches("s3cret pw "));
        assert!(!verifier.matches(""));
        let encoded = verifier.encode();
        assert!(encoded.starts_with("pbkdf2-sha256$600000$"), "{encoded}");
        assert!(!encoded.contains("s3cret"));
        assert_eq!(PasswordVerifier::decode(&encoded), Some(verifier.clone()));
        // Salted: the same password never gives the same verifier twice.
        assert_ne!(PasswordVerifier::new("s3cret pw").encode(), encoded);
        let bad = [
            String::new(),
            encoded.replace("pbkdf2-sha256", "sha256"),
            encoded.replace("$600000$", "$0$"),
            encoded.replace("$600000$", "$4000000000$"),
            format!("{encoded}$x"),
            encoded[..encoded.len() - 2].to_owned(),
            format!("{}zz", &encoded[..encoded.len() - 2]),
        ];
        for text in bad {
            assert_eq!(PasswordVerifier::decode(&text), None, "{text}");
        }
    }

    /// The imported password keeps the revision when it is given again, and
    /// while none is given (it still stands: what generated configuration
    /// holds); another password moves it.
    #[test]
    fn an_imported_password_keeps_the_revision_only_when_it_matches() {
        let profile = Profile::new(&input("pw")).unwrap();
        let imported = Profile::new(&ProfileInput {
            password: None,
            ..input("pw")
        })
        .unwrap();
        let urls = imported.secret_urls();
        let verifier = PasswordVerifier::new("pw");
        let stored = StoredRevision {
            imported_password: Some(&verifier),
            ..stored(3, &profile, &urls)
        };
        assert_eq!(profile.revision(Some(&stored), None), Ok(3));
        assert_eq!(profile.revision(Some(&stored), Some(1)), Ok(3));
        let other = Profile::new(&input("other")).unwrap();
        assert_eq!(other.revision(Some(&stored), Some(1)), Ok(4));
        let none = Profile::new(&ProfileInput {
            password: None,
            ..input("pw")
        })
        .unwrap();
        assert_eq!(none.revision(Some(&stored), None), Ok(3));
    }

    #[test]
    fn fingerprint_is_stable_across_releases() {
        // Expected value computed independently (Python hashlib over the
        // documented length-prefixed encoding, entries sorted). A change here
        // changes every user's fingerprint: never update it without a state
        // upgrade.
        let entries = vec!["10.0.0.0/8".to_owned(), ".corp.example".to_owned()];
        let public = PublicSettings {
            username: Some("svc-k8s"),
            ..settings(&entries, Some("http://proxy.corp.example:3128"))
        };
        assert_eq!(
            fingerprint(&public),
            "a3ed275ce494be3df8ec93076c342ba855200cc72a40a3585b6d2c9c05562ee4"
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
    fn fingerprint_ignores_entry_order() {
        let a = vec!["a.example".to_owned(), "10.0.0.0/8".to_owned()];
        let b = vec!["10.0.0.0/8".to_owned(), "a.example".to_owned()];
        assert_eq!(
            fingerprint(&settings(&a, None)),
            fingerprint(&settings(&b, None))
        );
    }

    /// Nothing public depends on the password: two profiles that differ only
    /// in it share their fingerprint, so a fingerprint cannot confirm a guess.
    #[test]
    fn fingerprint_covers_no_secret() {
        let one = Profile::new(&input("one")).unwrap();
        let two = Profile::new(&input("two")).unwrap();
        assert_eq!(one.fingerprint, two.fingerprint);
        assert_ne!(one.secret_urls(), two.secret_urls());
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
        let same = ProfileInput {
            http_proxy: Some("http://proxy.corp.example:3128".into()),
            no_proxy: vec!["10.1.2.3".into(), "b.example".into()],
            ..input.clone()
        };
        assert_eq!(
            Profile::new(&same).unwrap().fingerprint,
            profile.fingerprint
        );
        let other = ProfileInput {
            username: Some("v".into()),
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
        let located: Vec<_> = errors.iter().map(|f| f.location).collect();
        assert_eq!(
            located,
            [
                Some(InputField::Password.into()),
                Some(InputField::HttpProxy.into()),
                Some(InputField::TrustedCa.into()),
                Some(Location::element(InputField::Installation, 1))
            ]
        );
    }

    /// An empty string is an error on its field, never "unset": an empty
    /// password variable must not give an unauthenticated proxy, and an
    /// empty `http_proxy` is not "no proxy configured".
    #[test]
    fn empty_strings_are_errors_on_their_field() {
        for field in [
            InputField::HttpProxy,
            InputField::HttpsProxy,
            InputField::Username,
            InputField::Password,
            InputField::TrustedCa,
        ] {
            let mut input = input("secret");
            let slot = match field {
                InputField::HttpProxy => &mut input.http_proxy,
                InputField::HttpsProxy => &mut input.https_proxy,
                InputField::Username => &mut input.username,
                InputField::Password => &mut input.password,
                _ => &mut input.trusted_ca,
            };
            *slot = Some(" ".into());
            let errors = Profile::new(&input).unwrap_err();
            assert!(
                errors
                    .iter()
                    .any(|f| f.location == Some(field.into()) && f.summary == "Empty value"),
                "{field:?}: {errors:?}"
            );
            assert!(
                errors.iter().all(|f| f.summary != "No proxy configured"),
                "{field:?}: {errors:?}"
            );
        }
    }

    #[test]
    fn revision_moves_only_on_change_including_the_password() {
        let profile = Profile::new(&input("one")).unwrap();
        let urls = profile.secret_urls();
        assert_eq!(profile.revision(None, None).unwrap(), 1);
        assert_eq!(
            profile
                .revision(Some(&stored(4, &profile, &urls)), None)
                .unwrap(),
            4
        );
        let new_password = Profile::new(&input("two")).unwrap();
        assert_eq!(
            new_password
                .revision(Some(&stored(4, &profile, &urls)), None)
                .unwrap(),
            5
        );
        let mut moved = input("one");
        moved.http_proxy = Some("http://proxy2.corp.example:3128".into());
        let moved = Profile::new(&moved).unwrap();
        assert_eq!(
            moved
                .revision(Some(&stored(4, &profile, &urls)), None)
                .unwrap(),
            5
        );
    }

    /// From a stored password to a write-only one: the same password keeps
    /// the revision (compared with the stored URLs), another moves it;
    /// between write-only passwords only the version counts, and back to a
    /// stored password (the stored URLs hold none) moves it.
    #[test]
    fn revision_with_a_write_only_password_moves_with_its_version() {
        let profile = Profile::new(&input("one")).unwrap();
        let urls = profile.secret_urls();
        let stored_password = stored(4, &profile, &urls);
        assert_eq!(
            profile.revision(Some(&stored_password), Some(1)).unwrap(),
            4
        );
        let other = Profile::new(&input("two")).unwrap();
        assert_eq!(other.revision(Some(&stored_password), Some(1)).unwrap(), 5);
        let plain = [&profile.http_proxy, &profile.https_proxy]
            .map(|u| u.as_ref().map(ProxyUrl::to_plain_string));
        let write_only = StoredRevision {
            write_only_version: Some(1),
            ..stored(4, &profile, &plain)
        };
        assert_eq!(other.revision(Some(&write_only), Some(1)).unwrap(), 4);
        assert_eq!(profile.revision(Some(&write_only), Some(2)).unwrap(), 5);
        assert_eq!(profile.revision(Some(&write_only), None).unwrap(), 5);
    }

    #[test]
    fn revision_rejects_invalid_and_overflowing_counters() {
        let profile = Profile::new(&input("one")).unwrap();
        let urls = profile.secret_urls();
        for bad in [0, -3] {
            let error = profile
                .revision(Some(&stored(bad, &profile, &urls)), None)
                .unwrap_err();
            assert_eq!(
                (error.location, error.summary.as_str()),
                (Some(InputField::Revision.into()), "Invalid stored revision")
            );
        }
        assert_eq!(
            profile
                .revision(Some(&stored(i64::MAX, &profile, &urls)), None)
                .unwrap(),
            i64::MAX
        );
        let changed = Profile::new(&input("two")).unwrap();
        let error = changed
            .revision(Some(&stored(i64::MAX, &profile, &urls)), None)
            .unwrap_err();
        assert_eq!(error.summary, "Revision overflow");
    }

    /// The round-at-a-time PBKDF2 gives what aws-lc's gives, so verifiers
    /// stored by earlier releases still match.
    #[test]
    fn the_verifier_hash_is_pbkdf2_hmac_sha256() {
        for (password, iterations) in [("pw", 1), ("s3cret pw", 4097), ("", 10_000)] {
            let salt = [7u8; 16];
            let mut expected = [0; 32];
            aws_lc_rs::pbkdf2::derive(
                aws_lc_rs::pbkdf2::PBKDF2_HMAC_SHA256,
                std::num::NonZeroU32::new(iterations).unwrap(),
                &salt,
                password.as_bytes(),
                &mut expected,
            );
            assert_eq!(pbkdf2_sha256(password, &salt, iterations), expected);
        }
    }

    /// A cancelled request stops the verifier at its first look at the
    /// flag: what it computed is the hash of that many rounds.
    #[test]
    fn a_cancelled_request_stops_the_verifier() {
        let flag = clusterproxy_cancel::Flag::new();
        flag.cancel();
        let cancelled = clusterproxy_cancel::scope(&flag, || {
            pbkdf2_sha256("pw", &[0; 16], MAX_VERIFIER_ITERATIONS)
        });
        assert_eq!(cancelled, pbkdf2_sha256("pw", &[0; 16], 4096));
    }
}
