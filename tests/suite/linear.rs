//! The data-source and the profile's plan and apply paths stay linear:
//! callgrind counts the instructions of one in-process ReadDataSource of
//! `clusterproxy_no_proxy` (decode, validation, merge, renderings, plan
//! check, encoding) and of `clusterproxy_no_proxy_report` (the same and the
//! coverage check) with 1k and with 10k installation entries, and of one
//! update plan and apply of a `clusterproxy_profile` whose `no_proxy` set
//! has 1k and 10k entries (given in another order than stored); the 10k
//! call may cost at most 12 times the 1k call. Instructions, not wall time:
//! the count does not depend on the machine's load.

use crate::{support, tools};

use clusterproxy::framework::diagnostics::Diagnostics;
use clusterproxy::framework::proto::provider_server::Provider as _;
use clusterproxy::framework::proto::read_data_source;
use clusterproxy::framework::server::ProviderServer;
use clusterproxy::framework::server::{ApplyResourceChange, PlanResourceChange, Server};
use clusterproxy::framework::value::Value;
use clusterproxy::provider::ClusterProxy;
use support::{mixed_entries, read_no_proxy_request_with, read_report_request_with};

/// Set (to the number of entries) in the measured child process only.
const ENTRIES_ENV: &str = "CLUSTERPROXY_LINEAR_ENTRIES";

/// Set in the measured child process when it reads the report.
const REPORT_ENV: &str = "CLUSTERPROXY_LINEAR_REPORT";

/// The profile's attributes a configuration sets besides `no_proxy`.
const PROFILE_INPUTS: [(&str, &str); 2] = [
    ("name", "corp"),
    ("http_proxy", "http://proxy.corp.example:3128"),
];

/// The one call callgrind counts (`--toggle-collect`).
#[inline(never)]
fn measured_read(
    server: &ProviderServer,
    runtime: &tokio::runtime::Runtime,
    request: read_data_source::Request,
) -> read_data_source::Response {
    runtime
        .block_on(server.read_data_source(tonic::Request::new(request)))
        .unwrap()
        .into_inner()
}

/// The measured child: one ReadDataSource with `n` entries, of the report
/// when `report`.
fn read_once(n: usize, report: bool) {
    let server = ProviderServer::new(&ClusterProxy);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let request = if report {
        read_report_request_with(&mixed_entries(n), &[])
    } else {
        read_no_proxy_request_with(&mixed_entries(n), &[])
    };
    let response = measured_read(&server, &runtime, request);
    assert!(
        response.diagnostics.is_empty(),
        "{:?}",
        response.diagnostics
    );
    assert!(response.state.is_some());
}

/// The one plan and apply callgrind counts in the profile's test.
#[inline(never)]
fn measured_plan_and_apply(
    server: &Server,
    prior: &Value,
    config: &Value,
    diags: &mut Diagnostics,
) -> Option<Value> {
    plan_and_apply(server, prior, config, diags)
}

/// PlanResourceChange then ApplyResourceChange of `config` over `prior`
/// (null: a create), as Terraform sends them.
fn plan_and_apply(
    server: &Server,
    prior: &Value,
    config: &Value,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let planned = server.plan_resource_change(
        PlanResourceChange {
            type_name: "clusterproxy_profile",
            prior_state: prior.clone(),
            proposed_new_state: config_over(server, prior, config),
            config: config.clone(),
        },
        diags,
    )?;
    server.apply_resource_change(
        ApplyResourceChange {
            type_name: "clusterproxy_profile",
            prior_state: prior.clone(),
            planned_state: planned.planned_state,
            config: config.clone(),
        },
        diags,
    )
}

/// Terraform's proposed new state: `config` with the computed attributes
/// it leaves null taken from `prior`.
fn config_over(server: &Server, prior: &Value, config: &Value) -> Value {
    let mut proposed = config.clone();
    let schema = &server.registry().resources()["clusterproxy_profile"].schema;
    for attribute in &schema.attributes {
        if attribute.mode.is_computed()
            && config.get_attr(&attribute.name).is_some_and(Value::is_null)
        {
            if let Some(v) = prior.get_attr(&attribute.name) {
                proposed.set_attr(&attribute.name, v.clone());
            }
        }
    }
    proposed
}

/// A profile configuration with `entries` as its `no_proxy` set.
fn profile_config(server: &Server, entries: &[String]) -> Value {
    let schema = &server.registry().resources()["clusterproxy_profile"].schema;
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    for (name, value) in PROFILE_INPUTS {
        config.set_attr(name, Value::string(value));
    }
    config.set_attr(
        "no_proxy",
        Value::Set(entries.iter().map(|e| Value::string(e.as_str())).collect()),
    );
    config
}

/// The measured child of the profile's test: creates a profile with `n`
/// entries (not counted), then plans and applies the same set in reverse
/// order over it (counted).
fn plan_and_apply_once(n: usize) {
    let server = Server::new(&ClusterProxy);
    let entries = mixed_entries(n);
    let mut diags = Diagnostics::new();
    let config = profile_config(&server, &entries);
    // The create gives the measured update its prior state (not counted).
    let created = plan_and_apply(&server, &Value::null(), &config, &mut diags)
        .unwrap_or_else(|| panic!("create failed: {diags:?}"));
    let reversed: Vec<String> = entries.iter().rev().cloned().collect();
    let config = profile_config(&server, &reversed);
    let state = measured_plan_and_apply(&server, &created, &config, &mut diags);
    assert!(!diags.has_errors(), "{diags:?}");
    assert_eq!(
        state.as_ref(),
        Some(&created),
        "reordering changed the state"
    );
}

/// Instructions callgrind counted in [`measured_read`] for `n` entries, in
/// the report when `report`, and in the cancellation scope of the thread a
/// large read runs on (off the worker, so outside `measured_read`).
fn instructions(n: usize, report: bool) -> u64 {
    counted(
        "read_data_source_is_linear",
        &["*measured_read*", "clusterproxy_cancel::scope*"],
        n,
        report,
    )
}

/// Instructions callgrind counted in the functions matching `toggles` when
/// the test `test` runs as the measured child with `n` entries.
fn counted(test: &str, toggles: &[&str], n: usize, report: bool) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("callgrind.out");
    let run = tools::VALGRIND
        .command()
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .args(toggles.iter().map(|t| format!("--toggle-collect={t}")))
        .arg(std::env::current_exe().unwrap())
        .args([&test_name(test), "--exact", "--test-threads=1"])
        .env(ENTRIES_ENV, n.to_string())
        .env(REPORT_ENV, if report { "1" } else { "" })
        .output()
        .expect("run valgrind");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let profile = std::fs::read_to_string(&out).unwrap();
    profile
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("a totals line")
}

/// The full name of `test` of this module as the test harness knows it
/// (`linear::NAME`: the binary's crate name is not part of it).
fn test_name(test: &str) -> String {
    let module = module_path!()
        .split_once("::")
        .map_or("", |(_, module)| module);
    format!("{module}::{test}")
}

#[test]
fn read_data_source_is_linear() {
    if let Ok(n) = std::env::var(ENTRIES_ENV) {
        // This process is the measured child.
        let report = std::env::var(REPORT_ENV).is_ok_and(|v| !v.is_empty());
        return read_once(n.parse().unwrap(), report);
    }
    for (name, report) in [("clusterproxy_no_proxy", false), ("report", true)] {
        let small = instructions(1_000, report);
        let large = instructions(10_000, report);
        let ratio = large as f64 / small as f64;
        println!("{name} instructions: 1k {small}, 10k {large}, ratio {ratio:.2}");
        assert!(small > 1_000_000, "{name}: nothing measured: {small}");
        assert!(
            ratio <= 12.0,
            "{name}: 10k entries cost {ratio:.2} times 1k entries"
        );
    }
}

/// PlanResourceChange and ApplyResourceChange of a profile compare its
/// `no_proxy` set with the configuration's and the prior state's: linear,
/// not one `contains` per element (quadratic: 10k entries cost 100 times 1k).
#[test]
fn profile_plan_and_apply_are_linear() {
    if let Ok(n) = std::env::var(ENTRIES_ENV) {
        return plan_and_apply_once(n.parse().unwrap());
    }
    let count = |n| {
        counted(
            "profile_plan_and_apply_are_linear",
            &["*measured_plan_and_apply*"],
            n,
            false,
        )
    };
    let (small, large) = (count(1_000), count(10_000));
    let ratio = large as f64 / small as f64;
    println!("profile plan and apply instructions: 1k {small}, 10k {large}, ratio {ratio:.2}");
    assert!(small > 1_000_000, "nothing measured: {small}");
    assert!(
        ratio <= 12.0,
        "10k entries cost {ratio:.2} times 1k entries"
    );
}

/// The `for_each` of each resource block in `hcl` that reads a data
/// source's attribute directly, as `line: text`.
fn resource_for_each_over_data(hcl: &str) -> Vec<String> {
    let mut found = Vec::new();
    let (mut depth, mut in_resource) = (0usize, false);
    for (number, line) in hcl.lines().enumerate() {
        let trimmed = line.trim();
        if depth == 0 {
            in_resource = trimmed.starts_with("resource ");
        }
        let assigned = trimmed
            .strip_prefix("for_each")
            .and_then(|rest| rest.trim_start().strip_prefix('='))
            .map(str::trim_start);
        if in_resource && depth == 1 && assigned.is_some_and(|value| value.starts_with("data.")) {
            found.push(format!("{}: {trimmed}", number + 1));
        }
        depth += trimmed.matches('{').count();
        depth = depth.saturating_sub(trimmed.matches('}').count());
    }
    found
}

/// The Terraform of every example and of every guide's `terraform` code
/// block, by the file that holds it.
fn every_configuration() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut stack = vec![root.join("examples"), root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let shown = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_symlink() {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if shown.ends_with(".tf") {
                found.push((shown, std::fs::read_to_string(&path).unwrap()));
            } else if shown.ends_with(".md") {
                let text = std::fs::read_to_string(&path).unwrap();
                let blocks = text.split("```terraform\n").skip(1);
                let hcl = blocks.map(|block| block.split("```").next().unwrap_or(""));
                found.push((shown, hcl.collect::<Vec<_>>().join("\n")));
            }
        }
    }
    found
}

/// Terraform 1.15.5 re-reads the whole value of a data source for every
/// instance of a resource whose `for_each` is that data source's attribute:
/// examples/fleet-lifecycle planned 1,000 clusters in 13 s, 19 times its
/// 100-cluster plan, and in 3.8 s once the map went through a `local`
/// (`scripts/bench-terraform fleet-lifecycle`, docs/dev/performance.md). No
/// example or guide shows the quadratic form.
#[test]
fn no_resource_for_each_reads_a_data_source_directly() {
    assert_eq!(
        resource_for_each_over_data("resource \"a\" \"b\" {\n  for_each = data.x.y.z\n}\n"),
        ["2: for_each = data.x.y.z"]
    );
    let offenders: Vec<String> = every_configuration()
        .into_iter()
        .flat_map(|(file, hcl)| {
            resource_for_each_over_data(&hcl)
                .into_iter()
                .map(move |at| format!("{file}:{at}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "a resource's for_each reads a data source directly (quadratic in Terraform: go through a local, \
         `locals {{ clusters = data.clusterproxy_fleet.this.clusters }}`): {offenders:#?}"
    );
}
