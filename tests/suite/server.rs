//! In-process tests of every RPC, without gRPC: the real provider's registry
//! driven through `framework::server::Server`, with values built from the
//! served schemas. Plans are checked against the rules Terraform holds
//! providers to (hashicorp/terraform internal/plans/objchange
//! AssertPlanValid: non-computed attributes equal the configuration,
//! configured computed attributes too, an update that changes nothing keeps
//! the prior state).

use std::sync::mpsc;
use std::time::Duration;

use clusterproxy::framework::diagnostics::{AttributePath, Diagnostics};
use clusterproxy::framework::schema::{Mode, Schema};
use clusterproxy::framework::server::guard::{self, Subject};
use clusterproxy::framework::server::{
    ApplyResourceChange, PlanResourceChange, PlannedChange, Server, UpgradeResourceState,
};
use clusterproxy::framework::value::{Number, Type, Value};
use clusterproxy::provider::{renderers, ClusterProxy};
use clusterproxy_cancel as cancel;

const PROFILE: &str = "clusterproxy_profile";
const NO_PROXY: &str = "clusterproxy_no_proxy";
const NO_PROXY_REPORT: &str = "clusterproxy_no_proxy_report";
const PROXY: &str = "http://proxy.corp.example:3128";

fn server() -> Server {
    Server::new(&ClusterProxy)
}

fn profile_schema(server: &Server) -> &Schema {
    &server.registry().resources()[PROFILE].schema
}

/// An object of `schema` with `set` and null everywhere else.
fn object(schema: &Schema, set: &[(&str, Value)]) -> Value {
    let mut value = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    for (name, v) in set {
        assert!(schema.attribute(name).is_some(), "no attribute {name}");
        value.set_attr(name, v.clone());
    }
    value
}

fn set(items: &[&str]) -> Value {
    Value::Set(items.iter().map(|s| Value::string(*s)).collect())
}

fn list(items: &[&str]) -> Value {
    Value::list(items.iter().map(|s| Value::string(*s)).collect())
}

/// A profile configuration: name "corp", the proxy, then `set`.
fn profile_config(server: &Server, extra: &[(&str, Value)]) -> Value {
    let mut config = object(
        profile_schema(server),
        &[
            ("name", Value::string("corp")),
            ("http_proxy", Value::string(PROXY)),
            ("no_proxy", set(&["registry.corp.example", "10.0.0.0/8"])),
        ],
    );
    for (name, v) in extra {
        config.set_attr(name, v.clone());
    }
    config
}

/// Terraform's proposed new state: the configuration, with computed
/// attributes left null in it taken from the prior state.
fn proposed(schema: &Schema, prior: &Value, config: &Value) -> Value {
    let mut proposed = config.clone();
    if prior.is_null() {
        return proposed;
    }
    for attribute in &schema.attributes {
        let configured = !config.get_attr(&attribute.name).unwrap().is_null();
        if attribute.mode.is_computed() && !configured {
            proposed.set_attr(
                &attribute.name,
                prior.get_attr(&attribute.name).unwrap().clone(),
            );
        }
    }
    proposed
}

/// Plans `config` over `prior` as Terraform does and checks the planning
/// invariants on the result.
fn plan(server: &Server, prior: &Value, config: &Value) -> (Option<PlannedChange>, Diagnostics) {
    let schema = profile_schema(server);
    let mut diags = Diagnostics::new();
    let planned = server.plan_resource_change(
        PlanResourceChange {
            type_name: PROFILE,
            prior_state: prior.clone(),
            proposed_new_state: proposed(schema, prior, config),
            config: config.clone(),
        },
        &mut diags,
    );
    if let Some(planned) = &planned {
        assert_plan_valid(schema, prior, config, &planned.planned_state);
    }
    (planned, diags)
}

/// Terraform's checks of a planned object against its configuration and
/// prior state.
fn assert_plan_valid(schema: &Schema, prior: &Value, config: &Value, planned: &Value) {
    for attribute in &schema.attributes {
        let name = &attribute.name;
        let configured = config.get_attr(name).unwrap();
        let value = planned.get_attr(name).expect("every attribute planned");
        if attribute.write_only {
            assert!(value.is_null(), "{name}: write-only, planned non-null");
            continue;
        }
        let must_equal_config = !attribute.mode.is_computed()
            || (attribute.mode == Mode::OptionalComputed && !configured.is_null());
        if must_equal_config {
            assert_eq!(
                value, configured,
                "{name}: planned value differs from configuration"
            );
        }
        if attribute.mode == Mode::Computed && !prior.is_null() {
            let unchanged = schema
                .attributes
                .iter()
                .filter(|a| a.mode.is_configurable())
                .all(|a| prior.get_attr(&a.name) == planned.get_attr(&a.name));
            if unchanged {
                assert_eq!(
                    value,
                    prior.get_attr(name).unwrap(),
                    "{name}: an update that changes nothing keeps the prior state"
                );
            }
        }
    }
}

fn apply(
    server: &Server,
    prior: &Value,
    planned: &Value,
    config: &Value,
) -> (Option<Value>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let state = server.apply_resource_change(
        ApplyResourceChange {
            type_name: PROFILE,
            prior_state: prior.clone(),
            planned_state: planned.clone(),
            config: config.clone(),
        },
        &mut diags,
    );
    (state, diags)
}

/// Plans and applies `config` over `prior`: the new state.
fn converge(server: &Server, prior: &Value, config: &Value) -> Value {
    let (planned, diags) = plan(server, prior, config);
    assert!(!diags.has_errors(), "{diags:?}");
    let planned = planned.unwrap().planned_state;
    let (state, diags) = apply(server, prior, &planned, config);
    assert!(!diags.has_errors(), "{diags:?}");
    state.unwrap()
}

fn summaries(diags: &Diagnostics) -> Vec<&str> {
    diags.iter().map(|d| d.summary.as_str()).collect()
}

fn attr<'a>(value: &'a Value, name: &str) -> &'a Value {
    value.get_attr(name).unwrap()
}

#[test]
fn get_metadata_lists_what_the_provider_serves() {
    let server = server();
    let metadata = server.get_metadata();
    assert_eq!(metadata.resources, [PROFILE]);
    assert!(metadata.data_sources.contains(&NO_PROXY));
    assert!(metadata
        .data_sources
        .iter()
        .all(|d| d.starts_with("clusterproxy_")));
    assert_eq!(
        metadata.functions,
        [
            "merge_no_proxy",
            "no_proxy_bypasses",
            "render",
            "render_redacted"
        ]
    );
}

#[test]
fn get_provider_schema_and_get_functions_cover_every_name_of_the_metadata() {
    let server = server();
    let metadata = server.get_metadata();
    let schema = server.get_provider_schema();
    assert!(schema.resources.keys().eq(metadata.resources.iter()));
    assert!(schema.data_sources.keys().eq(metadata.data_sources.iter()));
    assert!(schema.functions.keys().eq(metadata.functions.iter()));
    assert!(server.get_functions().keys().eq(metadata.functions.iter()));
    assert_eq!(schema.resources[PROFILE].version, 4);
    assert!(
        schema.resources[PROFILE]
            .attribute("password")
            .unwrap()
            .sensitive
    );
}

#[test]
fn provider_configuration_is_validated_and_configured() {
    let server = server();
    let config = object(server.registry().provider_schema(), &[]);
    for config in [Value::null(), config] {
        let mut diags = Diagnostics::new();
        server.validate_provider_config(&config, &mut diags);
        server.configure_provider("1.11.0", &config, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
    }
}

#[test]
fn validate_resource_config_cases() {
    let server = server();
    let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        ("valid", PROFILE, profile_config(&server, &[]), vec![]),
        (
            "unknown proxy: checked at apply",
            PROFILE,
            profile_config(&server, &[("http_proxy", Value::unknown())]),
            vec![],
        ),
        (
            "no scheme in the proxy",
            PROFILE,
            profile_config(
                &server,
                &[("http_proxy", Value::string("proxy.corp.example:3128"))],
            ),
            vec!["error"],
        ),
        (
            "null element in no_proxy",
            PROFILE,
            profile_config(&server, &[("no_proxy", Value::Set(vec![Value::null()]))]),
            vec!["error"],
        ),
        (
            "unknown type",
            "clusterproxy_nope",
            Value::null(),
            vec!["Unknown resource type"],
        ),
    ];
    for (case, type_name, config, expected) in cases {
        let mut diags = Diagnostics::new();
        server.validate_resource_config(type_name, &config, true, &mut diags);
        if expected == ["error"] {
            assert!(diags.has_errors(), "{case}: {diags:?}");
            assert!(
                diags.iter().all(|d| d.path.is_some()),
                "{case}: on an attribute: {diags:?}"
            );
        } else {
            assert_eq!(summaries(&diags), expected, "{case}");
        }
    }
}

#[test]
fn validate_data_resource_config_cases() {
    let server = server();
    let schema = &server.registry().data_sources()[NO_PROXY].schema;
    let valid = object(schema, &[("installation", list(&[".corp.example"]))]);
    let mut diags = Diagnostics::new();
    server.validate_data_resource_config(NO_PROXY, &valid, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    let unknown = object(schema, &[("installation", Value::unknown())]);
    server.validate_data_resource_config(NO_PROXY, &unknown, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    let null_element = object(
        schema,
        &[("installation", Value::list(vec![Value::null()]))],
    );
    server.validate_data_resource_config(NO_PROXY, &null_element, &mut diags);
    assert!(diags.has_errors());
    let mut diags = Diagnostics::new();
    server.validate_data_resource_config("clusterproxy_nope", &valid, &mut diags);
    assert_eq!(summaries(&diags), ["Unknown data source type"]);
}

/// An input that only shapes the outputs together with another one is an
/// error on its own attribute when the other is certainly absent, both in
/// ValidateDataResourceConfig and in ReadDataSource; a default the user did
/// not set, the other input unknown or set, or the input itself unknown at
/// validation (a module's variable may still turn out null; the read checks
/// it known) is no error. The `render` function blames its `options`
/// argument for the same input.
#[test]
fn inputs_set_without_what_they_need_are_errors_on_them() {
    let server = server();
    // (data source, input, its value, the input it needs, a value of that).
    let cases = [
        (
            "kyverno_policy",
            "config_map_name",
            "proxy-ca",
            "trusted_ca",
            None,
        ),
        (
            "helm_values",
            "config_map_name",
            "proxy-ca",
            "trusted_ca",
            None,
        ),
        ("helm_values", "namespace", "apps", "trusted_ca", None),
        ("pod_env", "config_map_name", "proxy-ca", "trusted_ca", None),
        (
            "capi_kubeadm",
            "namespace",
            "org-acme",
            "cluster_name",
            Some("prod"),
        ),
        (
            "kubespray",
            "apiserver_loadbalancer_domain_name",
            "lb.corp.example",
            "loadbalancer_apiserver_address",
            Some("10.0.0.10"),
        ),
        ("cloud_init", "os_family", "rhel", "trusted_ca", None),
        (
            "pod_env",
            "credentials_secret_namespace",
            "apps",
            "credentials_secret",
            Some("proxy-credentials"),
        ),
        (
            "kyverno_policy",
            "credentials_secret_namespace",
            "platform",
            "credentials_secret",
            Some("proxy-credentials"),
        ),
        (
            "helm_values",
            "credentials_secret_namespace",
            "cert-manager",
            "credentials_secret",
            Some("proxy-credentials"),
        ),
        ("rke2", "os_family", "rhel", "trusted_ca", None),
        ("kubespray", "os_family", "rhel", "trusted_ca", None),
    ];
    for (platform, input, value, needed, needed_value) in cases {
        let name = format!("clusterproxy_{platform}");
        let schema = &server.registry().data_sources()[name.as_str()].schema;
        let with = |set: &[(&str, Value)]| {
            let mut all = vec![("http_proxy", Value::string(PROXY))];
            all.extend(set.iter().cloned());
            object(schema, &all)
        };
        let input_set = (input, Value::string(value));
        let set = with(std::slice::from_ref(&input_set));
        let summary = format!("Set without {needed}");
        let mut diags = Diagnostics::new();
        server.validate_data_resource_config(&name, &set, &mut diags);
        assert_eq!(summaries(&diags), [summary.as_str()], "{name}.{input}");
        let error = diags.iter().next().unwrap();
        assert_eq!(error.path, Some(AttributePath::attribute(input)), "{name}");
        let mut diags = Diagnostics::new();
        assert!(server.read_data_source(&name, set, &mut diags).is_none());
        assert_eq!(summaries(&diags), [summary.as_str()], "{name}.{input}");
        let mut fine = vec![
            with(&[]),
            with(&[input_set.clone(), (needed, Value::unknown())]),
            with(&[(input, Value::unknown())]),
        ];
        if let Some(needed_value) = needed_value {
            fine.push(with(&[input_set, (needed, Value::string(needed_value))]));
        }
        for config in fine {
            let mut diags = Diagnostics::new();
            server.validate_data_resource_config(&name, &config, &mut diags);
            assert!(diags.is_empty(), "{name}.{input}: {diags:?}");
        }
        let settings = Value::object([
            ("http_proxy".to_owned(), Value::string(PROXY)),
            ("https_proxy".to_owned(), Value::null()),
            ("username".to_owned(), Value::null()),
            ("password".to_owned(), Value::null()),
            ("no_proxy".to_owned(), Value::list(Vec::new())),
            ("trusted_ca".to_owned(), Value::null()),
        ]);
        let options = Value::Typed(Box::new((
            Type::object([(input, Type::String)]),
            Value::object([(input.to_owned(), Value::string(value))]),
        )));
        let error = server
            .call_function("render", &[Value::string(platform), settings, options])
            .expect_err(&name);
        assert_eq!(error.argument, Some(2), "{name}: {error:?}");
        assert!(error.text.contains(&summary), "{name}: {}", error.text);
    }
}

/// Names of one unit (`kubelet`, `kubelet.service`) are one unit in every
/// node renderer: one drop-in and one restart, where first named; a finding
/// about a unit points at the `units` element that named it, not at its
/// position among the distinct units.
#[test]
fn units_named_twice_are_rendered_once() {
    let server = server();
    let units = list(&["containerd", "kubelet", "kubelet.service"]);
    let read = |name: &str, set: &[(&str, Value)]| {
        let schema = &server.registry().data_sources()[name].schema;
        let mut all = vec![("http_proxy", Value::string(PROXY))];
        all.extend(set.iter().cloned());
        let mut diags = Diagnostics::new();
        let state = server.read_data_source(name, object(schema, &all), &mut diags);
        (state, diags)
    };
    let path = "/etc/systemd/system/kubelet.service.d/http-proxy.conf";
    let restart = "systemctl restart -- 'kubelet.service'";
    let strings = |value: &Value| -> Vec<String> {
        value
            .elements()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let count = |text: &str, needle: &str| text.matches(needle).count();
    let (state, diags) = read("clusterproxy_systemd_dropin", &[("units", units.clone())]);
    let state = state.unwrap_or_else(|| panic!("{diags:?}"));
    assert_eq!(attr(&state, "dropins").elements().unwrap().len(), 2);
    let commands = strings(attr(&state, "commands"));
    assert_eq!(commands.iter().filter(|c| *c == restart).count(), 1);
    let (state, diags) = read("clusterproxy_cloud_init", &[("units", units.clone())]);
    let state = state.unwrap_or_else(|| panic!("{diags:?}"));
    let user_data = attr(&state, "user_data").as_str().unwrap();
    assert_eq!(count(user_data, path), 1, "{user_data}");
    assert_eq!(count(user_data, restart), 1, "{user_data}");
    let (state, diags) = read("clusterproxy_ignition", &[("units", units.clone())]);
    let state = state.unwrap_or_else(|| panic!("{diags:?}"));
    let config = attr(&state, "config").as_str().unwrap();
    assert_eq!(count(config, path), 1, "{config}");
    let (state, diags) = read("clusterproxy_capi_kubeadm", &[("units", units.clone())]);
    let state = state.unwrap_or_else(|| panic!("{diags:?}"));
    assert_eq!(attr(&state, "files").elements().unwrap().len(), 2);
    let refused = (
        "units",
        list(&["kubelet", "kubelet.service", "containerd", "..foo"]),
    );
    let cluster = ("cluster_name", Value::string("prod"));
    let (state, diags) = read("clusterproxy_capi_kubeadm", &[refused, cluster]);
    assert!(state.is_none());
    assert_eq!(summaries(&diags), ["Secret key not accepted by Kubernetes"]);
    let error = diags.iter().next().unwrap();
    assert_eq!(error.path, Some(AttributePath::attribute("units").index(3)));
}

#[test]
fn upgrade_resource_state_cases() {
    let server = server();
    let v0 = br#"{"id":"corp","name":"corp","description":"d","http_proxy":"http://proxy.corp.example:3128","https_proxy":null,"username":"u","password":"p","no_proxy":"a.example, b.example","trusted_ca":null}"#;
    let v1 = br#"{"id":"corp","name":"corp","description":"d","http_proxy":"http://proxy.corp.example:3128","https_proxy":null,"username":"u","password":"p","no_proxy":["b.example","a.example"],"trusted_ca":null,"normalized_http_proxy":"http://proxy.corp.example:3128","normalized_https_proxy":"http://proxy.corp.example:3128","normalized_no_proxy":["b.example","a.example"],"http_proxy_url":"http://u:p@proxy.corp.example:3128","https_proxy_url":"http://u:p@proxy.corp.example:3128","fingerprint":"0000000000000000000000000000000000000000000000000000000000000000","revision":7,"settings":{"http_proxy":"http://proxy.corp.example:3128","https_proxy":"http://proxy.corp.example:3128","username":"u","password":"p","no_proxy":["b.example","a.example"],"trusted_ca":null}}"#;
    let current = converge(&server, &Value::null(), &profile_config(&server, &[]));
    let current_json = clusterproxy::framework::value::json::encode(
        &current,
        &server.registry().resources()[PROFILE].object_type,
    )
    .unwrap();
    let upgrade = |version: i64, raw_json: &[u8]| {
        let mut diags = Diagnostics::new();
        let state = server.upgrade_resource_state(
            UpgradeResourceState {
                type_name: PROFILE,
                version,
                raw_json,
            },
            &mut diags,
        );
        (state, diags)
    };
    // Version 0: no_proxy was one comma-separated string, no revision.
    let (state, diags) = upgrade(0, v0);
    assert!(!diags.has_errors(), "{diags:?}");
    let state = state.unwrap();
    assert!(state.is_wholly_known());
    assert_eq!(attr(&state, "no_proxy"), &set(&["a.example", "b.example"]));
    assert_eq!(attr(&state, "revision"), &Value::int(1));
    // Version 1 keeps its revision and every input.
    let (state, diags) = upgrade(1, v1);
    assert!(!diags.has_errors(), "{diags:?}");
    let state = state.unwrap();
    assert_eq!(attr(&state, "revision"), &Value::int(7));
    assert_eq!(attr(&state, "password"), &Value::string("p"));
    assert_eq!(attr(&state, "no_proxy"), &set(&["a.example", "b.example"]));
    // The current version is read as stored; versions 3 and 2 (the URLs
    // with credentials in `http_proxy_url`/`https_proxy_url`, `settings`
    // without `password_required` and `revision`; in version 2 the CA
    // certificates in the order written) upgrade to the same state when it
    // holds no CA.
    let (state, diags) = upgrade(4, &current_json);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(state.unwrap(), current);
    let mut v3: serde_json::Value = serde_json::from_slice(&current_json).unwrap();
    let settings = v3["settings"].as_object_mut().unwrap();
    settings.remove("password_required");
    settings.remove("revision");
    let top = v3.as_object_mut().unwrap();
    top.remove("password_wo");
    top.remove("password_wo_version");
    for url in ["http_proxy_url", "https_proxy_url"] {
        top.insert(url.into(), serde_json::Value::Null);
    }
    let v3 = v3.to_string();
    for version in [3, 2] {
        let (state, diags) = upgrade(version, v3.as_bytes());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(state.unwrap(), current, "version {version}");
    }
    // A stored write-only value (what a Terraform without write-only
    // support would have kept) comes back null.
    let mut stored: serde_json::Value = serde_json::from_slice(&current_json).unwrap();
    stored["password_wo"] = "leaked".into();
    let (state, diags) = upgrade(4, stored.to_string().as_bytes());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(state.unwrap(), current);
    for (version, raw, summary) in [
        (
            5,
            current_json.as_slice(),
            "State written by a newer provider",
        ),
        (4, b"".as_slice(), "Unsupported state format"),
        (4, br#"{"name":5}"#.as_slice(), "Unreadable stored state"),
    ] {
        let (state, diags) = upgrade(version, raw);
        assert!(state.is_none());
        assert_eq!(summaries(&diags), [summary], "version {version}");
    }
}

/// A profile configuration with the write-only password `password` at
/// `version` (and the user name it needs).
fn write_only_config(server: &Server, password: Value, version: i64) -> Value {
    profile_config(
        server,
        &[
            ("username", Value::string("svc")),
            ("password_wo", password),
            ("password_wo_version", Value::int(version)),
        ],
    )
}

/// The framework refuses a write-only value (even unknown) from a client
/// that did not announce write-only support, on the attribute; the profile
/// declares what `password_wo` needs and conflicts with, an unknown value
/// counting as unset.
#[test]
fn write_only_values_need_the_client_capability_and_their_companions() {
    let server = server();
    let validate = |config: &Value, allowed: bool| {
        let mut diags = Diagnostics::new();
        server.validate_resource_config(PROFILE, config, allowed, &mut diags);
        diags
    };
    for password in [Value::string("s3cret"), Value::unknown()] {
        let config = write_only_config(&server, password, 1);
        assert!(validate(&config, true).is_empty());
        let diags = validate(&config, false);
        assert_eq!(summaries(&diags), ["Write-only attribute not supported"]);
        assert_eq!(
            diags.iter().next().unwrap().path,
            Some(AttributePath::attribute("password_wo"))
        );
        assert!(diags
            .iter()
            .next()
            .unwrap()
            .detail
            .contains("Terraform >= 1.11"));
    }
    let without_write_only = profile_config(&server, &[]);
    assert!(validate(&without_write_only, false).is_empty());
    let secret = Value::string("s3cret");
    /// A case: its name, the configuration, the (summary, path) expected.
    type Case = (&'static str, Value, Vec<(&'static str, &'static str)>);
    let cases: Vec<Case> = vec![
        (
            "no version",
            profile_config(
                &server,
                &[
                    ("username", Value::string("u")),
                    ("password_wo", secret.clone()),
                ],
            ),
            vec![("Set without password_wo_version", "password_wo")],
        ),
        (
            "no username",
            profile_config(
                &server,
                &[
                    ("password_wo", secret.clone()),
                    ("password_wo_version", Value::int(1)),
                ],
            ),
            vec![("Set without username", "password_wo")],
        ),
        (
            "version alone",
            profile_config(&server, &[("password_wo_version", Value::int(1))]),
            vec![("Set without password_wo", "password_wo_version")],
        ),
        (
            "both passwords",
            profile_config(
                &server,
                &[
                    ("username", Value::string("u")),
                    ("password", secret.clone()),
                    ("password_wo", secret.clone()),
                    ("password_wo_version", Value::int(1)),
                ],
            ),
            vec![("Conflicting attributes", "password_wo")],
        ),
        (
            "fractional version",
            {
                let mut config = write_only_config(&server, secret.clone(), 1);
                config.set_attr("password_wo_version", Value::Number(Number::from_f64(1.5)));
                config
            },
            vec![("Invalid value", "password_wo_version")],
        ),
        (
            "unknown version alone counts as unset",
            profile_config(&server, &[("password_wo_version", Value::unknown())]),
            vec![],
        ),
    ];
    for (case, config, expected) in cases {
        let diags = validate(&config, true);
        let got: Vec<(&str, String)> = diags
            .iter()
            .map(|d| {
                (
                    d.summary.as_str(),
                    d.path.as_ref().map(ToString::to_string).unwrap_or_default(),
                )
            })
            .collect();
        let expected: Vec<(&str, String)> = expected
            .iter()
            .map(|(s, p)| (*s, (*p).to_owned()))
            .collect();
        assert_eq!(got, expected, "{case}");
    }
}

/// A write-only password is null in the plan, the new state, a read and an
/// import; nothing stored holds it (no URL credential, no `settings`
/// password); the revision moves with `password_wo_version` only, and a
/// profile moving from `password` to `password_wo` with the same password
/// keeps its revision and loses every stored copy.
#[test]
fn write_only_passwords_are_never_stored() {
    let server = server();
    let config = write_only_config(&server, Value::string("s3cret"), 1);
    let state = converge(&server, &Value::null(), &config);
    let assert_nothing_stored = |state: &Value| {
        assert!(attr(state, "password_wo").is_null());
        assert!(attr(state, "password").is_null());
        assert!(state.get_attr("http_proxy_url").is_none());
        let settings = attr(state, "settings");
        assert!(attr(settings, "password").is_null());
        assert_eq!(attr(settings, "username"), &Value::string("svc"));
        assert_eq!(attr(settings, "password_required"), &Value::bool(true));
        assert_eq!(attr(settings, "revision"), attr(state, "revision"));
        assert!(!format!("{state:?}").contains("s3cret"));
    };
    assert_nothing_stored(&state);
    assert_eq!(attr(&state, "revision"), &Value::int(1));
    // Another password with the same version: nothing moves (the version
    // is the signal); a new version moves the revision.
    let other = write_only_config(&server, Value::string("other"), 1);
    let (planned, diags) = plan(&server, &state, &other);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(planned.unwrap().planned_state, state);
    let bumped = converge(
        &server,
        &state,
        &write_only_config(&server, Value::string("other"), 2),
    );
    assert_nothing_stored(&bumped);
    assert_eq!(attr(&bumped, "revision"), &Value::int(2));
    // Read returns the write-only attribute null even from a state that
    // holds one.
    let mut leaked = bumped.clone();
    leaked.set_attr("password_wo", Value::string("other"));
    let mut diags = Diagnostics::new();
    assert_eq!(
        server.read_resource(PROFILE, &leaked, &mut diags),
        Some(bumped.clone())
    );
    // Migration: the same password moves to password_wo without a new
    // revision; another one moves it.
    let stored = converge(
        &server,
        &Value::null(),
        &profile_config(
            &server,
            &[
                ("username", Value::string("svc")),
                ("password", Value::string("s3cret")),
            ],
        ),
    );
    assert!(format!("{stored:?}").contains("s3cret"));
    let migrated = converge(&server, &stored, &config);
    assert_nothing_stored(&migrated);
    assert_eq!(attr(&migrated, "revision"), &Value::int(1));
    let changed = converge(
        &server,
        &stored,
        &write_only_config(&server, Value::string("new"), 1),
    );
    assert_eq!(attr(&changed, "revision"), &Value::int(2));
    // An unknown write-only password leaves the computed values unknown
    // until apply.
    let (planned, diags) = plan(
        &server,
        &Value::null(),
        &write_only_config(&server, Value::unknown(), 1),
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert!(attr(&planned.unwrap().planned_state, "revision").is_unknown());
}

/// A renderer fed the settings of a profile whose password is write-only,
/// with no password given, is an error on `profile` that names the render
/// function; with the password merged in it renders.
#[test]
fn renderers_refuse_write_only_settings_without_the_password() {
    let server = server();
    let state = converge(
        &server,
        &Value::null(),
        &write_only_config(&server, Value::string("s3cret"), 1),
    );
    let settings = attr(&state, "settings").clone();
    let schema = &server.registry().data_sources()["clusterproxy_systemd_dropin"].schema;
    let config = object(schema, &[("profile", settings.clone())]);
    let mut diags = Diagnostics::new();
    server.read_data_source("clusterproxy_systemd_dropin", config, &mut diags);
    assert_eq!(summaries(&diags), ["Proxy password not given"]);
    let error = diags.iter().next().unwrap();
    assert_eq!(error.path, Some(AttributePath::attribute("profile")));
    assert!(error.detail.contains("provider::clusterproxy::render("));
    assert!(error
        .detail
        .contains("merge(clusterproxy_profile.x.settings, { password = <ephemeral value> })"));
    let mut with_password = settings;
    with_password.set_attr("password", Value::string("s3cret"));
    let config = object(schema, &[("profile", with_password)]);
    let mut diags = Diagnostics::new();
    let rendered = server.read_data_source("clusterproxy_systemd_dropin", config, &mut diags);
    assert!(!diags.has_errors(), "{diags:?}");
    assert!(format!("{rendered:?}").contains("svc:s3cret@"));
}

/// A profile with a stored `password` keeps it in that one sensitive
/// attribute: its settings carry none and say a password is required, so a
/// renderer fed the settings alone refuses (it would render unauthenticated
/// URLs) and renders once the password is merged in.
#[test]
fn settings_never_carry_the_password() {
    let server = server();
    let config = profile_config(
        &server,
        &[
            ("username", Value::string("svc")),
            ("password", Value::string("s3cret")),
        ],
    );
    let state = converge(&server, &Value::null(), &config);
    let settings = attr(&state, "settings").clone();
    assert!(attr(&settings, "password").is_null());
    assert_eq!(attr(&settings, "password_required"), &Value::bool(true));
    assert!(!format!(
        "{:?}",
        Value::object([("settings".to_owned(), settings.clone())])
    )
    .contains("s3cret"));
    let profile = &server.registry().resources()[PROFILE].schema;
    let sensitive: Vec<&str> = profile
        .attributes
        .iter()
        .filter(|a| a.sensitive)
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(sensitive, ["password"]);
    let schema = &server.registry().data_sources()["clusterproxy_systemd_dropin"].schema;
    let mut diags = Diagnostics::new();
    server.read_data_source(
        "clusterproxy_systemd_dropin",
        object(schema, &[("profile", settings.clone())]),
        &mut diags,
    );
    assert_eq!(summaries(&diags), ["Proxy password not given"]);
    assert!(diags.iter().next().unwrap().detail.contains(
        "profile = merge(clusterproxy_profile.x.settings, { password = var.proxy_password })"
    ));
    let mut with_password = settings;
    with_password.set_attr("password", Value::string("s3cret"));
    let mut diags = Diagnostics::new();
    let rendered = server.read_data_source(
        "clusterproxy_systemd_dropin",
        object(schema, &[("profile", with_password)]),
        &mut diags,
    );
    assert!(!diags.has_errors(), "{diags:?}");
    assert!(format!("{rendered:?}").contains("svc:s3cret@"));
}

/// A plan that drops the stored password (what generated configuration
/// does: `password = null`) warns on `password`; one that keeps it, or moves
/// it to `password_wo`, does not.
#[test]
fn dropping_a_stored_password_warns() {
    let server = server();
    let with_password = profile_config(
        &server,
        &[
            ("username", Value::string("svc")),
            ("password", Value::string("s3cret")),
        ],
    );
    let stored = converge(&server, &Value::null(), &with_password);
    let dropped = profile_config(&server, &[("username", Value::string("svc"))]);
    let (_, diags) = plan(&server, &stored, &dropped);
    assert_eq!(summaries(&diags), ["Proxy credentials dropped"]);
    let warning = diags.iter().next().unwrap();
    assert_eq!(warning.path, Some(AttributePath::attribute("password")));
    assert!(warning.detail.contains("password_wo"));
    for kept in [
        with_password,
        write_only_config(&server, Value::string("s3cret"), 1),
    ] {
        let (_, diags) = plan(&server, &stored, &kept);
        assert!(diags.is_empty(), "{diags:?}");
    }
    let write_only = converge(
        &server,
        &Value::null(),
        &write_only_config(&server, Value::string("s3cret"), 1),
    );
    let (_, diags) = plan(&server, &write_only, &dropped);
    assert_eq!(summaries(&diags), ["Proxy credentials dropped"]);
}

#[test]
fn read_resource_returns_the_state_and_null_for_null() {
    let server = server();
    let state = converge(&server, &Value::null(), &profile_config(&server, &[]));
    let mut diags = Diagnostics::new();
    assert_eq!(
        server.read_resource(PROFILE, &state, &mut diags),
        Some(state)
    );
    assert_eq!(
        server.read_resource(PROFILE, &Value::null(), &mut diags),
        Some(Value::null())
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        server.read_resource("clusterproxy_nope", &Value::null(), &mut diags),
        None
    );
    assert_eq!(summaries(&diags), ["Unknown resource type"]);
}

#[test]
fn plan_resource_change_cases() {
    let server = server();
    let config = profile_config(&server, &[]);
    let created = converge(&server, &Value::null(), &config);

    // Create with known inputs: every computed value known at plan time.
    let (planned, diags) = plan(&server, &Value::null(), &config);
    assert!(diags.is_empty(), "{diags:?}");
    let planned = planned.unwrap();
    assert!(planned.planned_state.is_wholly_known());
    assert_eq!(attr(&planned.planned_state, "id"), &Value::string("corp"));
    assert_eq!(attr(&planned.planned_state, "revision"), &Value::int(1));
    assert!(planned.requires_replace.is_empty());

    // Create with an unknown input: the computed values are known after apply.
    let unknown = profile_config(&server, &[("http_proxy", Value::unknown())]);
    let (planned, diags) = plan(&server, &Value::null(), &unknown);
    assert!(diags.is_empty(), "{diags:?}");
    let planned = planned.unwrap().planned_state;
    assert!(attr(&planned, "http_proxy").is_unknown());
    for computed in [
        "normalized_http_proxy",
        "fingerprint",
        "revision",
        "settings",
    ] {
        assert!(attr(&planned, computed).is_unknown(), "{computed}");
    }
    assert_eq!(attr(&planned, "name"), &Value::string("corp"));

    // No change: the prior state exactly.
    let (planned, diags) = plan(&server, &created, &config);
    assert!(diags.is_empty(), "{diags:?}");
    let planned = planned.unwrap();
    assert_eq!(planned.planned_state, created);
    assert!(planned.requires_replace.is_empty());

    // Replace-free update: the description does not count as a settings change.
    let described = profile_config(&server, &[("description", Value::string("new"))]);
    let (planned, _) = plan(&server, &created, &described);
    let planned = planned.unwrap();
    assert!(planned.requires_replace.is_empty());
    assert_eq!(attr(&planned.planned_state, "revision"), &Value::int(1));
    assert_eq!(
        attr(&planned.planned_state, "fingerprint"),
        attr(&created, "fingerprint")
    );

    // Update of the settings: a new revision, still in place.
    let moved = profile_config(
        &server,
        &[(
            "http_proxy",
            Value::string("http://other.corp.example:8080"),
        )],
    );
    let (planned, _) = plan(&server, &created, &moved);
    let planned = planned.unwrap();
    assert!(planned.requires_replace.is_empty());
    assert_eq!(attr(&planned.planned_state, "revision"), &Value::int(2));
    assert_ne!(
        attr(&planned.planned_state, "fingerprint"),
        attr(&created, "fingerprint")
    );

    // Renaming replaces.
    let renamed = profile_config(&server, &[("name", Value::string("edge"))]);
    let (planned, _) = plan(&server, &created, &renamed);
    assert_eq!(
        planned.unwrap().requires_replace,
        [AttributePath::attribute("name")]
    );

    // Destroy: a null plan.
    let mut diags = Diagnostics::new();
    let destroy = server
        .plan_resource_change(
            PlanResourceChange {
                type_name: PROFILE,
                prior_state: created.clone(),
                proposed_new_state: Value::null(),
                config: Value::null(),
            },
            &mut diags,
        )
        .unwrap();
    assert!(destroy.planned_state.is_null() && destroy.requires_replace.is_empty());

    // Invalid settings fail the plan on the attribute.
    let invalid = profile_config(&server, &[("http_proxy", Value::string("ftp://proxy:21"))]);
    let (planned, diags) = plan(&server, &Value::null(), &invalid);
    assert!(planned.is_none());
    assert!(diags.has_errors());
    assert!(diags.iter().any(|d| d.path.is_some()), "{diags:?}");
}

#[test]
fn apply_resource_change_creates_updates_and_deletes() {
    let server = server();
    let config = profile_config(
        &server,
        &[
            ("username", Value::string("u")),
            ("password", Value::string("s3cret")),
        ],
    );
    // Create from a plan with unknowns: apply fills them in, keeps the rest.
    let unknown = profile_config(&server, &[("http_proxy", Value::unknown())]);
    let (planned, _) = plan(&server, &Value::null(), &unknown);
    let mut planned = planned.unwrap().planned_state;
    planned.set_attr("http_proxy", Value::string(PROXY));
    let (state, diags) = apply(&server, &Value::null(), &planned, &unknown);
    assert!(diags.is_empty(), "{diags:?}");
    let state = state.unwrap();
    assert!(state.is_wholly_known());
    assert_eq!(attr(&state, "revision"), &Value::int(1));
    assert_eq!(attr(&state, "normalized_http_proxy"), &Value::string(PROXY));

    // Update: the credentials count as a settings change.
    let updated = converge(&server, &state, &config);
    assert_eq!(attr(&updated, "revision"), &Value::int(2));
    assert_eq!(attr(&updated, "password"), &Value::string("s3cret"));
    let settings = attr(&updated, "settings");
    assert!(attr(settings, "password").is_null());
    assert_eq!(attr(settings, "password_required"), &Value::bool(true));

    // Delete.
    let (deleted, diags) = apply(&server, &updated, &Value::null(), &Value::null());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(deleted, Some(Value::null()));

    // An apply result that contradicts the plan is refused.
    let mut wrong = updated.clone();
    wrong.set_attr("revision", Value::int(9));
    let (state, diags) = apply(&server, &updated, &wrong, &config);
    assert!(state.is_none());
    assert!(
        summaries(&diags).contains(&"Provider bug: invalid apply result"),
        "{diags:?}"
    );
}

#[test]
fn import_resource_state_cases() {
    let server = server();
    let mut diags = Diagnostics::new();
    let imported = server
        .import_resource_state(
            PROFILE,
            "corp=systemd:inline:[Service]\nEnvironment=\"HTTP_PROXY=http://proxy.corp.example:3128\" \"HTTPS_PROXY=http://proxy.corp.example:3128\" \"NO_PROXY=.corp.example\"\n",
            &mut diags,
        )
        .unwrap_or_else(|| panic!("{diags:?}"));
    assert!(!diags.has_errors(), "{diags:?}");
    assert!(imported.is_wholly_known());
    assert_eq!(attr(&imported, "name"), &Value::string("corp"));
    assert_eq!(attr(&imported, "http_proxy"), &Value::string(PROXY));
    assert_eq!(attr(&imported, "revision"), &Value::int(1));
    // The imported state plans as no change against its own configuration.
    let config = object(
        profile_schema(&server),
        &[
            ("name", Value::string("corp")),
            ("http_proxy", Value::string(PROXY)),
            ("https_proxy", attr(&imported, "https_proxy").clone()),
            ("no_proxy", attr(&imported, "no_proxy").clone()),
        ],
    );
    let (planned, diags) = plan(&server, &imported, &config);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(planned.unwrap().planned_state, imported);
    for id in ["nope:x", "corp=systemd:"] {
        let mut diags = Diagnostics::new();
        assert!(
            server
                .import_resource_state(PROFILE, id, &mut diags)
                .is_none(),
            "{id}"
        );
        assert!(diags.has_errors(), "{id}");
    }
}

#[test]
fn read_data_source_cases() {
    let server = server();
    let schema = &server.registry().data_sources()[NO_PROXY].schema;
    let config = object(
        schema,
        &[
            (
                "installation",
                list(&["Registry.Corp.Example", ".corp.example"]),
            ),
            ("pod_cidrs", list(&["192.168.0.0/16"])),
        ],
    );
    let mut diags = Diagnostics::new();
    let state = server
        .read_data_source(NO_PROXY, config.clone(), &mut diags)
        .unwrap();
    assert!(!diags.has_errors(), "{diags:?}");
    assert!(state.is_wholly_known());
    assert_eq!(attr(&state, "installation"), attr(&config, "installation"));
    let no_proxy = attr(&state, "no_proxy").as_str().unwrap();
    assert!(no_proxy.contains(".corp.example") && no_proxy.contains("192.168.0.0/16"));
    assert!(!no_proxy.contains("Registry"), "{no_proxy}");
    let mut diags = Diagnostics::new();
    let bad = object(schema, &[("installation", list(&["http://"]))]);
    assert!(server.read_data_source(NO_PROXY, bad, &mut diags).is_none());
    assert!(diags.has_errors());
    // An unknown element (Terraform never sends one to a read) is named as
    // such on its path, not read as an empty entry.
    let mut diags = Diagnostics::new();
    let unknown = object(
        schema,
        &[(
            "installation",
            Value::list(vec![Value::string(".corp.example"), Value::unknown()]),
        )],
    );
    assert!(server
        .read_data_source(NO_PROXY, unknown, &mut diags)
        .is_none());
    assert_eq!(
        summaries(&diags),
        ["Unknown value in a data source's configuration"]
    );
    assert_eq!(
        diags.iter().next().unwrap().path,
        Some(AttributePath::attribute("installation").index(1))
    );
    let mut diags = Diagnostics::new();
    assert!(server
        .read_data_source("clusterproxy_nope", config, &mut diags)
        .is_none());
    assert_eq!(summaries(&diags), ["Unknown data source type"]);
}

/// Renderings are made for the clients named in `clients` only; without
/// `clients` the list is still made for the default clients, but nothing is
/// rendered. The coverage check's results and the detail behind the list
/// are in `clusterproxy_no_proxy_report`, not in this data source's state.
#[test]
fn no_proxy_renders_only_the_clients_named() {
    let server = server();
    let read = |extra: Option<(&str, Value)>| read_no_proxy_with(&server, NO_PROXY, extra);
    let keys = |state: &Value| -> Vec<String> {
        match attr(state, "renderings") {
            Value::Map(map) => map.keys().cloned().collect(),
            other => panic!("{other:?}"),
        }
    };
    let unnamed = read(None);
    assert!(attr(&unnamed, "clients").is_null());
    assert_eq!(keys(&unnamed), Vec::<String>::new());
    let Value::Object(attributes) = &unnamed else {
        panic!("{unnamed:?}")
    };
    for detail in [
        "checked",
        "gaps_by_client",
        "subsumed_by",
        "client_warnings",
    ] {
        assert!(!attributes.contains_key(detail), "{detail}");
    }
    let named = read(Some(("clients", list(&["go", "python", "java"]))));
    assert_eq!(keys(&named), ["go", "java", "python"]);
    // Naming the clients changes what is rendered, not the list made for them.
    let eight = read(Some((
        "clients",
        list(clusterproxy::domain::no_proxy::Dialect::default_names()),
    )));
    assert_eq!(attr(&eight, "no_proxy"), attr(&unnamed, "no_proxy"));
    assert_eq!(keys(&eight).len(), 8);
}

/// `clusterproxy_no_proxy` runs the coverage check for `fail_on_gap`, and
/// only then: `must_bypass` and `default_checks` shape nothing else in it,
/// so setting them without `fail_on_gap = true` is an error on each (the
/// gaps themselves are in `clusterproxy_no_proxy_report`).
#[test]
fn no_proxy_checks_for_fail_on_gap_only() {
    let server = server();
    let schema = &server.registry().data_sources()[NO_PROXY].schema;
    let read = |extra: &[(&str, Value)]| {
        let mut set = vec![
            ("installation", list(&[".corp.example"])),
            ("pod_cidrs", list(&["192.168.0.0/16"])),
        ];
        set.extend(extra.iter().cloned());
        let mut diags = Diagnostics::new();
        let state = server.read_data_source(NO_PROXY, object(schema, &set), &mut diags);
        (state, diags)
    };
    let unchecked = [
        vec![("must_bypass", list(&["https://a.corp.example/"]))],
        vec![("default_checks", Value::bool(false))],
        vec![
            ("must_bypass", list(&["https://a.corp.example/"])),
            ("fail_on_gap", Value::bool(false)),
        ],
    ];
    for extra in unchecked {
        let (state, diags) = read(&extra);
        assert!(state.is_none(), "{extra:?}");
        let blamed: Vec<_> = diags
            .iter()
            .map(|d| (d.summary.clone(), d.path.as_ref().map(|p| p.to_string())))
            .collect();
        let name = extra[0].0;
        assert_eq!(
            blamed,
            [(
                "Set without fail_on_gap = true".to_owned(),
                Some(name.to_owned())
            )],
            "{extra:?}"
        );
        let mut set = vec![("installation", list(&[".corp.example"]))];
        set.extend(extra.iter().cloned());
        let mut diags = Diagnostics::new();
        server.validate_data_resource_config(NO_PROXY, &object(schema, &set), &mut diags);
        assert_eq!(summaries(&diags), ["Set without fail_on_gap = true"]);
        // Unknown at validation, `fail_on_gap` may turn out true.
        set.retain(|(name, _)| *name != "fail_on_gap");
        set.push(("fail_on_gap", Value::unknown()));
        let mut diags = Diagnostics::new();
        server.validate_data_resource_config(NO_PROXY, &object(schema, &set), &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
    }
    // Unknown at validation, `must_bypass` may turn out null (the read
    // checks it again, known).
    let unknown = object(
        schema,
        &[
            ("installation", list(&[".corp.example"])),
            ("must_bypass", Value::unknown()),
        ],
    );
    let mut diags = Diagnostics::new();
    server.validate_data_resource_config(NO_PROXY, &unknown, &mut diags);
    assert!(diags.is_empty(), "{diags:?}");
    // A list with an unknown element is certainly set.
    let partly = object(
        schema,
        &[
            ("installation", list(&[".corp.example"])),
            ("must_bypass", Value::list(vec![Value::unknown()])),
        ],
    );
    let mut diags = Diagnostics::new();
    server.validate_data_resource_config(NO_PROXY, &partly, &mut diags);
    assert_eq!(summaries(&diags), ["Set without fail_on_gap = true"]);
    // `must_bypass` alone is checked: Go proxies a name spelled with the
    // trailing dot although the domain is listed.
    let dotted = "https://kubernetes.default.svc.cluster.local./";
    let (state, diags) = read(&[
        ("fail_on_gap", Value::bool(true)),
        ("clients", list(&["go"])),
        ("default_checks", Value::bool(false)),
        ("must_bypass", list(&[dotted])),
    ]);
    assert!(state.is_none());
    assert_eq!(summaries(&diags), ["NO_PROXY coverage gap"]);
    let detail = &diags.iter().next().unwrap().detail;
    assert!(
        detail.contains(&format!("go would proxy {dotted}")),
        "{detail}"
    );
    // `fail_on_gap` with nothing to check (no `must_bypass`, no default
    // checks) would check nothing: an error, in the report too.
    for must_bypass in [Value::null(), list(&[])] {
        let nothing = [
            ("fail_on_gap", Value::bool(true)),
            ("default_checks", Value::bool(false)),
            ("must_bypass", must_bypass),
        ];
        for data_source in [NO_PROXY, NO_PROXY_REPORT] {
            let schema = &server.registry().data_sources()[data_source].schema;
            let mut diags = Diagnostics::new();
            server.validate_data_resource_config(
                data_source,
                &object(schema, &nothing),
                &mut diags,
            );
            let blamed: Vec<_> = diags
                .iter()
                .map(|d| (d.summary.as_str(), d.path.as_ref().map(|p| p.to_string())))
                .collect();
            assert_eq!(
                blamed,
                [("Nothing to check", Some("fail_on_gap".to_owned()))],
                "{data_source}"
            );
        }
    }
    // With `fail_on_gap`, the default clients are checked: Python and wget
    // have no CIDR blocks, so a pod address goes through their proxy.
    let (state, diags) = read(&[("fail_on_gap", Value::bool(true))]);
    assert!(state.is_none());
    assert_eq!(summaries(&diags), ["NO_PROXY coverage gap"]);
    let detail = &diags.iter().next().unwrap().detail;
    for client in ["python", "wget"] {
        assert!(
            detail.contains(&format!("{client} would proxy http://192.168.0.1:8080/")),
            "{detail}"
        );
    }
    assert!(!detail.contains("go would"), "{detail}");
    let (state, diags) = read(&[
        ("fail_on_gap", Value::bool(true)),
        ("clients", list(&["go", "curl"])),
        ("must_bypass", list(&["https://a.corp.example/"])),
        ("default_checks", Value::bool(true)),
    ]);
    assert!(!diags.has_errors(), "{diags:?}");
    assert!(state.is_some());
}

/// `clusterproxy_no_proxy_report` takes the same inputs as
/// `clusterproxy_no_proxy` and gives the detail behind its list: the gaps, every
/// destination checked (sorted, once), each left-out entry with the entry
/// covering it, and the remarks of every client the list is made for.
#[test]
fn no_proxy_report_gives_the_detail_behind_the_list() {
    let server = server();
    let report = |extra: Option<(&str, Value)>| read_no_proxy_with(&server, NO_PROXY_REPORT, extra);
    let warned = |state: &Value| -> Vec<String> {
        let Value::List(items) = attr(state, "client_warnings") else {
            panic!()
        };
        let mut clients: Vec<String> = items
            .iter()
            .map(|w| attr(w, "client").as_str().unwrap().to_owned())
            .collect();
        clients.dedup();
        clients
    };
    // Without `clients` the default clients are checked: Python and wget
    // have no CIDR blocks, so a pod address goes through their proxy.
    let unnamed = report(None);
    let Value::Map(gaps) = attr(&unnamed, "gaps_by_client") else {
        panic!("{:?}", attr(&unnamed, "gaps_by_client"))
    };
    let pod = Value::list(vec![Value::string("http://192.168.0.1:8080/")]);
    assert_eq!(gaps.get("python"), Some(&pod), "{gaps:?}");
    assert_eq!(gaps.get("wget"), Some(&pod), "{gaps:?}");
    assert!(
        !gaps.contains_key("go") && !gaps.contains_key("curl"),
        "{gaps:?}"
    );
    // Naming the clients does not change the verdicts on them.
    let eight = report(Some((
        "clients",
        list(clusterproxy::domain::no_proxy::Dialect::default_names()),
    )));
    assert_eq!(
        attr(&eight, "gaps_by_client"),
        attr(&unnamed, "gaps_by_client")
    );
    // Several gaps of one client keep the order of `checked`, which is
    // sorted, whatever the order or repetitions of `must_bypass`.
    let more = report(Some((
        "must_bypass",
        list(&["192.168.9.9", "http://192.168.3.3/"]),
    )));
    let reordered = report(Some((
        "must_bypass",
        list(&["http://192.168.3.3/", "192.168.9.9", "http://192.168.3.3/"]),
    )));
    for name in ["checked", "gaps_by_client"] {
        assert_eq!(attr(&reordered, name), attr(&more, name), "{name}");
    }
    // A URL with the default port written and one without are two checks
    // (some clients read them differently), each listed once as written.
    let ports = |must_bypass: &[&str]| {
        let state = report(Some(("must_bypass", list(must_bypass))));
        let Value::List(checked) = attr(&state, "checked") else {
            panic!()
        };
        checked
            .iter()
            .filter_map(|d| d.as_str().filter(|d| d.contains("a.example")))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let written = ports(&[
        "https://a.example/",
        "https://a.example:443/",
        "https://a.example/",
    ]);
    assert_eq!(written, ["https://a.example/", "https://a.example:443/"]);
    assert_eq!(
        ports(&[
            "https://a.example:443/",
            "https://a.example/",
            "https://a.example/"
        ]),
        written
    );
    let Value::List(checked) = attr(&more, "checked") else {
        panic!()
    };
    let in_pods: Vec<Value> = checked
        .iter()
        .filter(|d| d.as_str().unwrap().contains("//192.168."))
        .cloned()
        .collect();
    assert_eq!(in_pods.len(), 3, "{checked:?}");
    let Value::Map(gaps) = attr(&more, "gaps_by_client") else {
        panic!()
    };
    assert_eq!(gaps.get("python"), Some(&Value::list(in_pods)), "{gaps:?}");
    // `subsumed_by`: each left-out entry to the entry that covers it.
    let covered = report(Some(("extra", list(&["registry.corp.example"]))));
    assert_eq!(
        attr(&covered, "subsumed_by"),
        &Value::Map(
            [(
                "registry.corp.example".to_owned(),
                Value::string(".corp.example")
            )]
            .into()
        )
    );
    // The remarks of the clients named, or of the default eight.
    assert_eq!(
        warned(&report(Some(("clients", list(&["go", "python"]))))),
        ["python"]
    );
    assert_eq!(
        warned(&report(None)),
        ["curl", "python", "requests", "wget", "node"]
    );
}

/// Reads `data_source` with a typical cluster's inputs and `extra`.
fn read_no_proxy_with(server: &Server, data_source: &str, extra: Option<(&str, Value)>) -> Value {
    let schema = &server.registry().data_sources()[data_source].schema;
    let mut set = vec![
        ("installation", list(&[".corp.example", "10.20.0.0/16"])),
        ("pod_cidrs", list(&["192.168.0.0/16"])),
    ];
    set.extend(extra);
    let mut diags = Diagnostics::new();
    let state = server
        .read_data_source(data_source, object(schema, &set), &mut diags)
        .unwrap();
    assert!(!diags.has_errors(), "{diags:?}");
    state
}

#[test]
fn call_function_cases() {
    let server = server();
    let args = |a: &[&str]| a.iter().map(|s| Value::string(*s)).collect::<Vec<_>>();
    /// The function, its arguments, the result or the argument blamed.
    type Case = (&'static str, Vec<Value>, Result<Value, Option<usize>>);
    let cases: Vec<Case> = vec![
        (
            "no_proxy_bypasses",
            args(&[".corp.example", "https://a.corp.example", "go"]),
            Ok(Value::bool(true)),
        ),
        (
            "no_proxy_bypasses",
            args(&[".corp.example", "https://example.com", "curl"]),
            Ok(Value::bool(false)),
        ),
        (
            "no_proxy_bypasses",
            args(&[".corp.example", "https://a.corp.example", "lynx"]),
            Err(Some(2)),
        ),
        (
            "no_proxy_bypasses",
            args(&[".corp.example", "https://[::1", "go"]),
            Err(Some(1)),
        ),
        (
            "no_proxy_bypasses",
            args(&[".corp.example", "https://a.corp.example"]),
            Err(None),
        ),
        ("nope", vec![], Err(None)),
    ];
    for (name, arguments, expected) in cases {
        let result = server.call_function(name, &arguments);
        match expected {
            Ok(value) => assert_eq!(result, Ok(value), "{name}{arguments:?}"),
            Err(argument) => {
                let error = result.expect_err("an error");
                assert_eq!(error.argument, argument, "{name}{arguments:?}: {error:?}");
                assert!(!error.text.is_empty());
            }
        }
    }
    let signature = server.function_signature("no_proxy_bypasses", 3).unwrap();
    assert_eq!(signature.parameters.len(), 3);
    assert!(server.function_signature("no_proxy_bypasses", 2).is_err());
}

/// StopProvider cancels a request in flight: it stops at its next
/// cancellation point and answers with an error diagnostic.
#[test]
fn stop_provider_cancels_requests_in_flight() {
    let server = server();
    let (started, running) = mpsc::channel();
    let request = std::thread::spawn(move || {
        guard::run("ReadDataSource", Subject::DataSource(NO_PROXY), 0, |_| {
            started.send(()).unwrap();
            while !cancel::requested() {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    });
    running.recv().unwrap();
    server.stop_provider();
    let (result, diags) = request.join().unwrap();
    assert!(result.is_none());
    assert_eq!(summaries(&diags), ["Provider stopped"]);
    // Later requests run normally.
    let (result, diags) = guard::run("GetMetadata", Subject::Provider, 0, |_| {
        server.get_metadata()
    });
    assert!(result.is_some() && diags.is_empty());
}

/// `clusterproxy_no_proxy` and every renderer: the data sources that take
/// the cluster inputs.
fn cluster_input_readers() -> Vec<&'static str> {
    let renderers = renderers();
    let names = renderers.iter().map(|r| r.type_name());
    std::iter::once(NO_PROXY).chain(names).collect()
}

/// A configuration of `data_source` with `set` (and a proxy for the renderers).
fn cluster_config(server: &Server, data_source: &str, set: &[(&str, Value)]) -> Value {
    let schema = &server.registry().data_sources()[data_source].schema;
    let mut set = set.to_vec();
    if data_source != NO_PROXY {
        set.push(("http_proxy", Value::string(PROXY)));
    }
    object(schema, &set)
}

/// Each typed cluster input is checked as its type, not only as a NO_PROXY
/// entry: a bad value is an error on its attribute (a list element at its
/// index), at validation and at read, without a panic.
#[test]
fn typed_cluster_inputs_are_checked_on_their_attribute() {
    let server = server();
    // (attribute, value, bad element, summary)
    let cases: Vec<(&str, Value, Option<usize>, &str)> = vec![
        (
            "apiserver_ip",
            Value::string("*"),
            None,
            "Invalid IP address",
        ),
        (
            "apiserver_ip",
            Value::string("api.example.com"),
            None,
            "Invalid IP address",
        ),
        (
            "apiserver_ip",
            Value::string("10.0.0.0/8"),
            None,
            "Invalid IP address",
        ),
        (
            "apiserver_ip",
            Value::string("10.0.0.1:6443"),
            None,
            "Invalid IP address",
        ),
        ("apiserver_host", Value::string("*"), None, "Invalid host"),
        (
            "apiserver_host",
            Value::string("api.example.com:6443"),
            None,
            "Invalid host",
        ),
        (
            "apiserver_host",
            Value::string("https://api.example.com"),
            None,
            "Invalid host",
        ),
        (
            "cluster_domain",
            Value::string("cluster.local:80"),
            None,
            "Invalid DNS domain",
        ),
        (
            "cluster_domain",
            Value::string("10.0.0.0/8"),
            None,
            "Invalid DNS domain",
        ),
        (
            "cluster_domain",
            Value::string("*.cluster.local"),
            None,
            "Invalid DNS domain",
        ),
        (
            "control_plane_endpoint",
            Value::string("https://admin:s3cret@10.0.0.0/8?x#y"),
            None,
            "Invalid control-plane endpoint",
        ),
        (
            "control_plane_endpoint",
            Value::string("10.0.0.0/8"),
            None,
            "Invalid control-plane endpoint",
        ),
        (
            "control_plane_endpoint",
            Value::string("https://api.example.com/x"),
            None,
            "Invalid control-plane endpoint",
        ),
        (
            "control_plane_endpoint",
            Value::string("api.example.com:99999"),
            None,
            "Invalid control-plane endpoint",
        ),
        (
            "control_plane_endpoint",
            Value::string("*"),
            None,
            "Invalid control-plane endpoint",
        ),
        (
            "pod_cidrs",
            list(&["10.244.0.0/16", "localhost"]),
            Some(1),
            "Invalid CIDR block",
        ),
        (
            "pod_cidrs",
            list(&["[::1]:80"]),
            Some(0),
            "Invalid CIDR block",
        ),
        ("pod_cidrs", list(&["*"]), Some(0), "Invalid CIDR block"),
        (
            "service_cidrs",
            list(&["10.96.0.0/12", "10.96.0.1"]),
            Some(1),
            "Invalid CIDR block",
        ),
        (
            "node_cidrs",
            list(&["10.0.0.1/8"]),
            Some(0),
            "CIDR block with host bits set",
        ),
    ];
    for data_source in cluster_input_readers() {
        for (name, value, index, summary) in &cases {
            let config = cluster_config(&server, data_source, &[(name, value.clone())]);
            let want = AttributePath::attribute(*name);
            let want = index.map_or(want.clone(), |i| want.index(i));
            let found = |diags: &Diagnostics| {
                diags
                    .iter()
                    .any(|d| d.summary == *summary && d.path.as_ref() == Some(&want))
            };
            let mut diags = Diagnostics::new();
            server.validate_data_resource_config(data_source, &config, &mut diags);
            assert!(found(&diags), "{data_source} {name} {value:?}: {diags:?}");
            let mut diags = Diagnostics::new();
            assert!(server
                .read_data_source(data_source, config, &mut diags)
                .is_none());
            assert!(found(&diags), "{data_source} {name} {value:?}: {diags:?}");
            assert!(
                diags.iter().all(|d| !d.detail.contains("s3cret")),
                "{diags:?}"
            );
        }
        // Unknown values are checked once known.
        let unknown = cluster_config(
            &server,
            data_source,
            &[
                ("apiserver_ip", Value::unknown()),
                ("pod_cidrs", Value::list(vec![Value::unknown()])),
            ],
        );
        let mut diags = Diagnostics::new();
        server.validate_data_resource_config(data_source, &unknown, &mut diags);
        assert!(diags.is_empty(), "{data_source}: {diags:?}");
    }
}

/// Every renderer writes the cluster inputs in canonical form: equivalent
/// spellings (blanks around, IPv6 case and compression, a trailing dot)
/// render the same computed attributes, and no raw input string reaches one.
#[test]
fn renderers_write_canonical_cluster_inputs() {
    let server = server();
    let spelled = |pods: &str, services: &str, nodes: &str, domain: &str, endpoint: &str| {
        vec![
            ("pod_cidrs", list(&[pods])),
            ("service_cidrs", list(&[services])),
            ("node_cidrs", list(&[nodes])),
            ("cluster_domain", Value::string(domain)),
            ("control_plane_endpoint", Value::string(endpoint)),
            // Without the `[v6]` forms Python and Node need, which OpenShift rejects.
            ("clients", list(&["go"])),
        ]
    };
    let canonical = spelled(
        "fd00:10:244::/56",
        "10.96.0.0/12",
        "10.0.0.0/16",
        "cluster.local",
        "fd00::10",
    );
    let respelled = spelled(
        "FD00:10:244:0::/56",
        "\n10.96.0.0/12\t",
        " 10.0.0.0/16",
        "Cluster.Local.",
        "https://[FD00:0::10]:6443/",
    );
    for renderer in renderers() {
        let data_source = renderer.type_name();
        let read = |set: &[(&str, Value)]| {
            let mut set = set.to_vec();
            if data_source == "clusterproxy_kubespray" {
                set.push((
                    "inventory_hosts",
                    Value::Map([("node1".to_owned(), Value::string("10.0.0.5"))].into()),
                ));
            }
            let mut diags = Diagnostics::new();
            let state = server
                .read_data_source(
                    data_source,
                    cluster_config(&server, data_source, &set),
                    &mut diags,
                )
                .unwrap_or_else(|| panic!("{data_source}: {diags:?}"));
            assert!(!diags.has_errors(), "{diags:?}");
            state
        };
        let (want, got) = (read(&canonical), read(&respelled));
        let schema = renderer.schema();
        let outputs = schema
            .attributes
            .iter()
            .filter(|a| a.mode == Mode::Computed);
        for output in outputs.map(|a| a.name.as_str()) {
            let (want, got) = (want.get_attr(output), got.get_attr(output));
            assert_eq!(got, want, "{data_source}.{output}");
            let text = format!("{got:?}");
            // Equal to the render of the canonical spelling, blanks included;
            // outputs hold newlines of their own.
            for raw in ["FD00", " 10.0.0.0/16", "Cluster.Local"] {
                assert!(!text.contains(raw), "{data_source}.{output}: {text}");
            }
        }
    }
}

/// The free-text inputs OpenShift and kubespray copy into their outputs are
/// checked, each error on its attribute (element or map key).
#[test]
fn renderer_free_text_inputs_are_checked_on_their_attribute() {
    let server = server();
    const OPENSHIFT: &str = "clusterproxy_openshift_proxy";
    const KUBESPRAY: &str = "clusterproxy_kubespray";
    let cases: Vec<(&str, (&str, Value), AttributePath, &str)> = vec![
        (
            OPENSHIFT,
            ("api_internal_host", Value::string("api-int.x\nevil: true")),
            AttributePath::attribute("api_internal_host"),
            "Invalid host",
        ),
        (
            OPENSHIFT,
            ("aws_region", Value::string("eu-west-1,evil.example")),
            AttributePath::attribute("aws_region"),
            "Invalid AWS region",
        ),
        (
            OPENSHIFT,
            (
                "readiness_endpoints",
                list(&["https://quay.io/", "http://[::1]:99999/"]),
            ),
            AttributePath::attribute("readiness_endpoints").index(1),
            "Invalid readiness endpoint",
        ),
        (
            KUBESPRAY,
            (
                "inventory_hosts",
                Value::Map([("node1,evil".to_owned(), Value::string("10.0.0.1"))].into()),
            ),
            AttributePath::attribute("inventory_hosts").key("node1,evil"),
            "Invalid host",
        ),
        (
            KUBESPRAY,
            (
                "apiserver_loadbalancer_domain_name",
                Value::string("lb\n{{ lookup(\"pipe\",\"id\") }}"),
            ),
            AttributePath::attribute("apiserver_loadbalancer_domain_name"),
            "Invalid host",
        ),
        (
            KUBESPRAY,
            ("kubespray_version", Value::string("2.31\nno_proxy: x")),
            AttributePath::attribute("kubespray_version"),
            "Invalid kubespray version",
        ),
    ];
    for (data_source, set, want, summary) in cases {
        let mut set = vec![set];
        if set[0].0 == "aws_region" {
            set.push(("cloud", Value::string("aws")));
        }
        let config = cluster_config(&server, data_source, &set);
        let mut diags = Diagnostics::new();
        assert!(server
            .read_data_source(data_source, config, &mut diags)
            .is_none());
        assert!(
            diags
                .iter()
                .any(|d| d.summary == summary && d.path.as_ref() == Some(&want)),
            "{data_source} {want:?}: {diags:?}"
        );
    }
}

/// Proxy settings for the `render` function: `PROXY` with `username` and
/// `password`.
fn function_settings(username: &str, password: &str) -> Value {
    Value::object([
        ("http_proxy".to_owned(), Value::string(PROXY)),
        ("https_proxy".to_owned(), Value::null()),
        ("username".to_owned(), Value::string(username)),
        ("password".to_owned(), Value::string(password)),
        ("no_proxy".to_owned(), Value::list(Vec::new())),
        ("trusted_ca".to_owned(), Value::null()),
    ])
}

/// Empty options of the `render` function.
fn no_options() -> Value {
    Value::Typed(Box::new((
        Type::object(std::iter::empty()),
        Value::object(std::iter::empty()),
    )))
}

/// A user name or password over the bound (255 bytes) is refused on its
/// attribute wherever it enters: the profile's `username`, `password` and
/// `password_wo`, a renderer's own attributes, the `render` function's
/// settings. The message says the bound and nothing else about the value:
/// neither its length nor any of it.
#[test]
fn overlong_credentials_are_refused_on_their_attribute() {
    let server = server();
    let long = "p".repeat(1 << 20);
    let check = |what: &str, text: &str| {
        assert!(text.contains("at most 255 bytes"), "{what}: {text}");
        assert!(
            !text.contains(&long.len().to_string()) && !text.contains("pppp"),
            "{what}: {text}"
        );
    };
    let at = |diags: &Diagnostics, attribute: &str| {
        diags
            .iter()
            .find(|d| d.path == Some(AttributePath::attribute(attribute)))
            .unwrap_or_else(|| panic!("{attribute}: {diags:?}"))
            .detail
            .clone()
    };
    for (attribute, username, password) in [
        ("password", "svc", long.as_str()),
        ("username", long.as_str(), "pw"),
    ] {
        let config = profile_config(
            &server,
            &[
                ("username", Value::string(username)),
                ("password", Value::string(password)),
            ],
        );
        let (planned, diags) = plan(&server, &Value::null(), &config);
        assert!(planned.is_none() || diags.has_errors());
        check(attribute, &at(&diags, attribute));
    }
    let config = write_only_config(&server, Value::string(&long), 1);
    let (_, diags) = plan(&server, &Value::null(), &config);
    check("password_wo", &at(&diags, "password_wo"));
    let schema = &server.registry().data_sources()["clusterproxy_systemd_dropin"].schema;
    let config = object(
        schema,
        &[
            ("http_proxy", Value::string(PROXY)),
            ("username", Value::string("svc")),
            ("password", Value::string(&long)),
        ],
    );
    let mut diags = Diagnostics::new();
    server.read_data_source("clusterproxy_systemd_dropin", config, &mut diags);
    check("systemd_dropin", &at(&diags, "password"));
    let error = server
        .call_function(
            "render",
            &[
                Value::string("pod_env"),
                function_settings("svc", &long),
                no_options(),
            ],
        )
        .unwrap_err();
    assert_eq!(error.argument, Some(1), "{error:?}");
    check("render", &error.text);
}

/// An input a message echoes is cut: a 1 MiB platform name, client name
/// or URL gives an error of a few hundred bytes, not a megabyte.
#[test]
fn echoed_inputs_are_cut() {
    let server = server();
    let huge = "x".repeat(1 << 20);
    for (name, arguments) in [
        (
            "render",
            vec![
                Value::string(&huge),
                function_settings("svc", "pw"),
                no_options(),
            ],
        ),
        (
            "no_proxy_bypasses",
            vec![
                Value::string(".corp.example"),
                Value::string("https://a.corp.example"),
                Value::string(&huge),
            ],
        ),
        (
            "no_proxy_bypasses",
            vec![
                Value::string(".corp.example"),
                Value::string(format!("https://[{huge}")),
                Value::string("go"),
            ],
        ),
    ] {
        let error = server.call_function(name, &arguments).unwrap_err();
        assert!(
            error.text.len() < 4096,
            "{name}: {} bytes",
            error.text.len()
        );
    }
}

/// A profile with a user name and no password validates with a warning on
/// `username` that names the fix (not an error: a fleet import's
/// configuration has no password until the user adds one); with a password
/// or `password_wo`, or without a user name, no warning.
#[test]
fn a_user_name_without_a_password_warns_at_the_profile() {
    let server = server();
    let validate = |config: &Value| {
        let mut diags = Diagnostics::new();
        server.validate_resource_config(PROFILE, config, true, &mut diags);
        diags
    };
    let alone = validate(&profile_config(
        &server,
        &[("username", Value::string("svc"))],
    ));
    assert!(!alone.has_errors(), "{alone:?}");
    let warning = alone
        .iter()
        .find(|d| d.path == Some(AttributePath::attribute("username")))
        .unwrap_or_else(|| panic!("{alone:?}"));
    assert!(warning.detail.contains("password_wo"), "{}", warning.detail);
    for config in [
        profile_config(
            &server,
            &[
                ("username", Value::string("svc")),
                ("password", Value::string("pw")),
            ],
        ),
        write_only_config(&server, Value::string("pw"), 1),
        write_only_config(&server, Value::unknown(), 1),
        profile_config(&server, &[]),
    ] {
        assert!(validate(&config).is_empty(), "{:?}", validate(&config));
    }
}
