//! `provider::clusterproxy::render(platform, settings, options)`: what a
//! renderer data source computes, as a function. Terraform evaluates
//! functions while planning, so renders fed from a `clusterproxy_profile`'s
//! `settings` are known in the plan that changes the profile, where a data
//! source that references the profile is read only at apply.

use crate::framework::data_source::{read_checked, DataSource};
use crate::framework::diagnostics::{Diagnostics, PathStep, Severity};
use crate::framework::function::{Function, FunctionError, Parameter, Signature};
use crate::framework::model::Field;
use crate::framework::schema::Mode;
use crate::framework::value::conform::conform;
use crate::framework::value::{Type, Value};
use crate::provider::inputs::{RendererInputs, Settings};
use crate::provider::{renderers, NAME};

/// The function.
#[derive(Debug, Clone, Copy)]
pub struct Render;

/// The result attribute with the renderer's warnings.
pub const WARNINGS: &str = "warnings";

/// Position of each parameter.
const PLATFORM: usize = 0;
const SETTINGS: usize = 1;
const OPTIONS: usize = 2;

/// The platform names: the renderer data sources' names without the prefix.
fn platforms() -> Vec<&'static str> {
    renderers()
        .iter()
        .filter_map(|r| r.type_name().strip_prefix(&format!("{NAME}_")[..]))
        .collect()
}

/// The configuration of `renderer`: `settings` as its `profile`, `options`
/// as its other inputs; an option the renderer does not take, or one the
/// profile already carries, is an error on `options`.
fn configuration(
    renderer: &dyn DataSource,
    settings: &Value,
    options: &Value,
) -> Result<Value, FunctionError> {
    let schema = renderer.schema();
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    config.set_attr(RendererInputs::profile, settings.clone());
    let (actual, value) = match options {
        Value::Typed(typed) => (&typed.0, &typed.1),
        _ => return Ok(config),
    };
    let Type::Object(types) = actual else {
        return Err(FunctionError::argument(
            OPTIONS,
            format!(
                "options must be an object of the renderer's inputs, got {}.",
                actual.to_json()
            ),
        ));
    };
    for (name, ty) in types {
        let attribute = schema
            .attribute(name)
            .filter(|a| {
                a.mode != Mode::Computed
                    && a.name != RendererInputs::profile
                    && !a.conflicts_with.contains(&RendererInputs::profile)
            })
            .ok_or_else(|| {
                FunctionError::argument(
                    OPTIONS,
                    format!("options.{name}: not an input of {} other than the proxy settings, which come from `settings`.", renderer.type_name()),
                )
            })?;
        let item = value.get_attr(name).cloned().unwrap_or_else(Value::null);
        let converted = conform(&item, ty, &attribute.ty)
            .map_err(|why| FunctionError::argument(OPTIONS, format!("options.{name}: {why}.")))?;
        config.set_attr(name, converted);
    }
    Ok(config)
}

/// The first error of `diags` as a function error on the argument that
/// holds its attribute (`settings` for the profile's fields).
fn first_error(diags: &Diagnostics) -> FunctionError {
    let Some(error) = diags.iter().find(|d| d.severity == Severity::Error) else {
        return FunctionError::argument(OPTIONS, "The renderer failed without a diagnostic.");
    };
    let on_profile = error
        .path
        .as_ref()
        .and_then(|p| p.steps().first().cloned())
        .is_some_and(|step| step == PathStep::Attribute(RendererInputs::profile.to_owned()));
    let argument = if on_profile { SETTINGS } else { OPTIONS };
    let text = match &error.path {
        Some(path) => format!("{path}: {}: {}", error.summary, error.detail),
        None => format!("{}: {}", error.summary, error.detail),
    };
    // Terraform ends the message with its own period.
    FunctionError::argument(argument, text.trim_end_matches('.'))
}

impl Function for Render {
    fn name(&self) -> &'static str {
        "render"
    }

    fn signature(&self) -> Signature {
        Signature {
            parameters: vec![
                Parameter {
                    name: "platform",
                    ty: Type::String,
                    description: "The renderer: the name of a renderer data source without the `clusterproxy_` prefix (`systemd_dropin`, `capi_kubeadm`, `tkg_config`, `aks_http_proxy_config`, `pod_env`, `openshift_proxy`, `eksa_proxy_config`, `kyverno_policy`, `helm_values`, `cloud_init`, `ignition`, `rke2`, `talos`, `kubespray`).",
                    allow_null: false,
                },
                Parameter {
                    name: "settings",
                    ty: Settings::ty(),
                    description: "The `settings` of a `clusterproxy_profile`.",
                    allow_null: false,
                },
                Parameter {
                    name: "options",
                    ty: Type::Dynamic,
                    description: "An object with the renderer's other inputs, as in its data source (`pod_cidrs`, `units`, `cluster_name`...), or `null`.",
                    allow_null: true,
                },
            ],
            returns: Type::Dynamic,
            summary: "Render proxy settings for a platform at plan time",
            description: "Returns what the renderer data source of the same name computes (its computed attributes, e.g. `dropins` and `dropins_redacted` for `systemd_dropin`), plus `warnings`: the data source's warnings as text. Terraform evaluates functions while planning, so renders fed from a `clusterproxy_profile`'s `settings` are known, and platform rules are checked, in the plan that changes the profile; a data source that references the profile is read only at apply then. Because `settings` is sensitive, Terraform marks the whole result sensitive: pass the redacted attributes through `nonsensitive()` to show them in plans and outputs. Needs Terraform >= 1.8 (OpenTofu >= 1.7).",
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        let platform = arguments
            .get(PLATFORM)
            .and_then(Value::as_str)
            .unwrap_or_default();
        let renderer = renderers()
            .into_iter()
            .find(|r| r.type_name().strip_prefix(&format!("{NAME}_")[..]) == Some(platform))
            .ok_or_else(|| {
                FunctionError::argument(
                    PLATFORM,
                    format!(
                        "{platform:?} is not a platform; use one of {}.",
                        platforms().join(", ")
                    ),
                )
            })?;
        let settings = arguments.get(SETTINGS).cloned().unwrap_or_else(Value::null);
        let options = arguments.get(OPTIONS).cloned().unwrap_or_else(Value::null);
        let config = configuration(renderer.as_ref(), &settings, &options)?;
        let schema = renderer.schema();
        let mut diags = Diagnostics::new();
        let state = read_checked(renderer.as_ref(), &schema, config, &mut diags)
            .ok_or_else(|| first_error(&diags))?;
        let computed = schema
            .attributes
            .iter()
            .filter(|a| a.mode == Mode::Computed);
        let mut types: Vec<(String, Type)> = computed
            .clone()
            .map(|a| (a.name.clone(), a.ty.clone()))
            .collect();
        let mut values: Vec<(String, Value)> = computed
            .map(|a| {
                (
                    a.name.clone(),
                    state.get_attr(&a.name).cloned().unwrap_or_else(Value::null),
                )
            })
            .collect();
        let warnings: Vec<String> = diags
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .map(|d| match &d.path {
                Some(path) => format!("{path}: {}: {}", d.summary, d.detail),
                None => format!("{}: {}", d.summary, d.detail),
            })
            .collect();
        types.push((WARNINGS.to_owned(), Vec::<String>::ty()));
        values.push((WARNINGS.to_owned(), warnings.value()));
        Ok(Value::Typed(Box::new((
            Type::Object(types.into_iter().collect()),
            Value::object(values),
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::model::Maybe;
    use crate::provider::data_sources::systemd_dropin::SystemdDropin;

    fn settings(username: Option<&str>, password: Option<&str>) -> Value {
        Settings {
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            https_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            username: username.map(str::to_owned),
            password: password.map(str::to_owned),
            no_proxy: vec!["registry.corp.example".to_owned()],
            trusted_ca: Maybe::Null,

            password_write_only: false,
            revision: None,
        }
        .value()
    }

    fn options(attributes: &[(&str, Type, Value)]) -> Value {
        let types = attributes.iter().map(|(n, t, _)| (*n, t.clone()));
        let values = attributes
            .iter()
            .map(|(n, _, v)| ((*n).to_owned(), v.clone()));
        Value::Typed(Box::new((Type::object(types), Value::object(values))))
    }

    fn pods(cidrs: &[&str]) -> (&'static str, Type, Value) {
        (
            "pod_cidrs",
            Type::Tuple(vec![Type::String; cidrs.len()]),
            Value::Tuple(cidrs.iter().map(|c| Value::string(*c)).collect()),
        )
    }

    fn call(platform: &str, settings: Value, options: Value) -> Result<Value, FunctionError> {
        Render.call(&[Value::string(platform), settings, options])
    }

    /// The function returns exactly what the data source computes.
    #[test]
    fn render_equals_the_data_source() {
        let result = call(
            "systemd_dropin",
            settings(Some("svc"), Some("pw")),
            options(&[pods(&["192.168.0.0/16"])]),
        )
        .unwrap();
        let Value::Typed(typed) = result else {
            panic!("untyped result")
        };
        let schema = SystemdDropin.schema();
        let mut config = Value::object(
            schema
                .attributes
                .iter()
                .map(|a| (a.name.clone(), Value::null())),
        );
        config.set_attr("profile", settings(Some("svc"), Some("pw")));
        config.set_attr(
            "pod_cidrs",
            crate::provider::convert::string_list(&["192.168.0.0/16"]),
        );
        let state = read_checked(&SystemdDropin, &schema, config, &mut Diagnostics::new()).unwrap();
        for name in [
            "dropins",
            "dropins_redacted",
            "default_environment",
            "commands",
        ] {
            assert_eq!(typed.1.get_attr(name), state.get_attr(name), "{name}");
        }
        assert_eq!(typed.1.get_attr("warnings"), Some(&Value::list(Vec::new())));
        assert!(
            typed.1.get_attr("pod_cidrs").is_none(),
            "inputs are not echoed"
        );
    }

    /// The documented platform list names every renderer.
    #[test]
    fn platform_parameter_names_every_renderer() {
        let description = Render.signature().parameters[PLATFORM].description;
        for platform in platforms() {
            assert!(description.contains(&format!("`{platform}`")), "{platform}");
        }
    }

    #[test]
    fn bad_arguments_are_errors_on_their_argument() {
        let error = call("nope", settings(None, None), Value::null()).unwrap_err();
        assert_eq!(error.argument, Some(PLATFORM));
        assert!(error.text.contains("systemd_dropin"), "{}", error.text);
        let conflicting = options(&[("http_proxy", Type::String, Value::string("http://x:1"))]);
        let error = call("pod_env", settings(None, None), conflicting).unwrap_err();
        assert_eq!(error.argument, Some(OPTIONS));
        assert!(error.text.contains("options.http_proxy"), "{}", error.text);
        let error = call(
            "pod_env",
            settings(None, None),
            options(&[pods(&["10.0.0.1/8"])]),
        )
        .unwrap_err();
        assert_eq!(error.argument, Some(OPTIONS));
        assert!(error.text.contains("pod_cidrs[0]"), "{}", error.text);
        let not_an_object = Value::Typed(Box::new((Type::String, Value::string("x"))));
        assert_eq!(
            call("pod_env", settings(None, None), not_an_object)
                .unwrap_err()
                .argument,
            Some(OPTIONS)
        );
        let error = call("pod_env", settings(Some("svc"), Some("")), Value::null()).unwrap_err();
        assert_eq!(error.argument, Some(SETTINGS), "{}", error.text);
    }
}
