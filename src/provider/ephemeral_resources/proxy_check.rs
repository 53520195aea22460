//! `ephemeral "clusterproxy_proxy_check"`: sends one request for `url`
//! through the proxy with the given credentials, from the machine that runs
//! Terraform, and reports what happened; by default a refused password, an
//! unreachable proxy or a TLS failure fails the plan. The request itself is
//! in [`probe`]; what its outcome means (results, diagnostic, blamed
//! attribute) is here, in [`Verdict`].

mod probe;

use std::time::Duration;

use crate::domain::profile::{Profile, ProfileInput};
use crate::domain::proxy_url::ProxyUrl;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::ephemeral_resource::{EphemeralResource, Opened};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::{Between, Schema, Validator, WholeNumber};
use crate::framework::value::Value;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::inputs::Settings;

use probe::{Outcome, Probe};

/// The ephemeral resource.
#[derive(Debug, Clone, Copy)]
pub struct ProxyCheck;

/// Default of `timeout`, in seconds.
const DEFAULT_TIMEOUT: i64 = 10;

/// Largest `timeout`, in seconds: a plan waits at most this long per check.
const MAX_TIMEOUT: i64 = 60;

crate::model! {
    /// The configuration.
    pub(crate) struct Config {
        /// A profile's settings with the password merged in.
        pub profile: Maybe<Settings> [optional(
            "The `settings` of a `clusterproxy_profile` with the password merged in (`merge(clusterproxy_profile.x.settings, { password = var.proxy_password })`); replaces `http_proxy`, `https_proxy`, `username`, `password` and `trusted_ca`. A profile whose proxy takes a password (`password_required`) without one merged in is an error: the check would send no password. Its NO_PROXY entries play no part (the check always goes through the proxy). For a rotation gate give the fields directly instead: a check whose inputs are unknown at plan time (the settings of a profile created or replaced in the same plan) is opened only at apply.",
        )
        .sensitive()],
        /// HTTP proxy URL.
        pub http_proxy: Option<String> [optional("Proxy for an `http://` `url`, e.g. `http://proxy.corp.example:3128`.").conflicts_with(&[Self::profile])],
        /// HTTPS proxy URL.
        pub https_proxy: Option<String> [optional("Proxy for an `https://` `url` (reached through a `CONNECT` tunnel); defaults to `http_proxy`.").conflicts_with(&[Self::profile])],
        /// Proxy user name.
        pub username: Option<String> [optional("Proxy user name, sent with `password` in the `Proxy-Authorization` header (basic authentication).").conflicts_with(&[Self::profile])],
        /// Proxy password.
        pub password: Maybe<String> [optional("Proxy password; an ephemeral value (an `ephemeral = true` variable, another ephemeral resource) is welcome: nothing of it is stored or shown. Required with `username`.").sensitive().conflicts_with(&[Self::profile])],
        /// Trusted CA bundle.
        pub trusted_ca: Maybe<String> [optional("PEM bundle of CA certificates trusted, besides Mozilla's root certificates compiled into the provider, for an `https://` proxy and for an `https://` `url` (a proxy that re-signs TLS). The certificate store of the machine is not read: give a corporate CA here.").conflicts_with(&[Self::profile])],
        /// The destination.
        pub url: String [required("The `http://` or `https://` URL requested through the proxy with `GET`, e.g. `https://registry-1.docker.io/v2/` or an internal mirror the nodes pull from. It is always requested through the proxy: NO_PROXY lists play no part, the check is about the proxy. Redirects are not followed (their status is reported).").validator(HttpUrl)],
        /// Seconds to wait.
        pub timeout: Option<i64> [with_default(
            Value::int(DEFAULT_TIMEOUT),
            "Seconds the check may take, connection to the proxy included: a proxy that does not answer in time fails the check. Defaults to 10.",
        )
        .validator(WholeNumber)
        .validator(Between(1, MAX_TIMEOUT))],
        /// Whether a failure fails the plan.
        pub fail_on_error: Option<bool> [with_default(
            Value::bool(true),
            "Whether a failed check (a proxy that refuses the credentials with 407, cannot be reached, does not answer within `timeout`, fails TLS, or refuses the tunnel) is an error that fails the plan. Defaults to true. Set it to false where the machine that runs Terraform cannot reach the proxy (a pipeline outside the corporate network): the results are reported with a warning instead.",
        )],
    }
}

crate::model! {
    pub(crate) struct Results {
        /// The proxy answered, not with 407.
        pub authenticated: bool [computed("True when the proxy answered and not with 407 (Proxy Authentication Required): it took the credentials, or needs none. False when it refused them or did not answer.")],
        /// The HTTP status.
        pub status_code: Option<i64> [computed("The HTTP status of the answer: the destination's (through the proxy), or 407 when the proxy refused the credentials, also for the tunnel of an `https://` `url`. Null when no answer came (`error` says why).")],
        /// What went wrong.
        pub error: Option<String> [computed("Null when the check passed; otherwise a category and a short message: `proxy_auth_required`, `proxy_unresolved`, `proxy_unreachable`, `timeout`, `tls`, `tunnel_refused`, `request_failed`. Never the proxy's own answer, never the password.")],
    }
}

/// Accepts only absolute `http://` and `https://` URLs with a host and
/// without user information.
#[derive(Debug, Clone, Copy)]
struct HttpUrl;

impl HttpUrl {
    /// The URL, or why it is refused.
    fn parse(text: &str) -> Result<reqwest::Url, &'static str> {
        let url = reqwest::Url::parse(text.trim()).map_err(|_| "It is no absolute URL.")?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("Its scheme must be `http` or `https`.");
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("It has no host.");
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("It must not carry a user name or password: give them as `username` and `password`, which go to the proxy only.");
        }
        Ok(url)
    }
}

impl Validator for HttpUrl {
    fn description(&self) -> String {
        "an absolute `http://` or `https://` URL without user name or password".to_owned()
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        if let Some(Err(reason)) = value.as_str().map(Self::parse) {
            // The value is not echoed: a URL with a password in it would show it.
            diags.push(Diagnostic::error("Invalid URL", reason).at(path.clone()));
        }
    }
}

impl Config {
    /// Plan-time checks of known values: a user name without a password,
    /// a profile that needs one without it.
    fn validate(&self, diags: &mut Diagnostics) {
        match &self.profile {
            Maybe::Known(settings) if settings.password_required && settings.password.is_none() => {
                diags.push(
                    Diagnostic::error(
                        "Proxy password not given",
                        "The profile's proxy takes a password, which its settings never carry: the check would send none. Merge it in: `profile = merge(clusterproxy_profile.x.settings, { password = var.proxy_password })`.",
                    )
                    .at(AttributePath::attribute(Self::profile)),
                );
            }
            Maybe::Null if self.username.is_some() && self.password.is_null() => {
                diags.push(
                    Diagnostic::error(
                        "Password without value",
                        "`username` is set but `password` is not: the check would send the user name with an empty password. Set `password` (an ephemeral value is welcome).",
                    )
                    .at(AttributePath::attribute(Self::username)),
                );
            }
            _ => {}
        }
    }

    /// Where findings about the proxy settings point.
    fn settings_at(&self) -> SettingsAt {
        if self.profile.is_null() {
            SettingsAt::Renderer
        } else {
            SettingsAt::RendererProfile
        }
    }

    /// The attribute a failure about the proxy setting `name` points at:
    /// that attribute, or `profile` itself (Terraform shows no source for a
    /// path into the object a `merge(...)` builds, only for `profile`).
    fn setting(&self, name: &str) -> AttributePath {
        match self.settings_at() {
            SettingsAt::RendererProfile => AttributePath::attribute(Self::profile),
            _ => AttributePath::attribute(name),
        }
    }

    /// The proxy settings, validated as a profile's are.
    fn resolve(&self, diags: &mut Diagnostics) -> Option<Profile> {
        let input = match self.profile.known() {
            Some(settings) => ProfileInput {
                no_proxy: Vec::new(),
                ..settings.input()
            },
            None => Settings {
                http_proxy: self.http_proxy.clone(),
                https_proxy: self.https_proxy.clone(),
                username: self.username.clone(),
                password: self.password.known().cloned(),
                trusted_ca: self.trusted_ca.clone(),
                ..Settings::default()
            }
            .input(),
        };
        Profile::new(&input)
            .map_err(|findings| {
                let root = AttributePath::root();
                convert::push_findings(&findings, &root, self.settings_at(), diags);
            })
            .ok()
    }
}

/// Whether the configuration sets an https proxy of its own (directly or in
/// the profile), rather than falling back to the http one.
fn own_https_proxy(config: &Config) -> bool {
    match config.profile.known() {
        Some(settings) => settings.https_proxy.is_some(),
        None => config.https_proxy.is_some(),
    }
}

/// What an outcome means: the results, and the diagnostic of a failure
/// with the attribute it points at.
#[derive(Debug, Clone, PartialEq)]
struct Verdict {
    results: Results,
    failure: Option<Failure>,
}

/// A failed check: the diagnostic's summary and detail, and the name of
/// the proxy setting it points at (or `url`).
#[derive(Debug, Clone, PartialEq)]
struct Failure {
    summary: &'static str,
    detail: String,
    at: &'static str,
}

impl Verdict {
    /// The meaning of `outcome` for a request through `proxy` (named by
    /// its setting `proxy_at`) with a timeout of `seconds`.
    fn of(outcome: &Outcome, proxy: &ProxyUrl, proxy_at: &'static str, seconds: i64) -> Self {
        let shown = proxy.to_plain_string();
        let credentials_at = if proxy.credentials().is_some() {
            Settings::password
        } else {
            Settings::username
        };
        let (authenticated, status, category, summary, detail, at) = match outcome {
            Outcome::Answered(status) if *status != 407 => {
                return Self {
                    results: Results {
                        authenticated: true,
                        status_code: Some(i64::from(*status)),
                        error: None,
                    },
                    failure: None,
                }
            }
            Outcome::Answered(_) | Outcome::TunnelAuthRequired => (
                false,
                Some(407),
                "proxy_auth_required",
                "Proxy refused the credentials",
                format!("The proxy {shown} answered 407 (Proxy Authentication Required): it does not accept the user name and password given (or requires some and none were given)."),
                credentials_at,
            ),
            Outcome::TunnelRefused => (
                true,
                None,
                "tunnel_refused",
                "Proxy refused the tunnel",
                format!("The proxy {shown} took the credentials but refused to open a tunnel (CONNECT) to the destination: its access rules deny it, or it cannot reach it."),
                "url",
            ),
            Outcome::TimedOut => (
                false,
                None,
                "timeout",
                "Proxy check timed out",
                format!("No answer through the proxy {shown} within {seconds} s (`timeout`)."),
                proxy_at,
            ),
            Outcome::Unresolved => (
                false,
                None,
                "proxy_unresolved",
                "Proxy name not resolved",
                format!("The name of the proxy {shown} could not be resolved to an address here: check its spelling, and that the machine that runs Terraform can resolve it."),
                proxy_at,
            ),
            Outcome::Unreachable(kind) => (
                false,
                None,
                "proxy_unreachable",
                "Proxy unreachable",
                match kind {
                    Some(kind) => format!("Could not connect to the proxy {shown}: {kind}."),
                    None => format!("Could not connect to the proxy {shown}."),
                },
                proxy_at,
            ),
            Outcome::Tls { proxy: true, reason } => (
                false,
                None,
                "tls",
                "TLS with the proxy failed",
                format!("The TLS handshake with the proxy {shown} failed: {}. Give the CA that signs its certificate as `trusted_ca`.", reason.describe()),
                Settings::trusted_ca,
            ),
            Outcome::Tls { proxy: false, reason } => (
                true,
                None,
                "tls",
                "TLS with the destination failed",
                format!("The proxy {shown} opened the tunnel, but the TLS handshake with the destination failed: {}. A proxy that re-signs TLS needs its CA as `trusted_ca`.", reason.describe()),
                Settings::trusted_ca,
            ),
            Outcome::BadTrustedCa => (
                false,
                None,
                "tls",
                "Unusable trusted CA",
                "A certificate of `trusted_ca` is not accepted as a trust anchor.".to_owned(),
                Settings::trusted_ca,
            ),
            Outcome::Failed | Outcome::Cancelled => (
                false,
                None,
                "request_failed",
                "Proxy check failed",
                format!("The request through the proxy {shown} failed."),
                proxy_at,
            ),
        };
        Self {
            results: Results {
                authenticated,
                status_code: status,
                error: Some(format!("{category}: {summary}")),
            },
            failure: Some(Failure {
                summary,
                detail,
                at,
            }),
        }
    }
}

/// The plan-time checks of a configuration (known values only), as the
/// ephemeral resource and the action run them.
pub(crate) fn validate(config: &Value, diags: &mut Diagnostics) {
    if let Some(config) = Config::get_planned(config, diags) {
        config.validate(diags)
    }
}

impl EphemeralResource for ProxyCheck {
    fn type_name(&self) -> &'static str {
        "clusterproxy_proxy_check"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            include_str!("proxy_check.md"),
            model::attributes::<Config, Results>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        validate(config, diags);
    }

    fn open(&self, value: &Value, diags: &mut Diagnostics) -> Option<Opened> {
        // The framework ran `validate` (and stopped on its errors) already.
        let config = Config::get(value, diags)?;
        let results = check(&config, &mut |_| {}, diags)?;
        Some(Opened {
            result: model::computed(results),
            renew_at: None,
            private: None,
        })
    }
}

/// Runs the check `config` describes (checked, defaults filled), as the
/// ephemeral resource opens and the action invokes it: the results, with
/// an error diagnostic on the attribute to blame when it failed and
/// `fail_on_error` holds (`None` then), a warning when it does not. Says
/// what it does through `progress` (the proxy without credentials, never
/// the password).
pub(crate) fn check(
    config: &Config,
    progress: &mut dyn FnMut(String),
    diags: &mut Diagnostics,
) -> Option<Results> {
    let profile = config.resolve(diags)?;
    let url = HttpUrl::parse(&config.url).ok()?;
    let (proxy, proxy_at) = if url.scheme() == "https" {
        // Without its own, the https proxy is `http_proxy`'s.
        let own = match own_https_proxy(config) {
            true => Settings::https_proxy,
            false => Settings::http_proxy,
        };
        (profile.https_proxy.as_ref(), own)
    } else {
        (profile.http_proxy.as_ref(), Settings::http_proxy)
    };
    let Some(proxy) = proxy else {
        diags.push(
            Diagnostic::error(
                "No proxy for this URL",
                format!("No proxy is set for {}:// destinations: set `{proxy_at}`, or check a URL of the other scheme.", url.scheme()),
            )
            .at(AttributePath::attribute(Config::url)),
        );
        return None;
    };
    let seconds = config.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let ca_pem = profile.trusted_ca.as_ref().map(|ca| ca.to_pem());
    progress(format!(
        "Requesting {} through the proxy {} (at most {seconds} s)",
        url.as_str(),
        proxy.to_plain_string()
    ));
    let outcome = probe::run(&Probe {
        url: &url,
        proxy,
        trusted_ca: ca_pem.as_deref(),
        timeout: Duration::from_secs(seconds.unsigned_abs()),
    });
    let verdict = Verdict::of(&outcome, proxy, proxy_at, seconds);
    match (&verdict.results.status_code, &verdict.results.error) {
        (_, Some(error)) => progress(format!("Check failed: {error}")),
        (Some(status), None) => progress(format!("The proxy took the request: HTTP {status}")),
        (None, None) => {}
    }
    if let Some(failure) = verdict.failure {
        let path = if failure.at == Config::url {
            AttributePath::attribute(Config::url)
        } else {
            config.setting(failure.at)
        };
        if config.fail_on_error.unwrap_or(true) {
            diags.push(Diagnostic::error(failure.summary, failure.detail).at(path));
            return None;
        }
        diags.push(
            Diagnostic::warning(
                failure.summary,
                format!("{} Not an error: `fail_on_error` is false.", failure.detail),
            )
            .at(path),
        );
    }
    Some(verdict.results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::proxy_url::ProxyCredentials;
    use crate::domain::InputField;
    use crate::framework::diagnostics::Severity;
    use probe::TlsFailure;

    const SECRET: &str = "s3cr#t p@ss/é";

    /// A port of 127.0.0.1 nothing listens on.
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    fn config(proxy: &str) -> Config {
        Config {
            http_proxy: Some(proxy.to_owned()),
            username: Some("svc".to_owned()),
            password: Maybe::Known(SECRET.to_owned()),
            url: "http://registry.corp.example/v2/".to_owned(),
            timeout: Some(2),
            fail_on_error: Some(true),
            ..Config::default()
        }
    }

    fn open(config: Config) -> (Option<Opened>, Diagnostics) {
        let mut diags = Diagnostics::new();
        let opened = ProxyCheck.open(&config.value(), &mut diags);
        (opened, diags)
    }

    fn found(diags: &Diagnostics) -> Vec<(Severity, String, String)> {
        diags
            .iter()
            .map(|d| {
                assert!(!format!("{d:?}").contains(SECRET), "{d:?}");
                let path = d.path.as_ref().map(ToString::to_string).unwrap_or_default();
                (d.severity, d.summary.clone(), path)
            })
            .collect()
    }

    #[test]
    fn urls_must_be_absolute_http_urls_without_credentials() {
        for fine in [
            "http://a.example",
            "https://registry-1.docker.io/v2/",
            "http://[::1]:8080/x?y#z",
        ] {
            assert!(HttpUrl::parse(fine).is_ok(), "{fine}");
        }
        for bad in [
            "",
            "registry.example/v2/",
            "ftp://a.example/",
            "file:///etc/passwd",
            "http://u:pw@a.example/",
            "https://u@a.example/",
        ] {
            assert!(HttpUrl::parse(bad).is_err(), "{bad}");
        }
        let mut diags = Diagnostics::new();
        HttpUrl.validate(
            &AttributePath::attribute("url"),
            &Value::string("http://u:hunter2@a.example/"),
            &mut diags,
        );
        assert!(!format!("{diags:?}").contains("hunter2"));
        assert!(diags.has_errors());
    }

    /// A user name without a password is an error on `username` once the
    /// password is certainly null (not while it is unknown, as an
    /// ephemeral variable is at validation); a profile that needs a password
    /// without one is an error on `profile`.
    #[test]
    fn credentials_must_come_with_a_password() {
        let check = |config: Config| {
            let mut diags = Diagnostics::new();
            config.validate(&mut diags);
            found(&diags)
        };
        let mut without = config("http://127.0.0.1:3128");
        without.password = Maybe::Null;
        assert_eq!(
            check(without.clone()),
            [(
                Severity::Error,
                "Password without value".to_owned(),
                "username".to_owned()
            )]
        );
        without.password = Maybe::Unknown;
        assert!(check(without).is_empty());
        assert!(check(config("http://127.0.0.1:3128")).is_empty());
        let profile = Config {
            profile: Maybe::Known(Settings {
                http_proxy: Some("http://127.0.0.1:3128".to_owned()),
                username: Some("svc".to_owned()),
                password_required: true,
                ..Settings::default()
            }),
            url: "http://a.example/".to_owned(),
            ..Config::default()
        };
        assert_eq!(
            check(profile),
            [(
                Severity::Error,
                "Proxy password not given".to_owned(),
                "profile".to_owned()
            )]
        );
    }

    /// Every outcome but an answer other than 407 is a failure, blamed on
    /// the setting to fix; no message holds the password.
    #[test]
    fn outcomes_mean_results_and_diagnostics() {
        let credentials = ProxyCredentials::new("svc", SECRET).unwrap();
        let proxy = ProxyUrl::parse(InputField::HttpProxy, "http://proxy.corp.example:3128")
            .unwrap()
            .with_credentials(credentials);
        let cases = [
            (Outcome::Answered(200), true, Some(200), None),
            (Outcome::Answered(502), true, Some(502), None),
            (Outcome::Answered(301), true, Some(301), None),
            (Outcome::Answered(407), false, Some(407), Some("password")),
            (
                Outcome::TunnelAuthRequired,
                false,
                Some(407),
                Some("password"),
            ),
            (Outcome::TunnelRefused, true, None, Some("url")),
            (Outcome::TimedOut, false, None, Some("http_proxy")),
            (Outcome::Unreachable(None), false, None, Some("http_proxy")),
            (Outcome::Unresolved, false, None, Some("http_proxy")),
            (
                Outcome::Tls {
                    proxy: true,
                    reason: TlsFailure::UntrustedIssuer,
                },
                false,
                None,
                Some("trusted_ca"),
            ),
            (
                Outcome::Tls {
                    proxy: false,
                    reason: TlsFailure::WrongName,
                },
                true,
                None,
                Some("trusted_ca"),
            ),
            (Outcome::Failed, false, None, Some("http_proxy")),
        ];
        for (outcome, authenticated, status, at) in cases {
            let verdict = Verdict::of(&outcome, &proxy, Settings::http_proxy, 10);
            assert_eq!(verdict.results.authenticated, authenticated, "{outcome:?}");
            assert_eq!(verdict.results.status_code, status, "{outcome:?}");
            assert_eq!(verdict.failure.as_ref().map(|f| f.at), at, "{outcome:?}");
            assert_eq!(verdict.results.error.is_some(), at.is_some(), "{outcome:?}");
            let shown = format!("{verdict:?}");
            assert!(
                !shown.contains(SECRET) && !shown.contains("s3cr"),
                "{shown}"
            );
            if let Some(failure) = verdict.failure {
                assert!(failure.detail.contains("http://proxy.corp.example:3128"));
            }
        }
        let without = proxy.clone().with_credentials(None);
        let verdict = Verdict::of(&Outcome::Answered(407), &without, Settings::http_proxy, 10);
        assert_eq!(verdict.failure.unwrap().at, "username");
    }

    /// A closed loopback port: an error on `http_proxy` (on `profile` with
    /// a profile), no result; with `fail_on_error = false` a warning
    /// and the results.
    #[test]
    fn an_unreachable_proxy_fails_or_reports() {
        let proxy = format!("http://127.0.0.1:{}", closed_port());
        let (opened, diags) = open(config(&proxy));
        assert!(opened.is_none());
        assert_eq!(
            found(&diags),
            [(
                Severity::Error,
                "Proxy unreachable".to_owned(),
                "http_proxy".to_owned()
            )]
        );
        let mut lenient = config(&proxy);
        lenient.fail_on_error = Some(false);
        let (opened, diags) = open(lenient);
        assert_eq!(found(&diags)[0].0, Severity::Warning);
        let results = Results::get(&opened.unwrap().result, &mut Diagnostics::new()).unwrap();
        assert!(!results.authenticated);
        assert_eq!(results.status_code, None);
        assert!(results.error.unwrap().starts_with("proxy_unreachable: "));
        let profile = Config {
            profile: Maybe::Known(Settings {
                http_proxy: Some(proxy),
                username: Some("svc".to_owned()),
                password: Some(SECRET.to_owned()),
                password_required: true,
                ..Settings::default()
            }),
            url: "http://a.example/".to_owned(),
            timeout: Some(2),
            ..Config::default()
        };
        let (_, diags) = open(profile);
        assert_eq!(found(&diags)[0].2, "profile");
    }

    /// An https URL goes through the https proxy, `http_proxy`'s without
    /// one of its own; a closed port fails on the setting that names it.
    #[test]
    fn an_https_url_blames_the_proxy_it_went_through() {
        let proxy = format!("http://127.0.0.1:{}", closed_port());
        let mut https = config(&proxy);
        https.url = "https://registry.corp.example/v2/".to_owned();
        let (_, diags) = open(https.clone());
        let expected = |at: &str| {
            vec![(
                Severity::Error,
                "Proxy unreachable".to_owned(),
                at.to_owned(),
            )]
        };
        assert_eq!(found(&diags), expected("http_proxy"));
        https.https_proxy = Some(proxy);
        https.http_proxy = Some("http://127.0.0.1:9".to_owned());
        let (_, diags) = open(https);
        assert_eq!(found(&diags), expected("https_proxy"));
    }

    /// Bad settings are the profile's findings on their attribute; a URL
    /// scheme without a proxy is an error on `url`.
    #[test]
    fn settings_are_checked_as_a_profile_is() {
        let (opened, diags) = open(config("socks5://127.0.0.1:1080"));
        assert!(opened.is_none());
        assert_eq!(found(&diags)[0].2, "http_proxy");
        let only_https = Config {
            http_proxy: None,
            https_proxy: Some("http://127.0.0.1:3128".to_owned()),
            ..config("unused")
        };
        let (_, diags) = open(only_https);
        assert_eq!(
            found(&diags),
            [(
                Severity::Error,
                "No proxy for this URL".to_owned(),
                "url".to_owned()
            )]
        );
    }
}
