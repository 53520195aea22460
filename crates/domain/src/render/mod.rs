//! Renderers: what each platform consumes, from one set of proxy settings.
//! Every renderer takes the MERGED NO_PROXY list (from the NO_PROXY engine)
//! and returns text whose bytes depend only on its inputs.
//!
//! # One shape
//! Every platform is a [`Renderer`]: a struct of the platform's own options
//! (unit names, OS family, vSphere server...; a unit struct when it has none)
//! whose `render(&self, Input { settings, cluster, secrets })` returns a
//! [`Rendering`]: `Result<Rendered<Output>, Vec<Finding>>`. `settings`
//! holds the proxies, the merged NO_PROXY list and the CA; `cluster` is the
//! one [`Cluster`] of the NO_PROXY engine, read where needed and never
//! copied into a per-platform struct; `secrets` says whether proxy URLs carry the credentials, so the
//! caller renders twice for an output and its `_redacted` twin.
//!
//! # Findings
//! An error means nothing can be rendered: `render` returns `Err` with every
//! error found (not only the first), warnings included. Warnings alone go in
//! [`Rendered::warnings`] beside the output. A finding is located at the
//! [`crate::InputField`] it is about: a [`Cluster`] field, a `settings`
//! field ([`crate::InputField::Merged`] with the index of the merged entry,
//! which the provider traces back to the input that gave it) or one of the
//! platform's options ([`crate::InputField::Option`], by its attribute's
//! name, one of [`Renderer::OPTIONS`]); `None` when it is about the
//! rendered output as a whole.
//!
//! # Registry
//! [`RENDERERS`] lists every renderer once, one line each: a plain list of
//! [`Listed`] entries, each answering from its [`Renderer`] impl (its
//! module, options and typical configuration). Each renderer's module is
//! also a `pub mod` item (a file without one fails
//! `module_graph::every_source_file_is_a_module`).
//! The helpers several renderers share (`k8s`, `shell`, `systemd`, `trust`,
//! `yaml`) are ordinary modules.
//!
//! # Adding a renderer
//! See `docs/dev/adding-a-renderer.md`: three files by hand (this
//! directory's `<p>.rs`, its data source, its example); its code compiles
//! as a doctest, and the compiler and the tests ask for every other step.

// The renderers, one module each (declared as items, so that rustfmt
// formats them), then the helpers several of them share.
pub mod aks;
pub mod bottlerocket;
pub mod capi;
pub mod cloud_init;
pub mod docker_daemon;
pub mod eksa;
pub mod helm;
pub mod ignition;
pub mod kubespray;
pub mod kyverno;
pub mod openshift;
pub mod pod_env;
pub mod rke2;
pub mod systemd_dropin;
pub mod talos;
pub mod tkg;

pub mod k8s;
pub mod shell;
pub mod systemd;
pub mod trust;
pub mod yaml;

use std::marker::PhantomData;

use super::proxy_url::ProxyUrl;
use super::trusted_ca::TrustedCa;
pub use crate::no_proxy::Cluster;
use crate::{Finding, InputField};

/// Every renderer, one line each, in registry order (the order of the
/// generated tables and of the `render` function's platforms): the list the
/// domain's tests run over, and which the provider's list of renderer data
/// sources follows line by line. A renderer left out fails
/// `cargo test --lib`, which names the line to add
/// (`registries::every_extension_is_on_its_registry_line`).
pub static RENDERERS: &[&dyn Listed] = &[
    listed::<systemd_dropin::Systemd>(),
    listed::<capi::Capi>(),
    listed::<tkg::Tkg>(),
    listed::<aks::Aks>(),
    listed::<pod_env::PodEnv>(),
    listed::<openshift::OpenShift>(),
    listed::<eksa::Eksa>(),
    listed::<kyverno::Kyverno>(),
    listed::<helm::Helm>(),
    listed::<cloud_init::CloudInit>(),
    listed::<ignition::Ignition>(),
    listed::<rke2::Rke2>(),
    listed::<talos::Talos>(),
    listed::<kubespray::Kubespray>(),
    listed::<docker_daemon::DockerDaemon>(),
    listed::<bottlerocket::Bottlerocket>(),
];

/// A listed renderer, whatever its output: what every list of renderers
/// asks of one ([`RENDERERS`]).
pub trait Listed: Sync {
    /// Its module ([`Renderer::MODULE`]).
    fn module(&self) -> &'static str;

    /// Its options a finding can be about ([`Renderer::OPTIONS`]).
    fn options(&self) -> &'static [InputField];

    /// What a cluster or node holds of its rendering of `input` with its
    /// typical options ([`Renderer::sample`]), with the warnings, or every
    /// finding when it renders nothing.
    fn render_sample(&self, input: Input) -> Rendering<Held>;
}

/// The [`Listed`] entry of the renderer `R`.
pub const fn listed<R: Renderer + 'static>() -> &'static dyn Listed {
    &Entry::<R>(PhantomData)
}

/// A renderer type as a [`Listed`] value.
struct Entry<R>(PhantomData<fn() -> R>);

impl<R: Renderer> Listed for Entry<R> {
    fn module(&self) -> &'static str {
        R::MODULE
    }

    fn options(&self) -> &'static [InputField] {
        R::OPTIONS
    }

    fn render_sample(&self, input: Input) -> Rendering<Held> {
        let renderer = R::sample();
        let rendered = renderer.render(input)?;
        Ok(Rendered {
            output: renderer.held(&rendered.output),
            warnings: rendered.warnings,
        })
    }
}

/// The minor of a `major.minor[.patch]` release (`v` prefix allowed, all
/// parts decimal), `None` for another major or another shape.
pub fn minor_version(version: &str, major: &str) -> Option<u32> {
    let trimmed = version.strip_prefix('v').unwrap_or(version);
    let decimal = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let mut parts = trimmed.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(first), Some(minor), patch, None)
            if first == major && decimal(minor) && patch.is_none_or(decimal) =>
        {
            minor.parse().ok()
        }
        _ => None,
    }
}

/// What every renderer reads besides its options.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The proxies, the merged NO_PROXY list and the trusted CA.
    pub settings: &'a ProxySettings,
    /// The cluster the NO_PROXY list was merged for.
    pub cluster: &'a Cluster,
    /// Whether proxy URLs carry the credentials.
    pub secrets: Secrets,
}

/// What a renderer returns: the output with its warnings, or every error
/// (warnings included) as findings on the input they are about.
pub type Rendering<T> = Result<Rendered<T>, Vec<Finding>>;

/// One platform's renderer; `self` holds the platform's own options.
pub trait Renderer {
    /// What the platform consumes.
    type Output;

    /// Its module: the name of its file under `render/`, of its data
    /// source's file in the provider and of its golden directory.
    const MODULE: &'static str;

    /// The options a finding can be about, each an [`InputField::Option`]
    /// constant of its module named by the attribute that holds it.
    const OPTIONS: &'static [InputField] = &[];

    /// The options as a typical configuration sets them (units, a
    /// namespace, a credentials Secret where the platform takes one): what
    /// the tests that run over every renderer render with.
    fn sample() -> Self
    where
        Self: Sized;

    /// Renders `input.settings` for `input.cluster`.
    fn render(&self, input: Input) -> Rendering<Self::Output>;

    /// What a cluster or node holds of `output` (rendered with the
    /// credentials), as files the importers read back, or why it is no
    /// artifact a profile can be imported from: every renderer's output
    /// imports back to its settings (`every_renderer_imports_back`).
    fn held(&self, output: &Self::Output) -> Held;
}

/// What a cluster or node holds of a rendering ([`Renderer::held`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// The files, as a fleet scan finds them in a repository or on a node.
    Files(Vec<HeldFile>),
    /// The output is no artifact a profile can be imported from: why.
    NoArtifact(&'static str),
}

/// One file a cluster or node holds of a rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldFile {
    /// Its file name, as the fleet scan sees it.
    pub name: String,
    /// The import kind that reads it.
    pub kind: &'static str,
    /// Its text.
    pub text: String,
    /// Whether it carries the trusted CA; otherwise the CA is delivered in
    /// a file of its own, and the import finds none.
    pub carries_ca: bool,
}

impl HeldFile {
    /// The file `name` of `kind` holding `text`.
    pub fn new(name: &str, kind: &'static str, text: String, carries_ca: bool) -> Self {
        Self {
            name: name.to_owned(),
            kind,
            text,
            carries_ca,
        }
    }
}

/// A renderer's output and the warnings that come with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered<T> {
    /// The output.
    pub output: T,
    /// Warnings (findings that do not stop rendering).
    pub warnings: Vec<Finding>,
}

impl<T> Rendered<T> {
    /// `output` without warnings.
    pub fn new(output: T) -> Self {
        Self {
            output,
            warnings: Vec::new(),
        }
    }

    /// `output` with `findings` when none is an error, else the findings.
    pub fn checked(output: T, findings: Vec<Finding>) -> Result<Self, Vec<Finding>> {
        if findings.iter().any(Finding::is_error) {
            Err(findings)
        } else {
            Ok(Self {
                output,
                warnings: findings,
            })
        }
    }
}

/// Proxy settings ready to render.
#[derive(Debug, Clone)]
pub struct ProxySettings {
    /// Proxy for `http://` destinations.
    pub http_proxy: Option<ProxyUrl>,
    /// Proxy for `https://` destinations.
    pub https_proxy: Option<ProxyUrl>,
    /// The merged NO_PROXY list.
    pub no_proxy: Vec<String>,
    /// The trusted CA bundle.
    pub trusted_ca: Option<TrustedCa>,
    /// The source profile's revision, which moves exactly when the
    /// effective settings change (`None` without a profile).
    pub revision: Option<i64>,
}

/// How a size message says the password was counted: at the longest one
/// accepted ([`Secrets::Longest`]), never at its real length.
pub const PASSWORD_COUNTED: &str =
    "a proxy password counted as long as the longest one accepted encodes to";

/// Whether rendered text carries the credentials or a redacted stand-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secrets {
    /// The real, percent-encoded credentials: the output is secret.
    Include,
    /// The password replaced by `***`: safe to show.
    Redact,
    /// The password replaced by a stand-in as long as the longest one
    /// encodes to: what size checks measure, so that they never count less
    /// than the real rendering and no finding depends on the password.
    Longest,
}

impl ProxySettings {
    /// A proxy URL as text, with or without the credentials.
    pub fn url(url: &ProxyUrl, secrets: Secrets) -> String {
        match secrets {
            Secrets::Include => url.to_secret_string(),
            Secrets::Redact => url.to_redacted_string(),
            Secrets::Longest => url.to_longest_string(),
        }
    }

    /// The NO_PROXY value (comma-joined list).
    pub fn no_proxy_value(&self) -> String {
        self.no_proxy.join(",")
    }

    /// The environment variables every client family reads, upper- and
    /// lowercase, in a fixed order: HTTP_PROXY, http_proxy, HTTPS_PROXY,
    /// https_proxy, NO_PROXY, no_proxy (absent proxies left out).
    pub fn variables(&self, secrets: Secrets) -> Vec<(&'static str, String)> {
        let mut out = Vec::with_capacity(6);
        if let Some(url) = &self.http_proxy {
            let value = Self::url(url, secrets);
            out.push(("HTTP_PROXY", value.clone()));
            out.push(("http_proxy", value));
        }
        if let Some(url) = &self.https_proxy {
            let value = Self::url(url, secrets);
            out.push(("HTTPS_PROXY", value.clone()));
            out.push(("https_proxy", value));
        }
        let no_proxy = self.no_proxy_value();
        out.push(("NO_PROXY", no_proxy.clone()));
        out.push(("no_proxy", no_proxy));
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::proxy_url::ProxyCredentials;

    /// The password every renderer test uses: `%`, `"`, `\`, `$`, `'`, space and `@`.
    pub(crate) const NASTY_PASSWORD: &str = r#"p%40ss "w\rd" $HOME 'x'@y"#;

    /// Settings with credentials and a typical merged list.
    pub(crate) fn settings() -> ProxySettings {
        let credentials = ProxyCredentials::new("svc-proxy", NASTY_PASSWORD).unwrap();
        let http = ProxyUrl::parse(
            crate::InputField::HttpProxy,
            "http://proxy.corp.example:3128",
        )
        .unwrap()
        .with_credentials(credentials.clone());
        let https = ProxyUrl::parse(
            crate::InputField::HttpsProxy,
            "http://proxy.corp.example:3129",
        )
        .unwrap()
        .with_credentials(credentials);
        ProxySettings {
            http_proxy: Some(http),
            https_proxy: Some(https),
            no_proxy: [
                "registry.corp.example",
                "10.96.0.0/12",
                "192.168.0.0/16",
                "cluster.local",
                ".svc",
                "localhost",
                "127.0.0.1",
            ]
            .map(str::to_owned)
            .to_vec(),
            trusted_ca: None,
            revision: None,
        }
    }

    /// Compares `actual` with tests/golden/<name>, or rewrites it when UPDATE_GOLDEN is set.
    pub(crate) fn golden(name: &str, actual: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/golden")
            .join(name);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, actual).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; run with UPDATE_GOLDEN=1", path.display()));
        assert_eq!(
            actual, expected,
            "{name} differs from its golden file (byte stability)"
        );
    }

    #[test]
    fn variables_come_in_both_cases_in_a_fixed_order() {
        let names: Vec<_> = settings()
            .variables(Secrets::Redact)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            [
                "HTTP_PROXY",
                "http_proxy",
                "HTTPS_PROXY",
                "https_proxy",
                "NO_PROXY",
                "no_proxy"
            ]
        );
        let secret = settings().variables(Secrets::Include);
        assert!(secret[0].1.contains("p%2540ss"), "{}", secret[0].1);
        assert!(!settings().variables(Secrets::Redact)[0]
            .1
            .contains("p%2540ss"));
    }

    /// `settings()` with `password` and a NO_PROXY list of `entries` names.
    fn with_password(password: &str, entries: usize) -> ProxySettings {
        let credentials = ProxyCredentials::new("svc-proxy", password).unwrap();
        let mut s = settings();
        for url in [&mut s.http_proxy, &mut s.https_proxy] {
            *url = url.take().map(|u| u.with_credentials(credentials.clone()));
        }
        s.no_proxy = (0..entries)
            .map(|i| format!("host-{i}.corp.example"))
            .collect();
        s
    }

    /// What the renderer `listed` finds in `settings` for `cluster` with its
    /// typical options (errors and warnings alike).
    fn sample_findings(
        listed: &dyn Listed,
        settings: &ProxySettings,
        cluster: &Cluster,
    ) -> Vec<Finding> {
        let input = Input {
            settings,
            cluster,
            secrets: Secrets::Include,
        };
        match listed.render_sample(input) {
            Ok(rendered) => rendered.warnings,
            Err(findings) => findings,
        }
    }

    /// No finding of any renderer depends on the credentials: the limits on
    /// sizes and lines are measured with the password shown as `***`, so
    /// that no message, and no finding's presence, tells anything about its
    /// length. Sizes around each limit: a warning or error must come or go
    /// with the password's length only if it depended on it.
    #[test]
    fn findings_do_not_depend_on_the_password() {
        let cluster = Cluster {
            cloud: Some(crate::no_proxy::Cloud::Aws),
            ..Cluster::default()
        };
        for entries in [0, 250, 330, 340, 400, 500, 1500, 1800, 2500, 3000] {
            let short = with_password("p", entries);
            let long = with_password(&"p".repeat(200), entries);
            for listed in RENDERERS {
                assert_eq!(
                    sample_findings(*listed, &short, &cluster),
                    sample_findings(*listed, &long, &cluster),
                    "{}, {entries} entries",
                    listed.module()
                );
            }
        }
    }
}
