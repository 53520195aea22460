//! End-to-end tests of the provider as a whole with real Terraform 1.11 and
//! 1.0.3: the harness's own cycle, the quickstart example, the quick start
//! of README.md and docs/index.md, and how often Terraform gets the schema
//! in one run.

use std::path::Path;

use crate::cycle::{run_cycle, Cycle};
use crate::harness::{for_each_terraform, for_each_terraform_with, Capability, Terraform, Workdir};

/// A working directory holding a copy of every `.tf` file in `example`
/// (a path relative to the crate root, e.g. `examples/quickstart`).
fn from_example(tf: &Terraform, example: &str) -> Workdir {
    let work = Workdir::empty(tf);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(example);
    let entries =
        std::fs::read_dir(&source).unwrap_or_else(|err| panic!("read {}: {err}", source.display()));
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|ext| ext == "tf") {
            std::fs::copy(&path, work.path().join(path.file_name().unwrap()))
                .expect("copy example file");
        }
    }
    work
}

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
        work.expect_diagnostic_at(
            &["plan"],
            "No value for required variable",
            "variable \"name\" {",
        );
        let outputs = run_cycle(&work, &Cycle::with_vars());
        assert_eq!(outputs["greeting"], "hello proxy");
    });
}

/// examples/quickstart passes the full cycle on both Terraform versions and
/// prints the merged NO_PROXY.
#[test]
fn quickstart_example() {
    for_each_terraform(|tf| {
        let work = from_example(tf, "examples/quickstart");
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["no_proxy"],
            "cluster.local,.cluster.local,.corp.example,localhost,.svc,10.20.0.0/16,10.96.0.0/12,10.96.0.1,127.0.0.1,192.168.0.0/16"
        );
    });
}

/// examples/provider, the provider block with the quick start of README.md
/// and docs/index.md (`quick-start.tf`), passes the full cycle on every
/// Terraform with functions, and its output is the containerd drop-in with
/// the proxy and the merged NO_PROXY.
#[test]
fn quick_start_example() {
    for_each_terraform_with(Capability::Functions, |tf| {
        let work = from_example(tf, "examples/provider");
        let outputs = run_cycle(&work, &Cycle::default());
        let dropin = outputs["containerd_dropin"].as_str().unwrap_or_default();
        let line = |name: &str| {
            let start = format!("Environment=\"{name}=");
            dropin
                .lines()
                .find(|l| l.starts_with(&start))
                .unwrap_or_default()
        };
        // `registry.corp.example` is below `.corp.example`: the merge keeps one.
        assert_eq!(
            [line("HTTP_PROXY"), line("HTTPS_PROXY"), line("NO_PROXY")],
            [
                "Environment=\"HTTP_PROXY=http://proxy.corp.example:3128\"",
                "Environment=\"HTTPS_PROXY=http://proxy.corp.example:3128\"",
                "Environment=\"NO_PROXY=cluster.local,.cluster.local,.corp.example,localhost,.svc,10.96.0.0/12,10.96.0.1,127.0.0.1,192.168.0.0/16\"",
            ],
            "the drop-in on Terraform {}:\n{dropin}",
            tf.version_string()
        );
    });
}

/// Terraform starts the provider several times in one plan (schema,
/// validation, planning); the provider lets it reuse the schema it already
/// holds (`get_provider_schema_optional`), so on Terraform >= 1.6 only the
/// first instance builds and sends every schema.
#[test]
fn provider_schema_is_served_once_per_run() {
    let config = r#"
data "clusterproxy_no_proxy" "a" {
  installation = [".corp.example"]
}

data "clusterproxy_no_proxy" "b" {
  installation = ["10.0.0.0/8"]
}
"#;
    for_each_terraform(|tf| {
        if !tf.reuses_provider_schema() {
            return;
        }
        let work = Workdir::with_provider(tf, config);
        let log = work.path().join("terraform.log");
        let run = crate::harness::Run::from_output(
            work.command(&["plan"])
                .env("TF_LOG", "trace")
                .env("TF_LOG_PATH", &log)
                .output()
                .expect("spawn terraform"),
        );
        run.expect_ok(&["plan"], &tf.version_string());
        let log = std::fs::read_to_string(&log).expect("Terraform wrote its log");
        let starts = log.lines().filter(|l| l.contains("plugin started")).count();
        assert!(starts >= 2, "{log}");
        // hclog orders the fields of a line as it likes.
        let served = log
            .lines()
            .filter(|l| l.contains("served request:"))
            .filter(|l| {
                l.split_whitespace()
                    .any(|f| f == "tf_rpc=GetProviderSchema")
            })
            .count();
        assert_eq!(served, 1, "GetProviderSchema served more than once:\n{log}");
    });
}
