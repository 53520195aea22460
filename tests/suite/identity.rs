//! The identity of `clusterproxy_profile` through the in-process server, as
//! Terraform >= 1.12 drives it: the served schema, an import by identity
//! equal to the import by ID (state, identity, first plan), the identity of
//! a profile created in configuration, the backfill of state stored without
//! an identity (Terraform <= 1.11, earlier releases) with no diff, and no
//! secret and no content in any identity, over every import fixture.

use clusterproxy::domain::import::{self, id};
use clusterproxy::framework::diagnostics::Diagnostics;
use clusterproxy::framework::identity::ImportTarget;
use clusterproxy::framework::resource::Carried;
use clusterproxy::framework::server::{
    ApplyResourceChange, PlanResourceChange, Server, UpgradeResourceState,
};
use clusterproxy::framework::value::{json, Value};
use clusterproxy::provider::ClusterProxy;

const PROFILE: &str = "clusterproxy_profile";
const PROXY: &str = "http://proxy.corp.example:3128";

fn server() -> Server {
    Server::new(&ClusterProxy)
}

fn fixtures_dir() -> String {
    format!("{}/tests/fixtures/import", env!("CARGO_MANIFEST_DIR"))
}

/// An identity: `name`, `kind`, `path`, `facts`.
fn identity(name: &str, kind: Option<&str>, path: Option<&str>, facts: Option<&str>) -> Value {
    Value::object([
        ("name".to_owned(), Value::string(name)),
        ("kind".to_owned(), Value::opt_string(kind)),
        ("path".to_owned(), Value::opt_string(path)),
        ("facts".to_owned(), Value::opt_string(facts)),
    ])
}

/// Imports by `target`: the state, what is stored with it, and the
/// diagnostics.
fn import(server: &Server, target: ImportTarget<'_>) -> (Option<Value>, Carried, Diagnostics) {
    let mut carried = Carried::default();
    let mut diags = Diagnostics::new();
    let state = server.import_resource_state_carrying(PROFILE, target, &mut carried, &mut diags);
    (state, carried, diags)
}

/// The configuration that says what `state` holds, with `password` (the
/// artifact's, which the state does not keep) when given.
fn config_of(server: &Server, state: &Value, password: Option<&str>) -> Value {
    let schema = &server.registry().resources()[PROFILE].schema;
    let mut config = state.clone();
    for attribute in &schema.attributes {
        if !attribute.mode.is_configurable() || attribute.write_only {
            config.set_attr(&attribute.name, Value::null());
        }
    }
    if let Some(password) = password {
        config.set_attr("password", Value::string(password));
    }
    config
}

/// Terraform's plan of `config` over `prior` (computed attributes the
/// configuration leaves null taken from the prior state), with what is
/// stored with the prior state: the planned state and what is planned to
/// be stored.
fn plan(server: &Server, prior: &Value, config: &Value, stored: &Carried) -> (Value, Carried) {
    let schema = &server.registry().resources()[PROFILE].schema;
    let mut proposed = config.clone();
    if !prior.is_null() {
        for attribute in schema.attributes.iter().filter(|a| a.mode.is_computed()) {
            if config.get_attr(&attribute.name).unwrap().is_null() {
                proposed.set_attr(
                    &attribute.name,
                    prior.get_attr(&attribute.name).unwrap().clone(),
                );
            }
        }
    }
    let mut carried = stored.clone();
    let mut diags = Diagnostics::new();
    let planned = server
        .plan_resource_change_carrying(
            PlanResourceChange {
                type_name: PROFILE,
                prior_state: prior.clone(),
                proposed_new_state: proposed,
                config: config.clone(),
            },
            &mut carried,
            &mut diags,
        )
        .unwrap_or_else(|| panic!("{diags:?}"));
    assert!(!diags.has_errors(), "{diags:?}");
    (planned.planned_state, carried)
}

/// Reads `state` with the identity Terraform holds (`identity`).
fn read(server: &Server, state: &Value, identity: Value) -> (Value, Value) {
    let mut carried = Carried {
        identity,
        ..Carried::default()
    };
    let mut diags = Diagnostics::new();
    let new_state = server
        .read_resource_carrying(PROFILE, state, &mut carried, &mut diags)
        .unwrap_or_else(|| panic!("{diags:?}"));
    (new_state, carried.identity)
}

/// Applies `planned` over `prior` with what the plan stored (`planned_carried`):
/// the new state and what is stored with it.
fn apply(
    server: &Server,
    prior: &Value,
    planned: Value,
    config: &Value,
    planned_carried: &Carried,
) -> (Value, Carried) {
    let mut carried = planned_carried.clone();
    let mut diags = Diagnostics::new();
    let state = server
        .apply_resource_change_carrying(
            ApplyResourceChange {
                type_name: PROFILE,
                prior_state: prior.clone(),
                planned_state: planned,
                config: config.clone(),
            },
            &mut carried,
            &mut diags,
        )
        .unwrap_or_else(|| panic!("{diags:?}"));
    (state, carried)
}

/// A profile configuration: the attributes `set`, null everywhere else.
fn configuration(server: &Server, set: &[(&str, &str)]) -> Value {
    let schema = &server.registry().resources()[PROFILE].schema;
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    for (name, value) in set {
        config.set_attr(name, Value::string(*value));
    }
    config
}

#[test]
fn the_profile_identity_schema_is_served() {
    let server = server();
    let schemas = server.get_resource_identity_schemas();
    let schema = schemas[PROFILE];
    assert_eq!(schema.version, 0);
    let attributes: Vec<(&str, bool)> = schema
        .attributes
        .iter()
        .map(|a| (a.name.as_str(), a.required_for_import))
        .collect();
    assert_eq!(
        attributes,
        [
            ("name", true),
            ("kind", false),
            ("path", false),
            ("facts", false)
        ]
    );
    assert_eq!(schemas.len(), 1, "only the profile has an identity");
}

/// Every import fixture that imports: by ID from its file, with and without
/// facts; then by the identity that import returned, which gives the same
/// state, the same identity and the same first plan (with the artifact's
/// password configured, which only the private state's verifier knows).
#[test]
fn import_by_identity_equals_import_by_id() {
    let server = server();
    let mut compared = 0;
    for kind in import::kinds() {
        let dir = format!("{}/{kind}", fixtures_dir());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path().display().to_string();
            for facts in [
                "",
                "(service_cidrs=10.96.0.0/12; cloud=aws;pod_cidrs=10.244.0.0/16)",
            ] {
                let id = format!("{kind}{facts}:file:{path}");
                let (Some(by_id), stored, _) = import(&server, ImportTarget::Id(&id)) else {
                    continue;
                };
                let name = by_id.get_attr("name").unwrap().as_str().unwrap().to_owned();
                let canonical_facts = (!facts.is_empty())
                    .then_some("pod_cidrs=10.244.0.0/16;service_cidrs=10.96.0.0/12;cloud=aws");
                assert_eq!(
                    stored.identity,
                    identity(&name, Some(kind), Some(&path), canonical_facts),
                    "{id}"
                );
                let (by_identity, again, diags) =
                    import(&server, ImportTarget::Identity(&stored.identity));
                assert!(!diags.has_errors(), "{id}: {diags:?}");
                let by_identity = by_identity.unwrap();
                assert_eq!(by_identity, by_id, "{id}");
                assert_eq!(again.identity, stored.identity, "{id}");
                let text = std::fs::read_to_string(&path).unwrap();
                let facts = id::parse(&id).unwrap().facts;
                let password = import::parse_with(kind, &text, &facts).unwrap().password;
                let config = config_of(&server, &by_id, password.as_deref());
                let first = plan(&server, &by_id, &config, &stored);
                // The planned private states hold verifiers of the same
                // password with their own salts.
                let (planned, planned_carried) = plan(&server, &by_identity, &config, &again);
                assert_eq!(planned, first.0, "{id}");
                assert_eq!(planned_carried.identity, first.1.identity, "{id}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 30, "only {compared} imports compared");
}

/// An identity that names no file (a profile created in configuration, or
/// imported from inline content) or that a file import cannot read is an
/// error on the attribute at fault, never a panic.
#[test]
fn an_identity_naming_no_file_is_an_error() {
    let server = server();
    let messy = format!("{}/systemd/messy.conf", fixtures_dir());
    for (given, summary) in [
        (
            identity("corp", None, None, None),
            "Identity names no artifact",
        ),
        (
            identity("corp", Some("systemd"), None, None),
            "Identity names no artifact",
        ),
        (
            identity("corp", Some("nope"), Some(&messy), None),
            "Invalid import ID",
        ),
        (
            identity("corp", Some("systemd"), Some(&messy), Some("cloud=mars")),
            "Invalid import ID",
        ),
        (
            identity("corp", Some("systemd"), Some("/nonexistent/x.conf"), None),
            "Cannot read the artifact",
        ),
        (
            Value::object([
                ("name".to_owned(), Value::null()),
                ("kind".to_owned(), Value::string("systemd")),
                ("path".to_owned(), Value::string(&messy)),
                ("facts".to_owned(), Value::null()),
            ]),
            "Missing identity attribute",
        ),
    ] {
        let (state, _, diags) = import(&server, ImportTarget::Identity(&given));
        assert!(state.is_none(), "{given:?}");
        assert!(
            diags.iter().any(|d| d.summary == summary),
            "{given:?}: {diags:?}"
        );
    }
}

/// A profile created in configuration carries its name as identity, from
/// the plan (unknown while the name is) to the apply and every read.
#[test]
fn a_profile_created_in_configuration_has_its_name_as_identity() {
    let server = server();
    let mut config = configuration(&server, &[("name", "corp"), ("http_proxy", PROXY)]);
    let (planned, carried) = plan(&server, &Value::null(), &config, &Carried::default());
    let expected = identity("corp", None, None, None);
    assert_eq!(carried.identity, expected);
    let mut unknown_name = config.clone();
    unknown_name.set_attr("name", Value::unknown());
    let (_, unknown) = plan(&server, &Value::null(), &unknown_name, &Carried::default());
    assert_eq!(unknown.identity.get_attr("name"), Some(&Value::unknown()));
    let (state, applied) = apply(&server, &Value::null(), planned, &config, &carried);
    assert_eq!(applied.identity, expected);
    assert_eq!(
        read(&server, &state, applied.identity.clone()),
        (state.clone(), expected.clone())
    );
    // An update keeps it.
    config.set_attr("description", Value::string("changed"));
    assert_eq!(
        plan(&server, &state, &config, &applied).1.identity,
        expected
    );
}

/// State stored without an identity (by Terraform 1.11, which stores none,
/// or by an earlier release at an older schema version) gets its identity
/// on the next read, with the state unchanged, and then plans no change:
/// no diff, no upgrade step. An imported profile keeps the identity of its
/// import through read, plan and apply.
#[test]
fn state_stored_without_identity_gets_one_without_a_diff() {
    let server = server();
    let ty = server.registry().resources()[PROFILE].object_type.clone();
    let schema = &server.registry().resources()[PROFILE].schema;
    let config = configuration(
        &server,
        &[
            ("name", "corp"),
            ("http_proxy", PROXY),
            ("username", "svc"),
            ("password", "p@ss word"),
        ],
    );
    let (planned, carried) = plan(&server, &Value::null(), &config, &Carried::default());
    let (state, _) = apply(&server, &Value::null(), planned, &config, &carried);
    // As Terraform 1.11 stores it: the state's JSON, no identity.
    let raw = json::encode(&state, &ty).unwrap();
    let mut diags = Diagnostics::new();
    let upgraded = server
        .upgrade_resource_state(
            UpgradeResourceState {
                type_name: PROFILE,
                version: schema.version,
                raw_json: &raw,
            },
            &mut diags,
        )
        .unwrap();
    assert_eq!(upgraded, state);
    let (refreshed, backfilled) = read(&server, &upgraded, Value::null());
    assert_eq!(refreshed, state, "the read changes no attribute");
    assert_eq!(backfilled, identity("corp", None, None, None));
    let with_identity = Carried {
        identity: backfilled.clone(),
        ..Carried::default()
    };
    let (planned, carried) = plan(&server, &refreshed, &config, &with_identity);
    assert_eq!(planned, state, "no diff");
    assert_eq!(carried.identity, backfilled);
    // A state of an earlier schema version (3, a release before
    // identities) upgrades as before and gets the same identity.
    let mut v3: serde_json::Value = serde_json::from_slice(&raw).unwrap();
    let top = v3.as_object_mut().unwrap();
    top.remove("password_wo");
    top.remove("password_wo_version");
    let url = "http://svc:p%40ss%20word@proxy.corp.example:3128";
    top.insert("http_proxy_url".into(), url.into());
    top.insert("https_proxy_url".into(), url.into());
    let settings = top["settings"].as_object_mut().unwrap();
    settings.remove("password_required");
    settings.remove("revision");
    settings.insert("password".into(), "p@ss word".into());
    let mut diags = Diagnostics::new();
    let old = server
        .upgrade_resource_state(
            UpgradeResourceState {
                type_name: PROFILE,
                version: 3,
                raw_json: v3.to_string().as_bytes(),
            },
            &mut diags,
        )
        .unwrap_or_else(|| panic!("{diags:?}"));
    assert_eq!(old, state);
    assert_eq!(read(&server, &old, Value::null()).1, backfilled);
}

/// An imported profile keeps the identity of its import through read,
/// plan and apply.
#[test]
fn an_imported_profile_keeps_its_identity() {
    let server = server();
    let id = format!(
        "corp=systemd(https_through_proxy=true; cloud=aws):file:{}/systemd/http-only.conf",
        fixtures_dir()
    );
    let (state, stored, diags) = import(&server, ImportTarget::Id(&id));
    let state = state.unwrap_or_else(|| panic!("{diags:?}"));
    assert!(!diags.has_errors(), "{diags:?}");
    let (_, kept) = read(&server, &state, stored.identity.clone());
    assert_eq!(kept, stored.identity);
    let mut config = config_of(&server, &state, None);
    config.set_attr("description", Value::string("now managed"));
    let (planned, planned_carried) = plan(&server, &state, &config, &stored);
    assert_eq!(planned_carried.identity, stored.identity);
    let (_, applied) = apply(&server, &state, planned, &config, &planned_carried);
    assert_eq!(applied.identity, stored.identity);
    assert_eq!(
        stored.identity,
        identity(
            "corp",
            Some("systemd"),
            Some(&format!("{}/systemd/http-only.conf", fixtures_dir())),
            Some("cloud=aws;https_through_proxy=true")
        )
    );
}

/// Every string of an identity, as Terraform would print it.
fn strings(identity: &Value) -> Vec<String> {
    ["name", "kind", "path", "facts"]
        .into_iter()
        .filter_map(|k| {
            identity
                .get_attr(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// No identity holds a secret or content: over every import fixture of
/// every kind, from its file, `inline:` and (legacy) bare content, with and
/// without facts, and over artifacts whose passwords take every shape a URL
/// allows, the identity holds the name, the kind, the file path (none for
/// content) and the facts, never the password (decoded or as written) nor
/// a line of the content.
#[test]
fn no_identity_holds_a_secret_or_content() {
    let server = server();
    let mut artifacts: Vec<(String, String, String)> = Vec::new();
    for kind in import::kinds() {
        let dir = format!("{}/{kind}", fixtures_dir());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path().display().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            artifacts.push(((*kind).to_owned(), path, text));
        }
    }
    for (index, (written, decoded)) in [
        ("s3cr%%24t-pw", "s3cr$t-pw"),
        ("p%%40ss%%3Aw%%2Frd", "p@ss:w/rd"),
        ("hunter2hunter2", "hunter2hunter2"),
        ("%%E2%%9C%%93-unicode", "✓-unicode"),
    ]
    .into_iter()
    .enumerate()
    {
        let text = format!(
            "[Service]\nEnvironment=\"HTTP_PROXY=http://svc:{written}@proxy.corp.example:3128\"\n"
        );
        let file = std::env::temp_dir().join(format!(
            "clusterproxy-identity-{}-{}.conf",
            std::process::id(),
            index
        ));
        std::fs::write(&file, &text).unwrap();
        let found = import::parse_with("systemd", &text, &Default::default()).unwrap();
        assert_eq!(found.password.as_deref(), Some(decoded));
        artifacts.push(("systemd".to_owned(), file.display().to_string(), text));
    }
    let mut imported = 0;
    for (kind, path, text) in &artifacts {
        let facts = id::parse(&format!("{kind}:file:{path}")).unwrap().facts;
        let mut secrets: Vec<String> = Vec::new();
        if let Ok(found) = import::parse_with(kind, text, &facts) {
            secrets.extend(found.password);
        }
        // Every password as the artifact writes it, too.
        for line in text.lines() {
            if let Some((userinfo, _)) = line.split_once('@') {
                if let Some((_, password)) = userinfo.rsplit_once(':') {
                    secrets.push(password.to_owned());
                }
            }
        }
        secrets.retain(|s| s.len() >= 4);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.len() >= 16)
            .collect();
        let facts = "(cloud=aws;https_through_proxy=true)";
        for (source, is_file, facts) in [
            (format!("file:{path}"), true, ""),
            (format!("inline:{text}"), false, facts),
            (text.clone(), false, facts),
        ] {
            {
                let id = format!("corp-{kind}={kind}{facts}:{source}");
                let (state, stored, diags) = import(&server, ImportTarget::Id(&id));
                if state.is_none() {
                    assert!(stored.identity.is_null(), "{kind} {path}");
                    continue;
                }
                assert!(!diags.has_errors(), "{diags:?}");
                imported += 1;
                let given = &stored.identity;
                assert_eq!(
                    given.get_attr("kind").and_then(Value::as_str),
                    Some(kind.as_str())
                );
                let expected_path = is_file.then_some(path.as_str());
                assert_eq!(
                    given.get_attr("path").and_then(Value::as_str),
                    expected_path,
                    "{kind} {path}"
                );
                let printed = strings(given);
                for secret in &secrets {
                    assert!(
                        !printed.iter().any(|s| s.contains(secret.as_str())),
                        "{kind} {path}: the identity holds a password"
                    );
                }
                for line in &lines {
                    assert!(
                        !printed.iter().any(|s| s.contains(line)),
                        "{kind} {path}: the identity holds content {line:?}"
                    );
                }
            }
        }
    }
    assert!(imported >= 60, "only {imported} imports");
}
