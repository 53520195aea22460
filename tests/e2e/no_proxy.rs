//! End-to-end tests of `clusterproxy_no_proxy`, `clusterproxy_no_proxy_report`
//! and the NO_PROXY functions with real Terraform 1.11 and 1.0.3: the docs
//! examples through the full cycle, the coverage check failing the plan when
//! asked, bad input as diagnostics on the attribute, and a state written by
//! 0.1.0 that still plans.

use crate::cycle::{run_cycle, Capability, Cycle};
use crate::diagnostics::expect_bad_inputs;
use crate::harness::for_each_terraform_rendering;
use crate::harness::{
    diagnostic_text, example, for_each_terraform, for_each_terraform_with, Workdir,
};

/// The clusterproxy_no_proxy docs example passes the full cycle (with
/// `fail_on_gap`: no client proxies a checked destination).
#[test]
fn no_proxy_data_source_example() {
    let data_source = example("data-sources/clusterproxy_no_proxy/data-source.tf");
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, &data_source);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["no_proxy"],
            "cluster.local,.corp.example,localhost,.svc,10.20.0.0/16,10.30.0.0/24,10.96.0.0/12,10.96.0.1,127.0.0.1,169.254.169.254,192.168.0.0/16"
        );
        let java = outputs["java_non_proxy_hosts"].as_str().unwrap();
        assert!(
            java.starts_with("cluster.local|*.cluster.local|*.corp.example|localhost|*.localhost|*.svc|10.20.*|10.30.0.*|10.96.*|10.97.*"),
            "{java}"
        );
        assert!(
            java.ends_with("|10.111.*|10.96.0.1|127.0.0.1|169.254.169.254|192.168.*"),
            "{java}"
        );
    });
}

/// `profile` gives the installation entries as every renderer takes them:
/// the list is the one `installation` gives, through the full cycle, and an
/// invalid entry of a profile's settings is a diagnostic under `profile`.
#[test]
fn no_proxy_takes_a_profile() {
    let config = r#"
resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  no_proxy   = ["registry.corp.example", "10.0.0.0/8"]
}

data "clusterproxy_no_proxy" "from_profile" {
  profile   = clusterproxy_profile.corp.settings
  pod_cidrs = ["192.168.0.0/16"]
}

data "clusterproxy_no_proxy" "direct" {
  installation = ["registry.corp.example", "10.0.0.0/8"]
  pod_cidrs    = ["192.168.0.0/16"]
}

output "from_profile" {
  value = data.clusterproxy_no_proxy.from_profile.no_proxy
}

output "direct" {
  value = data.clusterproxy_no_proxy.direct.no_proxy
}
"#;
    let bad = r#"
data "clusterproxy_no_proxy" "bad" {
  profile = {
    http_proxy        = null
    https_proxy       = null
    username          = null
    password          = null
    no_proxy          = ["ok.example", "https://proxy.example:3128"]
    trusted_ca        = null
    password_required = false
    revision          = null
  }
}
"#;
    for_each_terraform(|tf| {
        let work = Workdir::with_provider(tf, config);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(outputs["from_profile"], outputs["direct"]);
        let list = outputs["from_profile"].as_str().unwrap();
        assert!(list.contains("registry.corp.example"), "{list}");
        let work = Workdir::with_provider(tf, bad);
        let run = work.run(&["plan", "-json"]);
        assert_ne!(run.code, 0, "{}", run.combined());
        let diagnostics = run.diagnostics();
        let error = diagnostics
            .iter()
            .find(|d| d["severity"] == "error" && d["summary"] == "URL given as a NO_PROXY entry")
            .unwrap_or_else(|| panic!("{diagnostics:#?}"));
        // Terraform 1.15 points at `profile.no_proxy[1]` inside the object
        // (the element highlighted); older ones stop at the block.
        let snippet = &error["snippet"];
        let code = snippet["code"].as_str().unwrap();
        let at = |key: &str| snippet[key].as_u64().unwrap() as usize;
        let highlighted = &code[at("highlight_start_offset")..at("highlight_end_offset")];
        assert!(
            highlighted == "\"https://proxy.example:3128\""
                || code == "data \"clusterproxy_no_proxy\" \"bad\" {",
            "{snippet}"
        );
    });
}

/// Invalid entries fail the plan with a diagnostic naming the attribute: a
/// typed cluster input at validation, an installation entry at the read.
#[test]
fn no_proxy_bad_input_is_a_diagnostic() {
    let config = |installation: &str, pod_cidr: &str| {
        format!(
            r#"
data "clusterproxy_no_proxy" "bad" {{
  installation = ["ok.example", "{installation}"]
  pod_cidrs    = ["{pod_cidr}"]
}}
"#
        )
    };
    for_each_terraform_rendering(|tf| {
        // The harness also checks that no panic reached stderr.
        let work = Workdir::with_provider(tf, &config("https://proxy.example:3128", "10.0.0.0/8"));
        work.expect_diagnostic_at(&["plan"], "URL given as a NO_PROXY entry", "installation");
        let work = Workdir::with_provider(tf, &config("registry.example", "10.0.0.1/8"));
        work.expect_diagnostic_at(&["plan"], "CIDR block with host bits set", "pod_cidrs");
    });
}

/// With `fail_on_gap`, a destination a client would still proxy fails the
/// plan with a diagnostic that names the client and the destination; the
/// report gives the same gap in `gaps_by_client` without failing. Without
/// `fail_on_gap` the list runs no check, so `must_bypass` is an error there
/// (a null passed through a module's variable is none); `fail_on_gap` with
/// nothing to check is an error.
#[test]
fn no_proxy_coverage_gap_fails_the_plan_when_asked() {
    let config = |data_source: &str, line: &str| {
        format!(
            r#"
data "{data_source}" "gap" {{
  pod_cidrs   = ["10.244.0.0/16"]
  clients     = ["go", "python"]
  {line}
}}
"#
        )
    };
    for_each_terraform_rendering(|tf| {
        let work =
            Workdir::with_provider(tf, &config("clusterproxy_no_proxy", "fail_on_gap = true"));
        let gap = work.expect_diagnostic_at(&["plan"], "NO_PROXY coverage gap", "fail_on_gap");
        assert!(
            gap.text()
                .contains("python would proxy http://10.244.0.1:8080/"),
            "{}",
            gap.text()
        );
        let texts: Vec<String> = gap.run.diagnostics().iter().map(diagnostic_text).collect();
        assert!(
            !texts.iter().any(|text| text.contains("go would proxy")),
            "{texts:#?}"
        );
        let report = config("clusterproxy_no_proxy_report", "")
            + "output \"gaps\" {\n  value = data.clusterproxy_no_proxy_report.gap.gaps_by_client\n}\n";
        let work = Workdir::with_provider(tf, &report);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["gaps"],
            serde_json::json!({"python": ["http://10.244.0.1:8080/"]})
        );
        let work = Workdir::with_provider(
            tf,
            &config(
                "clusterproxy_no_proxy",
                r#"must_bypass = ["https://a.example/"]"#,
            ),
        );
        let unchecked =
            work.expect_diagnostic_at(&["plan"], "Set without fail_on_gap = true", "must_bypass");
        assert!(
            unchecked.text().contains("clusterproxy_no_proxy_report"),
            "{}",
            unchecked.text()
        );
        // A module passing an optional variable through: null is no input.
        let passed = "variable \"must_bypass\" {\n  type    = list(string)\n  default = null\n}\n"
            .to_owned()
            + &config("clusterproxy_no_proxy", "must_bypass = var.must_bypass");
        Workdir::with_provider(tf, &passed).run_ok(&["plan"]);
        let work = Workdir::with_provider(
            tf,
            &config(
                "clusterproxy_no_proxy",
                "fail_on_gap = true\n  default_checks = false",
            ),
        );
        work.expect_diagnostic_at(&["plan"], "Nothing to check", "fail_on_gap");
    });
}

/// The clusterproxy_no_proxy_report docs example passes the full cycle and
/// gives the detail of its list: what was checked, Python's gap in the pod
/// network, the entries covered by `.corp.example`, and Python's remarks.
#[test]
fn no_proxy_report_data_source_example() {
    let data_source = example("data-sources/clusterproxy_no_proxy_report/data-source.tf");
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, &data_source);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["checked"],
            serde_json::json!([
                "http://192.168.0.1:8080/",
                "https://10.96.0.1:443/",
                "https://api.prod-1.corp.example:6443/",
                "https://kubernetes.default.svc.cluster.local:443/",
                "https://kubernetes.default.svc:443/",
                "https://registry.corp.example/"
            ])
        );
        assert_eq!(
            outputs["gaps"],
            serde_json::json!({"python": ["http://192.168.0.1:8080/"]})
        );
        assert_eq!(
            outputs["subsumed"],
            serde_json::json!({
                "api.prod-1.corp.example": ".corp.example",
                "metrics.corp.example": ".corp.example",
                "registry.corp.example": ".corp.example"
            })
        );
        assert_eq!(
            outputs["no_proxy"],
            "cluster.local,.corp.example,localhost,.svc,10.20.0.0/16,10.96.0.0/12,10.96.0.1,127.0.0.1,192.168.0.0/16"
        );
        let warnings = outputs["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .all(|w| w.as_str().unwrap().starts_with("python: ")),
            "{warnings:?}"
        );
    });
}

/// The report checks its inputs as `clusterproxy_no_proxy` does: a
/// `must_bypass` element that is no destination is an error on that element,
/// a typed cluster input is checked as its type, and `fail_on_gap` fails it.
#[test]
fn no_proxy_report_bad_input_is_a_diagnostic() {
    let config = |line: &str| {
        format!("data \"clusterproxy_no_proxy_report\" \"bad\" {{\n  pod_cidrs = [\"10.244.0.0/16\"]\n  {line}\n}}\n")
    };
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(
            tf,
            &config(r#"must_bypass = ["ok.example", "https://[::1"]"#),
        );
        work.expect_diagnostic_at(&["plan"], "Invalid destination", "must_bypass");
        let work = Workdir::with_provider(tf, &config(r#"apiserver_ip = "*""#));
        work.expect_diagnostic_at(&["plan"], "Invalid IP address", "apiserver_ip");
        let work = Workdir::with_provider(tf, &config("fail_on_gap = true"));
        let gap = work.expect_diagnostic_at(&["plan"], "NO_PROXY coverage gap", "fail_on_gap");
        assert!(
            gap.text()
                .contains("python would proxy http://10.244.0.1:8080/"),
            "{}",
            gap.text()
        );
    });
}

/// A state written by 0.1.0, where `gaps` and `subsumed` were lists of
/// objects and `checked` and `client_warnings` (now in
/// `clusterproxy_no_proxy_report`) were attributes, still plans: Terraform
/// drops the attributes the schema no longer has from a data source's stored
/// state (a changed type would fail to decode on Terraform 1.0, hence the new
/// names; `gaps` is in the report as `gaps_by_client`), and the read fills in
/// the list.
#[test]
fn no_proxy_state_from_0_1_0_plans() {
    let config = r#"
data "clusterproxy_no_proxy" "c" {
  installation = ["registry.corp.example", ".corp.example"]
  pod_cidrs    = ["10.244.0.0/16"]
  clients      = ["python"]
}

output "no_proxy" {
  value = data.clusterproxy_no_proxy.c.no_proxy
}

"#;
    let entries = [
        "cluster.local",
        ".cluster.local",
        ".corp.example",
        "localhost",
        ".svc",
        "10.244.0.0/16",
        "127.0.0.1",
    ];
    let attributes = serde_json::json!({
        "installation": ["registry.corp.example", ".corp.example"],
        "pod_cidrs": ["10.244.0.0/16"],
        "service_cidrs": null,
        "node_cidrs": null,
        "cluster_domain": "cluster.local",
        "apiserver_host": null,
        "apiserver_ip": null,
        "control_plane_endpoint": null,
        "cloud": null,
        "extra": null,
        "clients": ["python"],
        "aggregate_cidrs": false,
        "must_bypass": null,
        "default_checks": true,
        "fail_on_gap": false,
        "entries": entries,
        "no_proxy": entries.join(","),
        "renderings": {"python": entries.join(",")},
        "client_warnings": [],
        "subsumed": [{"entry": "registry.corp.example", "covered_by": ".corp.example"}],
        "checked": ["https://kubernetes.default.svc:443/", "http://10.244.0.1:8080/"],
        "gaps": [{"client": "python", "destination": "http://10.244.0.1:8080/"}]
    });
    for_each_terraform(|tf| {
        let work = Workdir::with_provider(tf, config);
        work.write_stored_state("data.clusterproxy_no_proxy.c", 0, attributes.clone(), &[]);
        work.run_ok(&["plan"]);
        work.run_ok(&["apply", "-auto-approve"]);
        let outputs = work.outputs();
        assert_eq!(
            outputs["no_proxy"],
            "cluster.local,.corp.example,localhost,.svc,10.244.0.0/16,127.0.0.1"
        );
        let stored = std::fs::read_to_string(work.path().join("terraform.tfstate")).unwrap();
        for dropped in ["covered_by", "\"checked\"", "client_warnings", "gaps"] {
            assert!(!stored.contains(dropped), "{dropped}: {stored}");
        }
        work.assert_plan_empty(&[]);
    });
}

/// The provider functions, on Terraform versions that have them (>= 1.8):
/// their docs examples apply with the documented results, and bad arguments
/// are errors that name the argument.
#[test]
fn no_proxy_functions() {
    for_each_terraform_with(Capability::Functions, |tf| {
        for (name, expected) in [
            (
                "merge_no_proxy",
                serde_json::json!({"merged": ["registry.corp.example", "10.0.0.0/8", "fd00::/8"]}),
            ),
            (
                "no_proxy_bypasses",
                serde_json::json!({"go_reaches_service_ip_directly": true, "python_reaches_service_ip_directly": false}),
            ),
        ] {
            let function = example(&format!("functions/{name}/function.tf"));
            let work = Workdir::with_provider(tf, &function);
            let outputs = run_cycle(&work, &Cycle::default());
            assert_eq!(serde_json::Value::Object(outputs), expected, "{name}");
        }
        let bad = r#"
output "x" {
  value = provider::clusterproxy::no_proxy_bypasses("a.example", "ftp://a.example", "go")
}
"#;
        expect_bad_inputs(
            tf,
            &[],
            None,
            &[(bad, "Invalid value for \"url\" parameter", "value", None)],
        );
    });
}
