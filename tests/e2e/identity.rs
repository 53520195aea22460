//! The resource identity of `clusterproxy_profile` on real Terraform: on
//! 1.15.5, `import { to, identity = {...} }` (the docs example) plans and
//! applies exactly as the import by ID of the same file, a profile created
//! in configuration carries its name as identity, and state written by
//! 1.11.4 and 1.0.3 (which store no identity) gets its identity on 1.15.5
//! without a diff, drift or upgrade step. 1.11.4 and 1.0.3 store none and
//! refuse an identity import block (`harness::newer_features_are_refused_clearly`).

use serde_json::{json, Value};

use crate::cycle::{args_with, hcl_string, import_block, ImportStep};
use crate::harness::{
    example, for_each_terraform_with, import_fixture, terraform_1_0, terraform_1_11,
    terraform_1_15, Capability, Terraform, Workdir,
};

/// The password of tests/fixtures/import/systemd/messy.conf, which the docs
/// example configures.
const PASSWORD: &str = "p@ss word";
const ADDRESS: &str = "clusterproxy_profile.corp";
const VARS: &[&str] = &["-var-file=test.tfvars"];
/// The drop-in path of the docs example, replaced by the fixture's.
const DOCS_PATH: &str = "/etc/systemd/system/containerd.service.d/http-proxy.conf";

/// A working directory with the profile's docs example and its password.
fn workdir(tf: &Terraform) -> Workdir {
    let work = Workdir::with_provider(tf, &example("resources/clusterproxy_profile/resource.tf"));
    work.write_file(
        "test.tfvars",
        &format!("proxy_password = {}\n", hcl_string(PASSWORD)),
    );
    work
}

/// The resource `address` of a `show -json` state.
fn state_resource(state: &Value, address: &str) -> Value {
    state["values"]["root_module"]["resources"]
        .as_array()
        .and_then(|all| all.iter().find(|r| r["address"] == address))
        .cloned()
        .unwrap_or_else(|| panic!("{address} not in {state}"))
}

/// Every element of `items` (resource changes or `plan -json` messages)
/// without its `change.importing`, the only part that says how an import
/// was asked for: by ID or by identity.
fn without_importing(items: &Value) -> Vec<Value> {
    let mut items = items.as_array().cloned().unwrap_or_default();
    for item in &mut items {
        if let Some(change) = item["change"].as_object_mut() {
            change.remove("importing");
        }
    }
    items
}

/// The `planned_change` and `resource_drift` messages of a `plan -json`
/// run, without `importing` and timestamps, and the `importing` of
/// `ADDRESS`.
fn json_plan(work: &Workdir) -> (Vec<Value>, Value) {
    let run = work.run_ok(&args_with(&["plan", "-json"], VARS));
    let messages: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["type"] == "planned_change" || m["type"] == "resource_drift")
        .collect();
    let importing = messages
        .iter()
        .find(|m| m["change"]["resource"]["addr"] == ADDRESS)
        .map(|m| m["change"]["importing"].clone())
        .unwrap_or_default();
    let mut changes = without_importing(&Value::Array(messages));
    for message in &mut changes {
        message.as_object_mut().map(|m| m.remove("@timestamp"));
    }
    (changes, importing)
}

/// The docs example `import { identity = {...} }` gives the plan (`plan
/// -json` and the saved plan's `show -json`) and the state of the import by
/// ID of the same file: the same change, the same planned values and
/// identity; only `importing` names the identity (the provider's, complete)
/// instead of the ID. The state then holds the identity, and plans empty.
#[test]
fn import_by_identity_plans_and_applies_as_the_import_by_id() {
    for_each_terraform_with(Capability::Identity, |tf| {
        let messy = import_fixture("systemd/messy.conf");
        let id = format!("corp=systemd:file:{messy}");
        let by_id = workdir(tf);
        by_id.write_file(
            "import.tf",
            &import_block(&ImportStep {
                address: ADDRESS.to_owned(),
                id: id.clone(),
            }),
        );
        let by_identity = workdir(tf);
        let identity_example = example("resources/clusterproxy_profile/import-by-identity.tf");
        assert!(identity_example.contains(DOCS_PATH));
        by_identity.write_file("import.tf", &identity_example.replace(DOCS_PATH, &messy));
        let identity = json!({"name": "corp", "kind": "systemd", "path": messy, "facts": null});

        let (id_messages, id_importing) = json_plan(&by_id);
        let (identity_messages, identity_importing) = json_plan(&by_identity);
        assert_eq!(id_importing, json!({"id": id}));
        // `plan -json` names an import by its ID only (Terraform 1.15.5,
        // internal/command/views/json/importing.go): by identity it is `{}`;
        // the saved plan's `show -json` carries the identity.
        assert_eq!(identity_importing, json!({}));
        assert_eq!(identity_messages, id_messages);

        let id_plan = by_id.saved_plan("import.tfplan", VARS);
        let identity_plan = by_identity.saved_plan("import.tfplan", VARS);
        let changes = |plan: &Value| without_importing(&plan["resource_changes"]);
        assert_eq!(changes(&identity_plan), changes(&id_plan));
        assert_eq!(identity_plan["planned_values"], id_plan["planned_values"]);
        let change = &identity_plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["address"] == ADDRESS)
            .unwrap()["change"];
        assert_eq!(change["importing"], json!({"identity": identity}));
        assert_eq!(change["after_identity"], identity);
        // The configured password is stored by the import's update.
        assert_eq!(change["actions"], json!(["update"]));

        for work in [&by_id, &by_identity] {
            work.run_ok(&["apply", "import.tfplan"]);
            work.assert_no_resource_changes(VARS);
            work.assert_no_drift(VARS);
        }
        let id_state = state_resource(&by_id.state(), ADDRESS);
        let identity_state = state_resource(&by_identity.state(), ADDRESS);
        assert_eq!(identity_state, id_state);
        assert_eq!(identity_state["identity"], identity);
        assert_eq!(identity_state["identity_schema_version"], 0);
        // The password is in `values.password` only (configured, sensitive).
        let mut rest = identity_state.clone();
        rest["values"]["password"] = Value::Null;
        assert!(!rest.to_string().contains(PASSWORD), "{rest}");

        // An identity that names no file is an error on its attribute.
        let broken = workdir(tf);
        broken.write_file(
            "import.tf",
            &format!(
                "import {{\n  to       = {ADDRESS}\n  identity = {{ name = \"corp\", kind = \"systemd\" }}\n}}\n"
            ),
        );
        let run = broken.run(&args_with(&["plan"], VARS));
        assert_eq!(run.code, 1, "{}", run.combined());
        assert!(
            run.combined().contains("Identity names no artifact"),
            "{}",
            run.combined()
        );
    });
}

/// State written by Terraform 1.11.4 and 1.0.3 (no identity) is read by
/// 1.15.5 with no diff, no drift and no upgrade step; a refresh-only apply
/// fills in the identity (the name: the state says nothing of an import),
/// after which the resource equals the one 1.15.5 creates from the same
/// configuration, identity included.
#[test]
fn state_written_by_older_terraform_gets_its_identity_without_a_diff() {
    let newest = terraform_1_15();
    let created = workdir(&newest);
    created.run_ok(&args_with(&["apply", "-auto-approve"], VARS));
    let created_profile = state_resource(&created.state(), ADDRESS);
    assert_eq!(
        created_profile["identity"],
        json!({"name": "corp", "kind": null, "path": null, "facts": null}),
        "a profile created in configuration carries its name as identity"
    );
    for writer in [terraform_1_11(), terraform_1_0()] {
        let old = workdir(&writer);
        old.run_ok(&args_with(&["apply", "-auto-approve"], VARS));
        let written = state_resource(&old.state(), ADDRESS);
        assert!(
            written.get("identity").is_none(),
            "Terraform {} stores no identity: {written}",
            writer.version_string()
        );
        let state = std::fs::read_to_string(old.path().join("terraform.tfstate")).unwrap();
        let new = workdir(&newest);
        new.write_file("terraform.tfstate", &state);
        new.assert_plan_empty(VARS);
        new.assert_no_resource_changes(VARS);
        new.assert_no_drift(VARS);
        new.run_ok(&args_with(
            &["apply", "-refresh-only", "-auto-approve"],
            VARS,
        ));
        let backfilled = state_resource(&new.state(), ADDRESS);
        assert_eq!(
            backfilled["values"],
            written["values"],
            "the state written by {} changed",
            writer.version_string()
        );
        assert_eq!(
            backfilled,
            created_profile,
            "state written by {} and filled in differs from the one 1.15.5 creates",
            writer.version_string()
        );
        new.assert_no_resource_changes(VARS);
    }
}
