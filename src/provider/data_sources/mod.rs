//! Data sources, one per file; a renderer's file is named like its domain
//! renderer's (`tkg.rs` renders with `domain::render::tkg`), its Terraform
//! name (`clusterproxy_tkg_config`) is in `type_name`.

pub(crate) mod aks;
pub(crate) mod artifact_settings;
pub(crate) mod capi;
pub(crate) mod cloud_init;
pub(crate) mod eksa;
pub(crate) mod helm;
pub(crate) mod ignition;
pub(crate) mod kubespray;
pub(crate) mod kyverno;
pub mod no_proxy;
pub mod no_proxy_report;
pub(crate) mod openshift;
pub(crate) mod pod_env;
pub(crate) mod rke2;
pub mod systemd_dropin;
pub(crate) mod talos;
pub(crate) mod tkg;

#[cfg(test)]
mod tests {
    use crate::framework::data_source::read_checked;
    use crate::framework::diagnostics::Diagnostics;
    use crate::framework::model::{Field, Maybe};
    use crate::framework::schema::Mode;
    use crate::framework::value::Value;
    use crate::provider::inputs::Settings;
    use crate::provider::renderers;

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
            let Some(state) =
                read_checked(renderer.as_ref(), &schema, config, &mut Diagnostics::new())
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
}
