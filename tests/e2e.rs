//! End-to-end tests: the provider binary driven by real Terraform 1.11 and
//! 1.0.3 through the harness in tests/e2e/mod.rs.

#[path = "e2e/mod.rs"]
mod harness;

use harness::{for_each_terraform, run_cycle, Cycle, Workdir};

/// The harness cycle itself works on both Terraform versions, using only
/// built-in constructs (outputs and locals) that 1.0.3 also knows.
#[test]
fn harness_cycle_with_builtins() {
    for_each_terraform(|tf| {
        let work = Workdir::from_files(
            tf,
            &[(
                "main.tf",
                "variable \"name\" {\n  type = string\n}\n\nlocals {\n  greeting = \"hello ${var.name}\"\n}\n\noutput \"greeting\" {\n  value = local.greeting\n}\n",
            )],
        );
        work.write_file("test.tfvars", "name = \"proxy\"\n");
        work.expect_failure(&["plan"], "No value for required variable");
        let outputs = run_cycle(
            &work,
            &Cycle {
                var_file: Some("test.tfvars".into()),
                import: None,
            },
        );
        assert_eq!(outputs["greeting"], "hello proxy");
    });
}

/// examples/quickstart passes the full cycle on both Terraform versions and
/// prints the merged NO_PROXY.
#[test]
fn quickstart_example() {
    for_each_terraform(|tf| {
        let work = Workdir::from_example(tf, "examples/quickstart");
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["no_proxy"],
            "registry.corp.example,.corp.example,10.20.0.0/16,192.168.0.0/16,10.96.0.0/12,cluster.local,api.prod-1.corp.example,localhost,127.0.0.1"
        );
    });
}

/// Reads an example file of the tfplugindocs layout.
fn example(path: &str) -> String {
    std::fs::read_to_string(format!("{}/examples/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The clusterproxy_no_proxy docs example passes the full cycle.
#[test]
fn no_proxy_data_source_example() {
    let provider = example("provider/provider.tf");
    let data_source = example("data-sources/clusterproxy_no_proxy/data-source.tf");
    for_each_terraform(|tf| {
        let work =
            Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", &data_source)]);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["no_proxy"],
            "registry.corp.example,.corp.example,10.20.0.0/16,192.168.0.0/16,10.96.0.0/12,10.30.0.0/24,cluster.local,api.prod-1.corp.example,localhost,127.0.0.1,metrics.corp.example"
        );
    });
}

/// Invalid entries fail the plan with a diagnostic naming the attribute,
/// and the plugin keeps serving (a second data source still reads).
#[test]
fn no_proxy_bad_input_is_a_diagnostic() {
    let provider = example("provider/provider.tf");
    let config = r#"
data "clusterproxy_no_proxy" "bad" {
  installation = ["ok.example", "https://proxy.example:3128"]
  pod_cidrs    = ["10.0.0.1/8"]
}
"#;
    for_each_terraform(|tf| {
        let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", config)]);
        let run = work.expect_failure(&["plan"], "URL given as a NO_PROXY entry");
        let text = run.combined();
        assert!(text.contains("CIDR with host bits set"), "{text}");
        assert!(
            text.contains("installation[1]") || text.contains("installation"),
            "{text}"
        );
        assert!(!text.contains("panic"), "{text}");
    });
}
