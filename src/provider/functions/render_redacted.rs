//! `provider::clusterproxy::render_redacted(platform, settings, options)`:
//! the redacted outputs of `render`, which need no password, for reviewers.

use crate::framework::function::{Function, FunctionError, Signature};
use crate::framework::value::Value;
use crate::provider::functions::render::{self, Outputs, Render};

#[derive(Debug, Clone, Copy)]
pub struct RenderRedacted;

impl Function for RenderRedacted {
    fn name(&self) -> &'static str {
        "render_redacted"
    }

    fn signature(&self) -> Signature {
        Signature {
            summary: "Render the redacted outputs of a platform, without the password",
            description: "Returns the `*_redacted` attributes of `render` with the same arguments (e.g. `dropins_redacted` for `systemd_dropin`, `yaml_redacted` and `secret_manifest_redacted` for `capi_kubeadm`), the attributes that are not sensitive and so hold no secret (e.g. the rotation names `secret_name` and `template_name_suffix` of `capi_kubeadm`, which move with the profile's `revision`) and `warnings`, acknowledged the same way. It never needs the password: a profile whose `password_required` is true (`password` or `password_wo`) renders with `***` in the password's place, exactly as the redacted twins show it. Pass the profile's `settings` as they are: they carry no secret, so the result is not sensitive and plans and outputs show it without `nonsensitive()`, so that reviewers see what a change of the profile (a rotation moves `revision`) changes in each platform's configuration. A settings object with a password merged in makes Terraform mark the result sensitive. Like `render`, it refuses a user name without a password where the profile takes none. Needs Terraform >= 1.8 (OpenTofu >= 1.7).",
            ..Render.signature()
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        render::render(arguments, Outputs::Redacted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::model::{Field as _, Maybe};
    use crate::framework::value::Type;
    use crate::provider::inputs::Settings;

    /// The rotation names the day-2 guide shows: a profile at revision 2
    /// names the Secret `<cluster>-systemd-proxy-r2` and the template
    /// suffix `-r2`, without the password.
    #[test]
    fn returns_the_rotation_names() {
        let settings = Settings {
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            https_proxy: None,
            username: Some("svc".to_owned()),
            password: None,
            no_proxy: vec!["registry.corp.example".to_owned()],
            trusted_ca: Maybe::Null,
            password_required: true,
            revision: Some(2),
        }
        .value();
        let options = Value::Typed(Box::new((
            Type::object([("cluster_name", Type::String)]),
            Value::object([("cluster_name".to_owned(), Value::string("prod"))]),
        )));
        let result = RenderRedacted
            .call(&[Value::string("capi_kubeadm"), settings, options])
            .unwrap();
        let Value::Typed(result) = result else {
            panic!("untyped result")
        };
        assert_eq!(
            result.1.get_attr("secret_name"),
            Some(&Value::string("prod-systemd-proxy-r2"))
        );
        assert_eq!(
            result.1.get_attr("template_name_suffix"),
            Some(&Value::string("-r2"))
        );
        assert_eq!(result.1.get_attr("yaml"), None, "a sensitive output");
    }
}
