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
//! platform's options ([`PlatformOption`]); `None` when it is about the
//! rendered output as a whole.
//!
//! # Registry
//! [`for_each_renderer!`] lists every renderer once, one line each;
//! [`RendererId`] and [`PlatformOption`] derive from it here, and the
//! attribute of each platform option in the provider. Each renderer's
//! module is also a `pub mod` item (rustfmt formats only modules declared as
//! items; a file without one fails `module_graph::every_source_file_is_a_module`).
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

use super::proxy_url::ProxyUrl;
use super::trusted_ca::TrustedCa;
pub use crate::no_proxy::Cluster;
use crate::{Finding, InputField};

/// Every renderer, one line each, in registry order: `<module> =>
/// <Variant>,`, or `<module> => <Variant>(<Options>),` for a renderer with
/// options a finding can be about (`<Options>`, an enum in its module).
/// Calls `$callback!` with the lines, so that each list is derived from this
/// one: here [`RendererId`] and [`PlatformOption`] (`renderers!`), in the
/// provider the attribute of each platform option.
#[macro_export]
macro_rules! for_each_renderer {
    ($callback:ident) => {
        $callback! {
            systemd_dropin => SystemdDropin,
            capi => Capi,
            tkg => Tkg(TkgOption),
            aks => Aks,
            pod_env => PodEnv,
            openshift => OpenShift(OpenShiftOption),
            eksa => Eksa,
            kyverno => Kyverno(KyvernoOption),
            helm => Helm,
            cloud_init => CloudInit,
            ignition => Ignition,
            rke2 => Rke2(Rke2Option),
            talos => Talos(TalosOption),
            kubespray => Kubespray(KubesprayOption),
            docker_daemon => DockerDaemon(DockerDaemonOption),
            bottlerocket => Bottlerocket,
        }
    };
}

/// Declares, from [`for_each_renderer!`]: the [`RendererId`] variant, [`RendererId::ALL`], [`RendererId::module`] and,
/// for a renderer with options, its [`PlatformOption`] variant and
/// `From<Options> for InputField`.
macro_rules! renderers {
    ($($module:ident => $variant:ident $(($options:ident))?,)*) => {
        /// Every renderer, by its module: the registry the domain's tests
        /// run over ([`RendererId::ALL`]); the provider maps each to its
        /// data source in an exhaustive `match`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RendererId {
            $(
                #[doc = concat!("[`", stringify!($module), "`].")]
                $variant,
            )*
        }

        impl RendererId {
            /// Every renderer, in registry order.
            pub const ALL: [RendererId; [$(stringify!($variant)),*].len()] =
                [$(RendererId::$variant),*];

            /// Its module: the name of its file under `render/`, of its
            /// data source's file in the provider and of its golden
            /// directory.
            pub fn module(self) -> &'static str {
                match self {
                    $(RendererId::$variant => stringify!($module),)*
                }
            }
        }

        /// A platform's own option a finding is about, as the options type
        /// of the renderer that has it (the provider maps each to the
        /// attribute that holds it).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum PlatformOption {
            $($(
                #[doc = concat!("An option of [`", stringify!($module), "::", stringify!($options), "`].")]
                $variant($module::$options),
            )?)*
        }

        $($(
            impl From<$module::$options> for InputField {
                fn from(option: $module::$options) -> Self {
                    InputField::Option(PlatformOption::$variant(option))
                }
            }
        )?)*
    };
}

for_each_renderer!(renderers);

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

    /// What a renderer finds (errors and warnings alike), whatever it renders.
    fn findings<R: Renderer>(renderer: R, input: Input) -> Vec<Finding> {
        match renderer.render(input) {
            Ok(rendered) => rendered.warnings,
            Err(findings) => findings,
        }
    }

    /// What to do with a renderer, whatever its type.
    pub(crate) trait WithRenderer {
        /// What it gives.
        type Out;
        /// Does it with `renderer`.
        fn with<R: Renderer>(self, renderer: R) -> Self::Out;
    }

    /// What a renderer finds in an input.
    struct FindingsOf<'a>(Input<'a>);

    impl WithRenderer for FindingsOf<'_> {
        type Out = Vec<Finding>;
        fn with<R: Renderer>(self, renderer: R) -> Vec<Finding> {
            findings(renderer, self.0)
        }
    }

    /// What a cluster or node holds of a renderer's output for an input.
    pub(crate) struct HeldOf<'a>(pub(crate) Input<'a>);

    impl WithRenderer for HeldOf<'_> {
        type Out = Result<Held, Vec<Finding>>;
        fn with<R: Renderer>(self, renderer: R) -> Self::Out {
            let rendered = renderer.render(self.0)?;
            Ok(renderer.held(&rendered.output))
        }
    }

    /// What `platform`'s renderer finds in `settings` for `cluster`
    /// ([`sample`]).
    fn sample_findings(
        platform: RendererId,
        settings: &ProxySettings,
        cluster: &Cluster,
    ) -> Vec<Finding> {
        let input = Input {
            settings,
            cluster,
            secrets: Secrets::Include,
        };
        sample(platform, FindingsOf(input))
    }

    /// `what` done with `platform`'s renderer, with options as a typical
    /// configuration sets them (units, a namespace, a credentials Secret
    /// where the platform takes one).
    pub(crate) fn sample<W: WithRenderer>(platform: RendererId, what: W) -> W::Out {
        let units = || {
            vec![
                "containerd.service".to_owned(),
                "kubelet.service".to_owned(),
            ]
        };
        let os = trust::OsFamily::Debian;
        let secret = || {
            Some(pod_env::CredentialsSecret {
                name: "proxy-credentials".to_owned(),
                namespace: None,
            })
        };
        match platform {
            RendererId::SystemdDropin => what.with(systemd_dropin::Systemd { units: units(), os }),
            RendererId::Capi => what.with(capi::Capi {
                units: units(),
                os,
                base64_content: false,
                cluster_name: None,
                namespace: "default".to_owned(),
            }),
            RendererId::Tkg => what.with(tkg::Tkg {
                vsphere_server: None,
                system_wide: false,
            }),
            RendererId::Aks => what.with(aks::Aks),
            RendererId::PodEnv => what.with(pod_env::PodEnv {
                config_map_name: "proxy-ca".to_owned(),
                namespace: None,
                credentials_secret: secret(),
            }),
            RendererId::OpenShift => what.with(openshift::OpenShift {
                readiness_endpoints: Vec::new(),
                api_internal_host: None,
                aws_region: None,
            }),
            RendererId::Eksa => what.with(eksa::Eksa),
            RendererId::Kyverno => what.with(kyverno::Kyverno {
                version: kyverno::DEFAULT_VERSION.to_owned(),
                name: "proxy-env".to_owned(),
                excluded_namespaces: vec!["kube-system".to_owned()],
                opt_out_annotation: "proxy.example/opt-out".to_owned(),
                config_map_name: "proxy-ca".to_owned(),
                credentials_secret: secret(),
            }),
            RendererId::Helm => what.with(helm::Helm {
                config_map_name: "proxy-ca".to_owned(),
                namespace: None,
                credentials_secret: None,
            }),
            RendererId::CloudInit => what.with(cloud_init::CloudInit { units: units(), os }),
            RendererId::Ignition => what.with(ignition::Ignition {
                units: units(),
                variant: ignition::Variant::Flatcar,
            }),
            RendererId::Rke2 => what.with(rke2::Rke2 {
                distribution: rke2::Distribution::Rke2,
                role: rke2::Role::Agent,
                scope: rke2::Scope::All,
            }),
            RendererId::Talos => what.with(talos::Talos {
                version: "1.13".to_owned(),
            }),
            RendererId::Kubespray => what.with(kubespray::Kubespray {
                version: "2.31".to_owned(),
                hosts: vec![("node-1".to_owned(), "10.0.0.11".to_owned())],
                loadbalancer: None,
                os_family: os,
            }),
            RendererId::DockerDaemon => what.with(docker_daemon::DockerDaemon {
                settings: Some(r#"{"log-driver":"json-file","debug":true}"#.to_owned()),
            }),
            RendererId::Bottlerocket => what.with(bottlerocket::Bottlerocket),
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
            for platform in RendererId::ALL {
                assert_eq!(
                    sample_findings(platform, &short, &cluster),
                    sample_findings(platform, &long, &cluster),
                    "{platform:?}, {entries} entries"
                );
            }
        }
    }
}
