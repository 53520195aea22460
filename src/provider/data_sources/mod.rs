//! Data sources, one per file; a renderer's file is named like its domain
//! renderer's (`tkg.rs` renders with `domain::render::tkg`), its Terraform
//! name (`clusterproxy_tkg_config`) is in `type_name`. The renderer data
//! sources are registered once, in the plain list [`RENDERERS`] below.

pub(crate) mod artifact_settings;
pub(crate) mod fleet;
pub mod no_proxy;
pub mod no_proxy_report;

// The renderer data sources, each a line of `RENDERERS` below too.
mod aks;
mod bottlerocket;
mod capi;
mod cloud_init;
mod docker_daemon;
mod eksa;
mod helm;
mod ignition;
mod kubespray;
mod kyverno;
mod openshift;
mod pod_env;
mod rke2;
pub mod systemd_dropin;
mod talos;
mod tkg;

use crate::provider::platform::Platform;

/// Every renderer data source, one line each, in the order of the domain's
/// [`RENDERERS`](crate::domain::render::RENDERERS) (each is the data source
/// of the domain renderer on the same line, named by its module): each
/// takes a profile's `settings` as `profile` and is also a platform of the
/// `render` function. A data source left out is dead code, and
/// `cargo test --lib` names the line to add
/// (`registries::every_extension_is_on_its_registry_line`); so it does for
/// a domain renderer without its data source
/// (`registries::every_renderer_has_its_data_source_and_files`).
static RENDERERS: &[&dyn Platform] = &[
    &systemd_dropin::SystemdDropinDataSource,
    &capi::CapiKubeadmDataSource,
    &tkg::TkgConfigDataSource,
    &aks::AksHttpProxyConfigDataSource,
    &pod_env::PodEnvDataSource,
    &openshift::OpenShiftProxyDataSource,
    &eksa::EksaProxyConfigDataSource,
    &kyverno::KyvernoPolicyDataSource,
    &helm::HelmValuesDataSource,
    &cloud_init::CloudInitDataSource,
    &ignition::IgnitionDataSource,
    &rke2::Rke2DataSource,
    &talos::TalosDataSource,
    &kubespray::KubesprayDataSource,
    &docker_daemon::DockerDaemonDataSource,
    &bottlerocket::BottlerocketDataSource,
];

/// The renderer data sources ([`RENDERERS`]).
pub fn renderers() -> &'static [&'static dyn Platform] {
    RENDERERS
}

#[cfg(test)]
mod tests {
    use super::renderers;
    use crate::framework::data_source::read_checked;
    use crate::framework::diagnostics::Diagnostics;
    use crate::framework::model::{Field, Maybe};
    use crate::framework::schema::Mode;
    use crate::framework::value::Value;
    use crate::provider::inputs::Settings;

    /// Every sensitive computed attribute of a renderer has a `<name>_redacted`
    /// twin that is computed and not sensitive, so nobody needs `nonsensitive()`
    /// on the real one to review a render.
    #[test]
    fn every_credential_bearing_output_has_a_redacted_twin() {
        let mut missing = Vec::new();
        for renderer in renderers() {
            let schema = renderer.schema();
            for attribute in &schema.attributes {
                if attribute.mode != Mode::Computed || !attribute.sensitive {
                    continue;
                }
                let twin = format!("{}_redacted", attribute.name);
                let ok = schema.attribute(&twin).is_some_and(|t| {
                    t.mode == Mode::Computed && !t.sensitive && t.ty == attribute.ty
                });
                if !ok {
                    missing.push(format!("{}.{twin}", renderer.type_name()));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "missing or sensitive twins: {missing:?}"
        );
    }

    /// Of every renderer, each twin of an attribute that holds the password
    /// as written is that attribute with the password replaced by `***`; no
    /// twin holds the password (an attribute that holds it encoded, as
    /// Ignition's base64 data URLs do, is checked by its renderer's tests).
    #[test]
    fn twins_hold_the_attribute_without_the_password() {
        let password = "Rotat3dSecret";
        let settings = Settings {
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            https_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            username: Some("svc".to_owned()),
            password: Some(password.to_owned()),
            no_proxy: vec!["registry.corp.example".to_owned()],
            trusted_ca: Maybe::Null,
            password_required: true,
            revision: Some(3),
        };
        let mut checked = 0;
        for renderer in renderers() {
            let schema = renderer.schema();
            let mut config = Value::object(
                schema
                    .attributes
                    .iter()
                    .map(|a| (a.name.clone(), Value::null())),
            );
            config.set_attr("profile", settings.value());
            let Some(state) = read_checked(*renderer, &schema, config, &mut Diagnostics::new())
            else {
                continue;
            };
            for attribute in schema.attributes.iter().filter(|a| a.sensitive) {
                let twin = format!("{}_redacted", attribute.name);
                let (Some(secret), Some(redacted)) =
                    (state.get_attr(&attribute.name), state.get_attr(&twin))
                else {
                    continue;
                };
                let secret = format!("{secret:?}");
                let redacted = format!("{redacted:?}");
                assert!(!redacted.contains(password), "{twin}");
                if secret.contains(password) {
                    assert_eq!(secret.replace(password, "***"), redacted, "{twin}");
                    checked += 1;
                }
                checked += 1;
            }
        }
        assert!(checked >= 5, "only {checked} twins rendered");
    }

    /// Every diagnostic path that may quote a URL: each string or list
    /// input of every renderer data source (the proxy URLs, the NO_PROXY
    /// inputs, the API server and endpoint inputs, the options) given a
    /// proxy URL with a hostile password, raw or percent-encoded, and the
    /// profile's NO_PROXY list: no diagnostic holds the password.
    #[test]
    fn no_diagnostic_quotes_a_password() {
        use crate::framework::value::Type;
        use crate::provider::inputs::RendererInputs;
        let profile_settings = |no_proxy: &str| Settings {
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            https_proxy: None,
            username: None,
            password: None,
            no_proxy: vec![no_proxy.to_owned()],
            trusted_ca: Maybe::Null,
            password_required: false,
            revision: None,
        };
        for password in ["p@ss:w/rd#%", "p%40ss%3Aw%2Frd%23%25"] {
            let urls = [
                format!("http://svc:{password}@proxy.corp.example:3128"),
                format!("svc:{password}@proxy.corp.example"),
                format!("ftp://svc:{password}@proxy.corp.example:99999/x"),
            ];
            let mut checked = 0;
            for renderer in renderers() {
                let schema = renderer.schema();
                for attribute in schema
                    .attributes
                    .iter()
                    .filter(|a| a.mode != Mode::Computed)
                {
                    for url in &urls {
                        let mut config = Value::object(
                            schema
                                .attributes
                                .iter()
                                .map(|a| (a.name.clone(), Value::null())),
                        );
                        let value = match &attribute.ty {
                            Type::String => Value::string(url.as_str()),
                            Type::List(inner) if **inner == Type::String => {
                                Value::list(vec![Value::string(url.as_str())])
                            }
                            Type::Object(_) if attribute.name == RendererInputs::profile => {
                                profile_settings(url).value()
                            }
                            _ => continue,
                        };
                        if attribute.name != RendererInputs::http_proxy
                            && attribute.name != RendererInputs::profile
                        {
                            config.set_attr(
                                RendererInputs::http_proxy,
                                Value::string("http://proxy.corp.example:3128"),
                            );
                        }
                        config.set_attr(&attribute.name, value);
                        let mut diags = Diagnostics::new();
                        read_checked(*renderer, &schema, config, &mut diags);
                        checked += 1;
                        for d in diags.iter() {
                            for text in [&d.summary, &d.detail] {
                                assert!(
                                    !text.contains(password) && !text.contains("p@ss"),
                                    "{}.{}: {text}",
                                    renderer.type_name(),
                                    attribute.name
                                );
                            }
                        }
                    }
                }
            }
            assert!(checked > 100, "{checked}");
        }
    }
}
