//! `provider::clusterproxy::render(platform, settings, options)`: what a
//! renderer data source computes, as a function. Terraform evaluates
//! functions while planning, so renders fed from a `clusterproxy_profile`'s
//! `settings` are known in the plan that changes the profile, where a data
//! source that references the profile is read only at apply.

use crate::domain::redact::quoted;
use std::sync::OnceLock;

use crate::domain::no_proxy::dialect::Dialect;
use crate::domain::redact::REDACTED_PASSWORD;
use crate::domain::spelling;
use crate::domain::warning::Warning;
use crate::framework::data_source::{read_checked, DataSource};
use crate::framework::diagnostics::{Diagnostic, Diagnostics, PathStep, Severity};
use crate::framework::function::{Function, FunctionError, Parameter, Signature, WireLimit};
use crate::framework::model::Field;
use crate::framework::schema::Mode;
use crate::framework::value::conform::conform;
use crate::framework::value::{Type, Value};
use crate::provider::data_sources::renderers;
use crate::provider::inputs::{RendererInputs, Settings};
use crate::provider::platform::NAME;

#[derive(Debug, Clone, Copy)]
pub struct Render;

/// The result attribute with the renderer's warnings.
pub const WARNINGS: &str = "warnings";

/// The option naming the warnings the caller accepts: a function cannot
/// warn, so any other warning fails the call.
pub const ACKNOWLEDGE: &str = "acknowledge_warnings";

/// Position of each parameter.
const PLATFORM: usize = 0;
const SETTINGS: usize = 1;
const OPTIONS: usize = 2;

/// The most the arguments may take, refused unread, so that a large input
/// costs no more memory than its message. The renderings hold the merged
/// list many times (`openshift_proxy`: 2.9 MiB of settings, 125,000 names,
/// give 35 MiB of result).
const INPUT_LIMIT: WireLimit = WireLimit {
    bytes: 3 * 1024 * 1024,
    why: "every rendering ends in an environment variable, which Linux refuses to a program at 128 KiB, and the renderings, which hold the merged NO_PROXY list many times, would pass the 64 MiB Terraform accepts in a response",
};

/// The platform names: the renderer data sources' names without the prefix.
fn platforms() -> Vec<&'static str> {
    renderers()
        .iter()
        .filter_map(|r| r.type_name().strip_prefix(&format!("{NAME}_")[..]))
        .collect()
}

/// The description of the `platform` parameter, which lists `platforms()`.
fn platform_description() -> &'static str {
    static DESCRIPTION: OnceLock<String> = OnceLock::new();
    DESCRIPTION.get_or_init(|| {
        let names: Vec<String> = platforms().iter().map(|p| format!("`{p}`")).collect();
        format!(
            "The renderer: the name of a renderer data source without the `{NAME}_` prefix ({}).",
            names.join(", ")
        )
    })
}

/// The function's description, with the list of warning identifiers.
fn description() -> &'static str {
    static DESCRIPTION: OnceLock<String> = OnceLock::new();
    DESCRIPTION.get_or_init(|| {
        format!(
            "Returns what the renderer data source of the same name computes (its computed attributes, e.g. `dropins` and `dropins_redacted` for `systemd_dropin`), plus `warnings`: the data source's warnings as text. A function cannot show a warning, so a render the data source would warn about fails (e.g. a unit named `kublet`), naming each warning and its code: the attribute path, `:` and the warning's identifier, such as `units[0]:unit_name_typo` (the identifier alone for a warning about the whole render); list the codes in `options.acknowledge_warnings` to accept them, and the render then returns them in `warnings`. An acknowledged code that names no warning of the render is an error too, so that a stale one never covers a new warning. Terraform evaluates functions while planning, so renders fed from a `clusterproxy_profile`'s `settings` are known, and platform rules are checked, in the plan that changes the profile; a data source that references the profile is read only at apply then. With a password merged into `settings` (a sensitive or ephemeral value), Terraform marks the whole result sensitive or ephemeral: to show what a change renders in plans and outputs, use `render_redacted`, which returns the redacted attributes from the profile's `settings` alone, without the password. Needs Terraform >= 1.8 (OpenTofu >= 1.7).\n\nThe warning identifiers, which never change when a message is reworded:\n{}",
            warning_list()
        )
    })
}

/// The configuration of `renderer`: `settings` as its `profile`, `options`
/// as its other inputs; an option the renderer does not take, or one the
/// profile already carries, is an error on `options`.
fn configuration(
    renderer: &dyn DataSource,
    settings: Value,
    options: &Value,
) -> Result<Value, FunctionError> {
    let schema = renderer.schema();
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    config.set_attr(RendererInputs::profile, settings);
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
    for (name, ty) in types.iter().filter(|(name, _)| *name != ACKNOWLEDGE) {
        let attribute = schema
            .attribute(name)
            .filter(|a| {
                a.mode != Mode::Computed
                    && a.name != RendererInputs::profile
                    && !a.conflicts_with.contains(&RendererInputs::profile)
            })
            .ok_or_else(|| {
                let inputs: Vec<&str> = schema
                    .attributes
                    .iter()
                    .filter(|a| a.mode != Mode::Computed)
                    .map(|a| a.name.as_str())
                    .collect();
                FunctionError::argument(
                    OPTIONS,
                    format!("options.{name}: not an input of {} other than the proxy settings, which come from `settings`{}", renderer.type_name(), did_you_mean(name, &inputs)),
                )
            })?;
        let item = value.get_attr(name).cloned().unwrap_or_else(Value::null);
        let converted = conform(&item, ty, &attribute.ty)
            .map_err(|why| FunctionError::argument(OPTIONS, format!("options.{name}: {why}.")))?;
        config.set_attr(name, converted);
    }
    Ok(config)
}

/// `; did you mean "x"?` when `name` looks like a misspelling of one of
/// `candidates` (see [`spelling::suggest`]), else nothing.
fn did_you_mean(name: &str, candidates: &[&str]) -> String {
    spelling::suggest(name, candidates)
        .map(|c| format!("; did you mean {c:?}?"))
        .unwrap_or_default()
}

/// The warnings `options` acknowledges (its `acknowledge_warnings`).
fn acknowledged(options: &Value) -> Result<Vec<String>, FunctionError> {
    let Value::Typed(typed) = options else {
        return Ok(Vec::new());
    };
    let (Type::Object(types), value) = (&typed.0, &typed.1) else {
        return Ok(Vec::new());
    };
    let Some(ty) = types.get(ACKNOWLEDGE) else {
        return Ok(Vec::new());
    };
    let item = value
        .get_attr(ACKNOWLEDGE)
        .cloned()
        .unwrap_or_else(Value::null);
    let list = conform(&item, ty, &Vec::<String>::ty()).map_err(|why| {
        FunctionError::argument(OPTIONS, format!("options.{ACKNOWLEDGE}: {why}."))
    })?;
    if list
        .elements()
        .is_some_and(|e| e.iter().any(Value::is_null))
    {
        return Err(FunctionError::argument(
            OPTIONS,
            format!("options.{ACKNOWLEDGE}: an element is null; name each warning by its code"),
        ));
    }
    Vec::<String>::get(&list, &mut Diagnostics::new()).ok_or_else(|| {
        FunctionError::argument(
            OPTIONS,
            format!("options.{ACKNOWLEDGE}: an element is unknown"),
        )
    })
}

/// A warning's code, the name that acknowledges it: its attribute path
/// and its kind's identifier (`units[0]:unit_name_typo`), or the identifier
/// alone for a warning about the whole render. Neither the summary nor the
/// detail (which may quote values) enters it, so rewording a message keeps
/// the code.
fn code(diagnostic: &Diagnostic) -> String {
    let id = diagnostic.id.unwrap_or_default();
    match &diagnostic.path {
        Some(path) => format!("{path}:{id}"),
        None => id.to_owned(),
    }
}

/// The code `acknowledgement` names: itself when it ends in a warning
/// identifier, the code of the deprecated form (attribute path and summary,
/// `units[0]: Unit name looks like a typo`) translated, or an error naming
/// the valid identifiers.
fn normalized(acknowledgement: &str) -> Result<String, FunctionError> {
    let (path, id) = match acknowledgement.rsplit_once(':') {
        Some((path, id)) => (Some(path), id),
        None => (None, acknowledgement),
    };
    if Warning::from_code(id).is_some() {
        return Ok(acknowledgement.to_owned());
    }
    let is_client = |name: &str| Dialect::from_name(name).is_some();
    let legacy = match acknowledgement.split_once(": ") {
        Some((path, summary)) => {
            Warning::from_legacy_summary(summary, is_client).map(|w| format!("{path}:{}", w.code()))
        }
        None => None,
    };
    legacy
        .or_else(|| Warning::from_legacy_summary(acknowledgement, is_client).map(|w| w.code().to_owned()))
        .ok_or_else(|| {
            let ids: Vec<&str> = Warning::ALL.iter().map(|w| w.code()).collect();
            let at = path.map(|p| format!(" (at `{p}`)")).unwrap_or_default();
            FunctionError::argument(
                OPTIONS,
                format!(
                    "options.{ACKNOWLEDGE}: {acknowledgement} names no warning kind{at}{}; a code is the attribute path, `:` and one of {}",
                    did_you_mean(id, &ids),
                    ids.join(", "), acknowledgement = quoted(acknowledgement)),
            )
        })
}

/// The warnings of `diags` as text (code, summary and detail), or an error
/// naming every one not in `acknowledged` (and every acknowledgement that
/// names no warning, so that a stale one cannot later cover a new warning).
fn warnings(diags: &Diagnostics, acknowledged: &[String]) -> Result<Vec<String>, FunctionError> {
    let acknowledged = acknowledged
        .iter()
        .map(|a| normalized(a))
        .collect::<Result<Vec<String>, FunctionError>>()?;
    let warnings: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    let codes: Vec<String> = warnings.iter().map(|d| code(d)).collect();
    let text = |code: &str, d: &Diagnostic| {
        format!("{code}: {}: {}", d.summary, d.detail.trim_end_matches('.'))
    };
    let unacknowledged: Vec<(&String, &&Diagnostic)> = codes
        .iter()
        .zip(&warnings)
        .filter(|(code, _)| !acknowledged.contains(code))
        .collect();
    if !unacknowledged.is_empty() {
        let each: Vec<String> = unacknowledged.iter().map(|(c, d)| text(c, d)).collect();
        let list: Vec<String> = unacknowledged
            .iter()
            .map(|(c, _)| format!("{c:?}"))
            .collect();
        return Err(FunctionError::argument(
            OPTIONS,
            format!(
                "The renderer warns, and a function cannot show warnings: {}. Fix the input, or accept each warning with options.{ACKNOWLEDGE} = [{}]",
                each.join("; "),
                list.join(", ")
            ),
        ));
    }
    if let Some(stale) = acknowledged.iter().find(|a| !codes.contains(a)) {
        return Err(FunctionError::argument(
            OPTIONS,
            format!(
                "options.{ACKNOWLEDGE}: {stale} names no warning of this render; remove it",
                stale = quoted(stale)
            ),
        ));
    }
    Ok(codes
        .iter()
        .zip(&warnings)
        .map(|(c, d)| format!("{c}: {}: {}", d.summary, d.detail))
        .collect())
}

/// The list of warning identifiers, for the function's description: one
/// line each, generated from [`Warning::ALL`], then the deprecated form.
fn warning_list() -> String {
    let mut list = String::new();
    for warning in Warning::ALL {
        list.push_str(&format!("\n- `{}`: {}", warning.code(), warning.doc()));
    }
    list.push_str("\n\nDeprecated: codes of the former form, the attribute path and the summary (`units[0]: Unit name looks like a typo`), still acknowledge the warnings that had these summaries (CLIENT stands for a NO_PROXY client's name, e.g. `python`): ");
    let legacy: Vec<String> = Warning::ALL
        .iter()
        .flat_map(|w| {
            w.legacy_summaries()
                .iter()
                .map(move |s| format!("\"{}\" (`{}`)", s.replace("{client}", "CLIENT"), w.code()))
        })
        .collect();
    list.push_str(&legacy.join(", "));
    list.push('.');
    list
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
    FunctionError::argument(argument, text)
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
                    description: platform_description(),
                    allow_null: false,
                    optional: &[],
                },
                Parameter {
                    name: "settings",
                    ty: Settings::ty(),
                    description: "The `settings` of a `clusterproxy_profile`, or an object literal with any of its public attributes (`http_proxy`, `https_proxy`, `username`, `password`, `no_proxy`, `trusted_ca`): the others are optional. The arguments together take at most 3 MiB in Terraform's wire format (about 125,000 NO_PROXY names): more are refused before they are read, since no client could take such a NO_PROXY list (Linux starts no program with an environment variable of 128 KiB) and its renderings would not fit a response.",
                    allow_null: false,
                    optional: SETTINGS_OPTIONAL,
                },
                Parameter {
                    name: "options",
                    ty: Type::Dynamic,
                    description: "An object with the renderer's other inputs, as in its data source (`pod_cidrs`, `units`, `cluster_name`...), and `acknowledge_warnings`: the codes of the warnings the caller accepts (see the function's description); or `null`.",
                    allow_null: true,
                    optional: &[],
                },
            ],
            returns: Type::Dynamic,
            summary: "Render proxy settings for a platform at plan time",
            description: description(),
            limit: Some(INPUT_LIMIT),
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        render(arguments, Outputs::All)
    }
}

/// Which computed attributes a render returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outputs {
    /// Every one (`render`).
    All,
    /// The `*_redacted` ones and those that are not sensitive (which hold
    /// no secret, e.g. the rotation names `secret_name` and
    /// `template_name_suffix` of `capi_kubeadm`), rendered without needing
    /// the password (`render_redacted`).
    Redacted,
}

/// The suffix of the redacted twins.
const REDACTED: &str = "_redacted";

/// The attributes of `settings` a call may leave out (Terraform >= 1.8 sets
/// them null; [`with_defaults`] gives them their meaning): all, so that an
/// object literal spells only what it sets, never `password_required` or
/// `revision`, which only a profile knows.
const SETTINGS_OPTIONAL: &[&str] = &[
    Settings::http_proxy,
    Settings::https_proxy,
    Settings::username,
    Settings::password,
    Settings::no_proxy,
    Settings::trusted_ca,
    Settings::password_required,
    Settings::revision,
];

/// `settings` with what a left-out attribute means: no NO_PROXY entries,
/// no password required.
fn with_defaults(mut settings: Value) -> Value {
    if settings
        .get_attr(Settings::no_proxy)
        .is_some_and(Value::is_null)
    {
        settings.set_attr(Settings::no_proxy, Value::list(Vec::new()));
    }
    if settings
        .get_attr(Settings::password_required)
        .is_some_and(Value::is_null)
    {
        settings.set_attr(Settings::password_required, Value::bool(false));
    }
    settings
}

/// `settings` for a render of the redacted outputs only: when the proxy
/// takes a password the settings do not carry, a stand-in fills it, which
/// the redacted outputs show as `***` like any password.
fn without_password(mut settings: Value) -> Value {
    let required = settings.get_attr("password_required") == Some(&Value::bool(true));
    let missing = settings.get_attr("password").is_none_or(Value::is_null);
    if required && missing {
        settings.set_attr("password", Value::string(REDACTED_PASSWORD));
    }
    settings
}

/// `render_redacted`'s refusal of a user name without a password where the
/// proxy takes none (`password_required` false): the renderers refuse it
/// too, but their advice is to call `render_redacted`.
fn refuse_username_alone(settings: &Value) -> Result<(), FunctionError> {
    let username = settings
        .get_attr("username")
        .and_then(Value::as_str)
        .is_some_and(|u| !u.trim().is_empty());
    let password = settings.get_attr("password").is_some_and(|p| !p.is_null());
    let required = settings.get_attr("password_required") == Some(&Value::bool(true));
    if username && !password && !required {
        return Err(FunctionError::argument(
            SETTINGS,
            "User name without password: the settings name a proxy user but carry no password and do not say that the proxy takes one (`password_required`), so the renderers would write proxy URLs `http://user@host` that authenticate no one, and the redacted outputs show what they write. Remove `username`, or set the password on the profile (`password` or `password_wo`): its `settings` then say `password_required`, and these outputs show `***` in the password's place.",
        ));
    }
    Ok(())
}

/// The call of `render` (every output) and `render_redacted` (the
/// redacted ones): one implementation for both.
pub fn render(arguments: &[Value], outputs: Outputs) -> Result<Value, FunctionError> {
    let platform = arguments
        .get(PLATFORM)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let renderer = renderers()
        .iter()
        .find(|r| r.type_name().strip_prefix(&format!("{NAME}_")[..]) == Some(platform))
        .ok_or_else(|| {
            FunctionError::argument(
                PLATFORM,
                format!(
                    "{platform} is not a platform{}; use one of {}",
                    did_you_mean(platform, &platforms()),
                    platforms().join(", "),
                    platform = quoted(platform)
                ),
            )
        })?;
    let settings = with_defaults(arguments.get(SETTINGS).cloned().unwrap_or_else(Value::null));
    let settings = match outputs {
        Outputs::All => settings,
        Outputs::Redacted => {
            refuse_username_alone(&settings)?;
            without_password(settings)
        }
    };
    let options = arguments.get(OPTIONS).cloned().unwrap_or_else(Value::null);
    let config = configuration(*renderer, settings, &options)?;
    let acknowledged = acknowledged(&options)?;
    let schema = renderer.schema();
    let mut diags = Diagnostics::new();
    let mut state =
        read_checked(*renderer, &schema, config, &mut diags).ok_or_else(|| first_error(&diags))?;
    let computed = schema
        .attributes
        .iter()
        .filter(|a| a.mode == Mode::Computed)
        .filter(|a| outputs == Outputs::All || a.name.ends_with(REDACTED) || !a.sensitive);
    let mut types: Vec<(String, Type)> = computed
        .clone()
        .map(|a| (a.name.clone(), a.ty.clone()))
        .collect();
    let mut values: Vec<(String, Value)> = computed
        .map(|a| {
            (
                a.name.clone(),
                state.take_attr(&a.name).unwrap_or_else(Value::null),
            )
        })
        .collect();
    let warnings = warnings(&diags, &acknowledged)?;
    types.push((WARNINGS.to_owned(), Vec::<String>::ty()));
    values.push((WARNINGS.to_owned(), warnings.value()));
    Ok(Value::Typed(Box::new((
        Type::Object(types.into_iter().collect()),
        Value::object(values),
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::model::Maybe;
    use crate::provider::data_sources::systemd_dropin::SystemdDropinDataSource;

    fn settings(username: Option<&str>, password: Option<&str>) -> Value {
        Settings {
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            https_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            username: username.map(str::to_owned),
            password: password.map(str::to_owned),
            no_proxy: vec!["registry.corp.example".to_owned()],
            trusted_ca: Maybe::Null,
            password_required: false,
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

    /// A render whose result could not fit a response is refused from the
    /// merged list's size, before the renderings are built: an error on
    /// `settings` naming the size and the limit (the transport's check of
    /// the built result would name `install_config_yaml`).
    #[test]
    fn a_result_too_large_is_refused_before_it_is_built() {
        // 70k names of 200 bytes: the five copies of `noProxy` take 70 MB.
        let labels = format!("{}.{}.{}", "a".repeat(54), "b".repeat(63), "c".repeat(63));
        let mut large = Settings::get(&settings(None, None), &mut Diagnostics::new()).unwrap();
        large.no_proxy = (0..70_000)
            .map(|i| format!("{i:08}-{labels}.example"))
            .collect();
        let Err(error) = call("openshift_proxy", large.value(), Value::null()) else {
            panic!("the result was built");
        };
        assert_eq!(error.argument, Some(SETTINGS), "{}", error.text);
        let limit = crate::framework::proto::MAX_VALUE_SIZE.to_string();
        assert!(
            error.text.starts_with(
                "profile.no_proxy: Result too large for Terraform: The result would take more than the "
            ) && error.text.contains(&limit),
            "{}",
            error.text
        );
    }

    /// `render` and `render_redacted` over the wire, as Terraform calls
    /// them: the arguments encoded, the response's result or error.
    fn call_over_the_wire<'a>(
        name: &str,
        arguments: impl Iterator<Item = (&'a Value, &'a Type)>,
    ) -> crate::framework::proto::call_function::Response {
        use crate::framework::proto::provider_server::Provider as _;
        use crate::framework::proto::{call_function, DynamicValue};
        use crate::framework::value::msgpack;
        let server =
            crate::framework::server::grpc::ProviderServer::new(&crate::provider::ClusterProxy);
        let arguments = arguments
            .map(|(value, ty)| DynamicValue {
                msgpack: msgpack::encode(value, ty).unwrap(),
                json: Vec::new(),
            })
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime
            .block_on(
                server.call_function(tonic::Request::new(call_function::Request {
                    name: name.into(),
                    arguments,
                })),
            )
            .unwrap()
            .into_inner()
    }

    /// Arguments over 3 MiB together (the probe's 500k-entry list takes
    /// 11.8 MiB) are refused unread, on the largest, naming the limit and
    /// why, however they are spread; the same call with a short list
    /// renders.
    #[test]
    fn inputs_beyond_the_limit_are_refused_unread() {
        let names = |n: usize| (0..n).map(|i| format!("host-{i}.corp.example"));
        let with_names = |n: usize| {
            let mut large = Settings::get(&settings(None, None), &mut Diagnostics::new()).unwrap();
            large.no_proxy = names(n).collect();
            large.value()
        };
        let with_pod_cidrs = |n: usize| {
            let cidrs: Vec<Value> = names(n).map(Value::string).collect();
            Value::Typed(Box::new((
                Type::object([("pod_cidrs", Type::Tuple(vec![Type::String; n]))]),
                Value::object([("pod_cidrs".to_owned(), Value::Tuple(cidrs))]),
            )))
        };
        let platform = Value::string("openshift_proxy");
        let (small, none) = (settings(None, None), Value::null());
        let (large_settings, large_options) = (with_names(140_000), with_pod_cidrs(140_000));
        let (half_settings, more_options) = (with_names(70_000), with_pod_cidrs(75_000));
        let long_platform = Value::string("x".repeat(3 << 20));
        let cases = [
            (SETTINGS, [&platform, &large_settings, &none]),
            (OPTIONS, [&platform, &small, &large_options]),
            (OPTIONS, [&platform, &half_settings, &more_options]),
            (PLATFORM, [&long_platform, &small, &none]),
        ];
        let types = [Type::String, Settings::ty(), Type::Dynamic];
        for function in ["render", "render_redacted"] {
            for (blamed, arguments) in &cases {
                let response = call_over_the_wire(function, arguments.iter().copied().zip(&types));
                assert!(response.result.is_none(), "{function}: a result");
                let error = response.error.expect("an error");
                assert_eq!(
                    error.function_argument,
                    Some(*blamed as i64),
                    "{function}: {error:?}"
                );
                assert!(
                    error.text.starts_with("the arguments take "),
                    "{function}: {error:?}"
                );
                assert!(
                    error.text.contains("more than the 3145728 bytes (3.0 MiB) this function takes in the wire format, this one the most: every rendering ends in an environment variable"),
                    "{function}: {error:?}"
                );
            }
            let rendered =
                call_over_the_wire(function, [&platform, &small, &none].into_iter().zip(&types));
            assert!(rendered.error.is_none(), "{function}: {:?}", rendered.error);
        }
    }

    /// A refusal tells nothing of the password: settings that differ only
    /// in its length get the same error, whether their arguments are over
    /// the limit or their result would not fit a response.
    #[test]
    fn refusals_are_the_same_whatever_the_password_takes() {
        let with = |password: &str, names: usize, len: usize| {
            let mut large = Settings::get(
                &settings(Some("svc"), Some(password)),
                &mut Diagnostics::new(),
            )
            .unwrap();
            large.no_proxy = (0..names)
                .map(|i| format!("{i:08}-{}.example", "a".repeat(len)))
                .collect();
            large.value()
        };
        let (platform, none) = (Value::string("openshift_proxy"), Value::null());
        let types = [Type::String, Settings::ty(), Type::Dynamic];
        let refused = |password: &str| {
            let settings = with(password, 140_000, 10);
            let response = call_over_the_wire(
                "render",
                [&platform, &settings, &none].into_iter().zip(&types),
            );
            response.error.expect("refused").text
        };
        assert_eq!(refused("p"), refused(&"p".repeat(40)));
        let too_large = |password: &str| {
            let Err(error) = call(
                "openshift_proxy",
                with(password, 70_000, 190),
                Value::null(),
            ) else {
                panic!("the result was built");
            };
            error.text
        };
        assert_eq!(too_large("p"), too_large(&"p".repeat(40)));
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
        let schema = SystemdDropinDataSource.schema();
        let mut config = Value::object(
            schema
                .attributes
                .iter()
                .map(|a| (a.name.clone(), Value::null())),
        );
        config.set_attr("profile", settings(Some("svc"), Some("pw")));
        config.set_attr(
            "pod_cidrs",
            crate::provider::attributes::string_list(&["192.168.0.0/16"]),
        );
        let state = read_checked(
            &SystemdDropinDataSource,
            &schema,
            config,
            &mut Diagnostics::new(),
        )
        .unwrap();
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

    fn units(names: &[&str]) -> (&'static str, Type, Value) {
        (
            "units",
            Type::Tuple(vec![Type::String; names.len()]),
            Value::Tuple(names.iter().map(|n| Value::string(*n)).collect()),
        )
    }

    fn acknowledge(codes: &[&str]) -> (&'static str, Type, Value) {
        (ACKNOWLEDGE, units(codes).1, units(codes).2)
    }

    const TYPO: &str = "units[0]:unit_name_typo";

    /// The code of the same warning in the deprecated form.
    const LEGACY_TYPO: &str = "units[0]: Unit name looks like a typo";

    /// A warning the data source would show fails the call unless its code
    /// is acknowledged; then it is returned in `warnings`.
    #[test]
    fn warnings_fail_unless_acknowledged() {
        let error = call(
            "systemd_dropin",
            settings(None, None),
            options(&[units(&["kublet"])]),
        )
        .unwrap_err();
        assert_eq!(error.argument, Some(OPTIONS));
        assert!(error.text.contains(TYPO), "{}", error.text);
        assert!(
            error.text.contains(&format!("{ACKNOWLEDGE} = [{TYPO:?}]")),
            "{}",
            error.text
        );
        for platform in ["systemd_dropin", "capi_kubeadm", "cloud_init"] {
            let result = call(
                platform,
                settings(None, None),
                options(&[units(&["kublet"]), acknowledge(&[TYPO])]),
            )
            .unwrap();
            let Value::Typed(typed) = result else {
                panic!("untyped result")
            };
            let warnings =
                Vec::<String>::get(typed.1.get_attr(WARNINGS).unwrap(), &mut Diagnostics::new())
                    .unwrap();
            assert_eq!(warnings.len(), 1, "{platform}: {warnings:?}");
            assert!(warnings[0].starts_with(TYPO), "{platform}: {warnings:?}");
        }
        // One acknowledgement covers one warning, not a second typo.
        let error = call(
            "systemd_dropin",
            settings(None, None),
            options(&[units(&["kublet", "containred"]), acknowledge(&[TYPO])]),
        )
        .unwrap_err();
        assert!(error.text.contains("units[1]"), "{}", error.text);
        assert!(
            !error.text.contains(&format!("[{TYPO:?}")),
            "{}",
            error.text
        );
        // A stale acknowledgement is an error.
        let error = call(
            "systemd_dropin",
            settings(None, None),
            options(&[units(&["kubelet"]), acknowledge(&[TYPO])]),
        )
        .unwrap_err();
        assert!(error.text.contains("names no warning"), "{}", error.text);
        let error = call(
            "systemd_dropin",
            settings(None, None),
            options(&[(ACKNOWLEDGE, Type::String, Value::string("x"))]),
        )
        .unwrap_err();
        assert!(error.text.contains(ACKNOWLEDGE), "{}", error.text);
    }

    /// Codes of the former form (path and summary) still acknowledge the
    /// warnings they named, and the render returns them with their code.
    #[test]
    fn old_form_acknowledgements_still_work() {
        let result = call(
            "systemd_dropin",
            settings(None, None),
            options(&[units(&["kublet"]), acknowledge(&[LEGACY_TYPO])]),
        )
        .unwrap();
        let Value::Typed(typed) = result else {
            panic!("untyped result")
        };
        let warnings =
            Vec::<String>::get(typed.1.get_attr(WARNINGS).unwrap(), &mut Diagnostics::new())
                .unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with(TYPO), "{warnings:?}");
        let star = Diagnostic::warning("NO_PROXY contains `*`", "d").with_id("no_proxy_star");
        let rejects = Diagnostic::warning("python rejects this NO_PROXY value", "d")
            .with_id("client_rejects_no_proxy");
        let legacy = ["NO_PROXY contains `*`", "ruby rejects this NO_PROXY value"];
        assert!(warnings_of(vec![star, rejects], &legacy).is_ok());
    }

    fn warnings_of(
        diags: Vec<Diagnostic>,
        acknowledged: &[&str],
    ) -> Result<Vec<String>, FunctionError> {
        let acknowledged: Vec<String> = acknowledged.iter().map(|a| (*a).to_owned()).collect();
        warnings(&diags.into_iter().collect(), &acknowledged)
    }

    /// A code is the path and the kind's identifier: a reworded summary
    /// keeps it (and the old form, which maps summaries as they were).
    #[test]
    fn codes_do_not_depend_on_the_summary() {
        let reworded = || {
            Diagnostic::warning("Is this unit name misspelt?", "d")
                .with_id(Warning::UnitNameTypo.code())
                .at(crate::framework::diagnostics::AttributePath::attribute("units").index(0))
        };
        for code in [TYPO, LEGACY_TYPO] {
            let warnings = warnings_of(vec![reworded()], &[code]).unwrap();
            assert_eq!(
                warnings,
                ["units[0]:unit_name_typo: Is this unit name misspelt?: d"]
            );
        }
        let error = warnings_of(vec![reworded()], &[]).unwrap_err();
        assert!(
            error.text.contains(&format!("[{TYPO:?}]")),
            "{}",
            error.text
        );
    }

    /// An acknowledgement that names no warning kind is an error listing
    /// the valid identifiers.
    #[test]
    fn unknown_identifiers_are_errors_naming_the_valid_ones() {
        let error = warnings_of(vec![], &["units[0]:unit_name_tpyo"]).unwrap_err();
        assert_eq!(error.argument, Some(OPTIONS));
        for warning in Warning::ALL {
            assert!(error.text.contains(warning.code()), "{}", error.text);
        }
        assert!(
            error.text.contains("did you mean \"unit_name_typo\""),
            "{}",
            error.text
        );
        let error = warnings_of(vec![], &["Unit name looks like a typoo"]).unwrap_err();
        assert!(
            error.text.contains("names no warning kind"),
            "{}",
            error.text
        );
    }

    /// Every identifier is listed in the function's description.
    #[test]
    fn the_description_lists_every_identifier() {
        for warning in Warning::ALL {
            let line = format!("- `{}`: {}", warning.code(), warning.doc());
            assert!(description().contains(&line), "{line}");
        }
    }

    /// No renderer has an input of the option's name.
    #[test]
    fn acknowledge_is_no_renderer_input() {
        for renderer in renderers() {
            assert!(renderer.schema().attribute(ACKNOWLEDGE).is_none());
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

    fn attributes(result: Value) -> Vec<String> {
        let Value::Typed(typed) = result else {
            panic!("untyped result")
        };
        let Type::Object(types) = typed.0 else {
            panic!("not an object")
        };
        types.keys().cloned().collect()
    }

    fn redacted_call(
        platform: &str,
        settings: Value,
        options: Value,
    ) -> Result<Value, FunctionError> {
        render(
            &[Value::string(platform), settings, options],
            Outputs::Redacted,
        )
    }

    /// An object literal spells only the public fields: the signature lets
    /// a call leave every attribute of `settings` out (cty's optional
    /// attributes), and the nulls Terraform puts in their place render as
    /// the settings of a profile without a password would.
    #[test]
    fn a_literal_with_public_fields_only_renders() {
        let parameter = &Render.signature().parameters[SETTINGS];
        let json: serde_json::Value = serde_json::from_slice(&parameter.type_json_bytes()).unwrap();
        assert_eq!(json[0], "object");
        assert_eq!(json[2], serde_json::json!(SETTINGS_OPTIONAL));
        let full = settings(None, None);
        let mut literal = full.clone();
        for name in [
            Settings::https_proxy,
            Settings::no_proxy,
            Settings::password_required,
            Settings::revision,
        ] {
            literal.set_attr(name, Value::null());
        }
        literal.set_attr(Settings::no_proxy, Value::null());
        let mut expected = full;
        expected.set_attr(Settings::https_proxy, Value::null());
        expected.set_attr(Settings::no_proxy, Value::list(Vec::new()));
        for platform in ["systemd_dropin", "pod_env"] {
            assert_eq!(
                call(platform, literal.clone(), Value::null()),
                call(platform, expected.clone(), Value::null()),
                "{platform}"
            );
            assert!(call(platform, literal.clone(), Value::null()).is_ok());
        }
    }

    /// `render_redacted` of settings whose password is required but not
    /// given returns exactly the redacted outputs of `render` with the
    /// password, and only those, the outputs that are not sensitive and
    /// `warnings`.
    #[test]
    fn render_redacted_needs_no_password() {
        let mut required = settings(Some("svc"), None);
        required.set_attr("password_required", Value::bool(true));
        let opts = || {
            options(&[
                pods(&["192.168.0.0/16"]),
                ("cluster_name", Type::String, Value::string("prod")),
            ])
        };
        assert!(call("capi_kubeadm", required.clone(), opts()).is_err());
        let redacted = redacted_call("capi_kubeadm", required, opts()).unwrap();
        let full = call(
            "capi_kubeadm",
            settings(Some("svc"), Some("p@ss:w/rd#%")),
            opts(),
        )
        .unwrap();
        let names = attributes(redacted.clone());
        assert!(names.contains(&"yaml_redacted".to_owned()), "{names:?}");
        let schema = renderers()
            .iter()
            .find(|r| r.type_name() == "clusterproxy_capi_kubeadm")
            .unwrap()
            .schema();
        let sensitive = |n: &str| schema.attribute(n).is_some_and(|a| a.sensitive);
        assert!(
            names
                .iter()
                .all(|n| n.ends_with(REDACTED) || n == WARNINGS || !sensitive(n)),
            "{names:?}"
        );
        let (Value::Typed(redacted), Value::Typed(full)) = (redacted, full) else {
            panic!("untyped")
        };
        for name in names {
            assert_eq!(redacted.1.get_attr(&name), full.1.get_attr(&name), "{name}");
        }
        let yaml = redacted.1.get_attr("secret_manifest_redacted").unwrap();
        assert!(!format!("{yaml:?}").contains("p@ss"));
    }

    /// A user name without a password (and none required) renders no
    /// broken credentials, in either function.
    #[test]
    fn username_without_password_is_refused() {
        for result in [
            call(
                "systemd_dropin",
                settings(Some("svc-k8s"), None),
                Value::null(),
            ),
            redacted_call(
                "systemd_dropin",
                settings(Some("svc-k8s"), None),
                Value::null(),
            ),
        ] {
            let error = result.unwrap_err();
            assert_eq!(error.argument, Some(SETTINGS), "{}", error.text);
            assert!(
                error.text.contains("User name without password"),
                "{}",
                error.text
            );
            assert!(error.text.contains("password"), "{}", error.text);
        }
        let own = redacted_call(
            "systemd_dropin",
            settings(Some("svc-k8s"), None),
            Value::null(),
        )
        .unwrap_err();
        assert!(!own.text.contains("render_redacted"), "{}", own.text);
    }

    /// A misspelt option or platform gets a suggestion, and no message ends
    /// with a period (Terraform adds its own).
    #[test]
    fn misspellings_are_suggested() {
        let error = call(
            "systemd_dropin",
            settings(None, None),
            options(&[("pod_cidr", Type::String, Value::string("x"))]),
        )
        .unwrap_err();
        assert!(
            error.text.contains("did you mean \"pod_cidrs\"?"),
            "{}",
            error.text
        );
        assert!(!error.text.ends_with('.'), "{}", error.text);
        let error = call("systemd_dropins", settings(None, None), Value::null()).unwrap_err();
        assert!(
            error.text.contains("did you mean \"systemd_dropin\"?"),
            "{}",
            error.text
        );
        assert!(!error.text.ends_with('.'), "{}", error.text);
    }
}
