//! The `clusterproxy_profile` list resource (Terraform >= 1.14): a fleet
//! folder of every kind through the real `terraform query`, the configuration
//! `-generate-config-out` writes, its import plan, apply and empty re-plan;
//! the fleet-adoption example; secrets kept out of every output; bad
//! directories. On Terraform 1.15.5 (`for_each_terraform_with(ListResources)`);
//! how older versions refuse `terraform query` is checked by
//! `harness::newer_features_are_refused_clearly`.

use std::path::Path;

use serde_json::Value;

use crate::harness::{
    diagnostic_text, example, for_each_terraform_with, Capability, Run, Terraform, Workdir,
};

/// The passwords of the fleet folder's artifacts: the TKG config's
/// (`s3cr%40t`) and the Docker drop-in's (`s%%3Bcret%%20x`), decoded.
const FLEET_PASSWORDS: [&str; 2] = ["s3cr@t", "s;cret x"];

/// The password of the example's TKG cluster (`ex%40mple-pass`), decoded.
const EXAMPLE_PASSWORD: &str = "ex@mple-pass";

/// Copies the directory `from` into `to`, following symbolic links (the
/// fleet folder links the import corpus).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if std::fs::metadata(entry.path()).unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn repository(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A working directory with the provider, `query` as `fleet.tfquery.hcl`,
/// and the fleet folder as `clusters/`.
fn fleet_workdir(tf: &Terraform, query: &str) -> Workdir {
    workdir_of(tf, query, "tests/fixtures/fleet")
}

/// A working directory with the provider, `query` as `fleet.tfquery.hcl`,
/// and the folder `fixtures` as `clusters/`.
fn workdir_of(tf: &Terraform, query: &str, fixtures: &str) -> Workdir {
    let work = Workdir::from_files(
        tf,
        &[
            ("main.tf", &example("provider/provider.tf")),
            ("fleet.tfquery.hcl", query),
        ],
    );
    copy_tree(&repository(fixtures), &work.path().join("clusters"));
    work
}

const FLEET_QUERY: &str = "list \"clusterproxy_profile\" \"fleet\" {\n  provider = clusterproxy\n  include_resource = true\n  config {\n    directory = \"clusters\"\n  }\n}\n";

/// The JSON messages of `query -json` of type `kind`.
fn messages(run: &Run, kind: &str) -> Vec<Value> {
    run.stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["type"] == kind)
        .map(|m| m[kind].clone())
        .collect()
}

impl Workdir {
    /// Runs `args` once, asserting that no password of `secrets` is in its
    /// output or trace log.
    fn run_without(&self, args: &[&str], secrets: &[&str]) -> Run {
        self.assert_secrets_absent(args, &[], secrets)
    }
}

/// Every kind of the fleet folder is listed once per cluster, with the
/// identity and the profile an import gives; the refused artifact is a
/// warning naming it; nothing holds a password.
#[test]
fn a_fleet_folder_is_listed_one_profile_per_cluster() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let work = fleet_workdir(tf, FLEET_QUERY);
        let run = work.run_without(&["query", "-json"], &FLEET_PASSWORDS);
        assert_eq!(run.code, 0, "{}", run.combined());
        let found = messages(&run, "list_resource_found");
        let mut kinds: Vec<&str> = found
            .iter()
            .map(|f| f["identity"]["kind"].as_str().unwrap())
            .collect();
        kinds.sort_unstable();
        assert_eq!(
            kinds,
            [
                "aks",
                "capi",
                "capi",
                "giantswarm",
                "openshift",
                "rke2",
                "systemd",
                "tkg"
            ],
            "{}",
            run.stdout
        );
        for result in &found {
            let path = result["identity"]["path"].as_str().unwrap();
            assert!(path.starts_with("clusters/"), "{path}");
            assert!(
                result["display_name"].as_str().unwrap().contains(path),
                "{result}"
            );
            let object = &result["resource_object"];
            assert!(object["password"].is_null(), "{result}");
            assert!(object["fingerprint"].is_string(), "{result}");
        }
        // The Cluster beside its KubeadmControlPlane and the copy beside its
        // original are one cluster each.
        let names: Vec<&str> = found
            .iter()
            .map(|f| f["identity"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.iter().filter(|n| **n == "tkg-prod-1").count(), 1);
        assert_eq!(names.iter().filter(|n| **n == "capi-prod").count(), 1);
        let warnings: Vec<String> = run
            .diagnostics()
            .iter()
            .filter(|d| d["severity"] == "warning")
            .map(diagnostic_text)
            .filter(|text| !text.starts_with("Provider development overrides"))
            .collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("clusters/rke2/broken/rke2-server") && warnings[0].contains("${"),
            "{}",
            warnings[0]
        );
    });
}

/// Clusters named alike in different folders (EKS Anywhere's `test`, in
/// `staging/` and `production/`) are two results with their own display
/// names; a Cluster and its KubeadmControlPlane in one folder are one.
#[test]
fn clusters_that_share_a_name_in_two_folders_are_two_results() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let work = workdir_of(tf, FLEET_QUERY, "tests/fixtures/fleet-shared-names");
        let run = work.run(&["query", "-json"]);
        assert_eq!(run.code, 0, "{}", run.combined());
        let found = messages(&run, "list_resource_found");
        let mut paths: Vec<&str> = found
            .iter()
            .map(|f| f["identity"]["path"].as_str().unwrap())
            .collect();
        paths.sort_unstable();
        assert_eq!(
            paths,
            [
                "clusters/capi-prod/kcp.yaml",
                "clusters/eksa-prod.yaml",
                "clusters/production/test-md-0-template.yaml",
                "clusters/staging/test-md-0-template.yaml"
            ],
            "{}",
            run.stdout
        );
        let tests: Vec<&str> = found
            .iter()
            .filter(|f| f["identity"]["name"] == "test")
            .map(|f| f["display_name"].as_str().unwrap())
            .collect();
        assert_eq!(tests.len(), 2, "{}", run.stdout);
        assert_ne!(tests[0], tests[1]);
    });
}

/// Files that set a proxy in a format no importer reads (a Dockerfile, a
/// workflow, a Jenkinsfile, a Maven settings.xml, an APT configuration) are
/// a warning each through the real `terraform query`, naming the file and
/// no value; the Maven file's password is in no output or log.
#[test]
fn a_proxy_setting_no_importer_reads_warns() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let work = workdir_of(tf, FLEET_QUERY, "tests/fixtures/unimported");
        let run = work.run_without(&["query", "-json"], &["somepassword"]);
        assert_eq!(run.code, 0, "{}", run.combined());
        let warned: Vec<String> = run
            .diagnostics()
            .iter()
            .map(diagnostic_text)
            .filter(|text| text.contains("Proxy setting not imported"))
            .collect();
        // One warning per file of the folder but its README, each naming
        // the file.
        let folder = repository("tests/fixtures/unimported");
        let files = std::fs::read_dir(&folder)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().is_dir())
            .map(|e| std::fs::read_dir(e.unwrap().path()).unwrap().count())
            .sum::<usize>();
        assert_eq!(warned.len(), files, "{warned:?}");
        for warning in &warned {
            let (_, named) = warning.split_once("clusters/").unwrap();
            let (file, _) = named.split_once(": sets ").unwrap();
            assert!(folder.join(file).is_file(), "{warning}");
        }
        assert!(warned.iter().all(|w| !w.contains("://")), "{warned:?}");
    });
}

/// A `limit` that leaves results out says so, with the last result read
/// (Terraform reads no further); a limit that leaves nothing out is quiet.
#[test]
fn a_limit_that_leaves_results_out_warns() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        for (limit, found, warned) in [(3, 3, true), (8, 8, false)] {
            let query = FLEET_QUERY.replace(
                "  include_resource = true\n",
                &format!("  include_resource = true\n  limit = {limit}\n"),
            );
            let work = fleet_workdir(tf, &query);
            let run = work.run(&["query", "-json"]);
            assert_eq!(run.code, 0, "{}", run.combined());
            assert_eq!(
                messages(&run, "list_resource_found").len(),
                found,
                "{}",
                run.stdout
            );
            let more: Vec<String> = run
                .diagnostics()
                .iter()
                .map(diagnostic_text)
                .filter(|text| text.contains("More results than the limit"))
                .collect();
            assert_eq!(more.len(), usize::from(warned), "{limit}: {}", run.stdout);
            if warned {
                assert!(
                    more[0].contains(&format!("{limit} results were listed")),
                    "{}",
                    more[0]
                );
            }
        }
    });
}

/// `-generate-config-out` writes a resource and an `import { identity }`
/// per cluster; the plan imports them all and changes nothing, apply
/// imports them, and the re-plan is empty. No password in the generated
/// file, the saved plan or the logs.
#[test]
fn generated_configuration_imports_the_fleet_and_replans_empty() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let work = fleet_workdir(tf, FLEET_QUERY);
        let run = work.run_without(
            &["query", "-generate-config-out=generated.tf"],
            &FLEET_PASSWORDS,
        );
        assert_eq!(run.code, 0, "{}", run.combined());
        let generated = std::fs::read_to_string(work.path().join("generated.tf")).unwrap();
        assert_eq!(generated.matches("import {").count(), 8, "{generated}");
        assert_eq!(generated.matches("identity = {").count(), 8, "{generated}");
        for password in FLEET_PASSWORDS {
            assert!(!generated.contains(password), "{generated}");
        }
        // Unchanged, every profile imports and none changes; those imported
        // with a password keep it standing and warn that the renderers need
        // it.
        let plan = work.run(&["plan"]);
        assert_eq!(plan.code, 0, "{}", plan.combined());
        assert!(
            plan.stdout
                .contains("Plan: 8 to import, 0 to add, 0 to change, 0 to destroy."),
            "{}",
            plan.stdout
        );
        assert!(
            !plan.stdout.contains("Proxy credentials dropped")
                && plan.stdout.contains("Proxy user name without a password"),
            "{}",
            plan.stdout
        );
        let (edited, variables) = password_edit(
            &generated,
            &[
                ("tkg-prod-1", "tkg_password"),
                ("nodes-edge-01-http-proxy", "edge_password"),
            ],
        );
        work.write_file("generated.tf", &edited);
        work.write_file("variables.tf", &variables);
        let env = [
            ("TF_VAR_tkg_password".to_owned(), FLEET_PASSWORDS[0]),
            ("TF_VAR_edge_password".to_owned(), FLEET_PASSWORDS[1]),
        ];
        let plan = work.assert_secrets_absent(&["plan", "-out=tfplan"], &env, &FLEET_PASSWORDS);
        assert_eq!(plan.code, 0, "{}", plan.combined());
        assert!(
            !plan.stdout.contains("Proxy credentials dropped"),
            "{}",
            plan.stdout
        );
        let shown = work.run_without(&["show", "-json", "tfplan"], &FLEET_PASSWORDS);
        assert_eq!(shown.code, 0, "{}", shown.combined());
        let saved: Value = serde_json::from_str(&shown.stdout).unwrap();
        assert_imports_only(&saved, 8, &["tkg-prod-1", "nodes-edge-01-http-proxy"]);
        let apply = work.assert_secrets_absent(&["apply", "-auto-approve"], &env, &FLEET_PASSWORDS);
        assert_eq!(apply.code, 0, "{}", apply.combined());
        let replan =
            work.assert_secrets_absent(&["plan", "-detailed-exitcode"], &env, &FLEET_PASSWORDS);
        assert_eq!(replan.code, 0, "{}", replan.combined());
    });
}

/// examples/list-resources/clusterproxy_profile (its `kinds`, `facts` and
/// `exclude` match nothing of the fleet folder) lists what the plain query
/// lists, and nothing else.
#[test]
fn the_list_resource_example_lists_the_fleet() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let paths = |query: &str| -> Vec<String> {
            let work = fleet_workdir(tf, query);
            let run = work.run_without(&["query", "-json"], &FLEET_PASSWORDS);
            assert_eq!(run.code, 0, "{}", run.combined());
            let mut paths: Vec<String> = messages(&run, "list_resource_found")
                .iter()
                .map(|f| f["identity"]["path"].as_str().unwrap().to_owned())
                .collect();
            paths.sort();
            paths
        };
        let listed = paths(&example(
            "list-resources/clusterproxy_profile/list-resource.tfquery.hcl",
        ));
        assert_eq!(listed.len(), 8, "{listed:?}");
        assert_eq!(listed, paths(FLEET_QUERY));
    });
}

/// The fleet-adoption example: query, generate, the guide's one edit for
/// the TKG cluster's password (`password_wo` from an ephemeral variable),
/// plan, apply and an empty re-plan.
#[test]
fn the_fleet_adoption_example_is_adopted_as_the_guide_says() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let work = Workdir::from_files(
            tf,
            &[
                ("main.tf", &example("fleet-adoption/main.tf")),
                (
                    "fleet.tfquery.hcl",
                    &example("fleet-adoption/fleet.tfquery.hcl"),
                ),
            ],
        );
        copy_tree(
            &repository("examples/fleet-adoption/clusters"),
            &work.path().join("clusters"),
        );
        let query = work.run(&["query"]);
        assert_eq!(query.code, 0, "{}", query.combined());
        for name in [
            "tkg-dev",
            "nodes-edge-01-http-proxy",
            "rke2-rke2-prod-rke2-server",
        ] {
            assert!(query.stdout.contains(name), "{name}: {}", query.stdout);
        }
        let run = work.run_without(
            &["query", "-generate-config-out=fleet.tf"],
            &[EXAMPLE_PASSWORD],
        );
        assert_eq!(run.code, 0, "{}", run.combined());
        let generated = std::fs::read_to_string(work.path().join("fleet.tf")).unwrap();
        let (edited, variables) = password_edit(&generated, &[("tkg-dev", "tkg_dev_password")]);
        work.write_file("fleet.tf", &edited);
        work.write_file("variables.tf", &variables);
        let env = [("TF_VAR_tkg_dev_password".to_owned(), EXAMPLE_PASSWORD)];
        let plan = work.assert_secrets_absent(&["plan", "-out=tfplan"], &env, &[EXAMPLE_PASSWORD]);
        assert_eq!(plan.code, 0, "{}", plan.combined());
        assert!(
            plan.stdout
                .contains("Plan: 3 to import, 0 to add, 1 to change, 0 to destroy."),
            "{}",
            plan.stdout
        );
        let shown = work.run(&["show", "-json", "tfplan"]);
        let saved: Value = serde_json::from_str(&shown.stdout).unwrap();
        assert_imports_only(&saved, 3, &["tkg-dev"]);
        let apply =
            work.assert_secrets_absent(&["apply", "-auto-approve"], &env, &[EXAMPLE_PASSWORD]);
        assert_eq!(apply.code, 0, "{}", apply.combined());
        let replan =
            work.assert_secrets_absent(&["plan", "-detailed-exitcode"], &env, &[EXAMPLE_PASSWORD]);
        assert_eq!(replan.code, 0, "{}", replan.combined());
    });
}

/// The guide's edit: in the resource of each profile of `passwords`
/// (name, variable), the generated `password = null # sensitive` (and the
/// null write-only lines) become `password_wo` from the ephemeral variable,
/// with its version; returns the edited file and the variable declarations.
fn password_edit(generated: &str, passwords: &[(&str, &str)]) -> (String, String) {
    let mut out = String::new();
    let mut edited = 0;
    for block in generated.split_inclusive("\n}\n") {
        let profile = passwords.iter().find(|(name, _)| {
            block.contains("resource \"clusterproxy_profile\"")
                && block.lines().any(|l| {
                    l.trim_start().starts_with("name ") && l.ends_with(&format!("= \"{name}\""))
                })
        });
        let Some((_, variable)) = profile else {
            out.push_str(block);
            continue;
        };
        edited += 1;
        for line in block.split_inclusive('\n') {
            match line.trim_start() {
                l if l.starts_with("password ") => {
                    out.push_str(&format!("  password_wo         = var.{variable}\n"));
                    out.push_str("  password_wo_version = 1\n");
                }
                l if l.starts_with("password_wo") => {}
                _ => out.push_str(line),
            }
        }
    }
    assert_eq!(edited, passwords.len(), "{generated}");
    let variables = passwords
        .iter()
        .map(|(_, variable)| {
            format!("variable \"{variable}\" {{\n  type      = string\n  ephemeral = true\n}}\n")
        })
        .collect();
    (out, variables)
}

/// After the password edit, the plan imports every profile; those with a
/// password record `password_wo_version` and nothing else (the password is
/// the imported one: `revision` and `settings` stay).
fn assert_imports_only(plan: &Value, count: usize, with_password: &[&str]) {
    let changes = plan["resource_changes"].as_array().unwrap();
    assert_eq!(changes.len(), count, "{plan:#}");
    for change in changes {
        let change = &change["change"];
        assert!(change["importing"].is_object(), "{change:#}");
        let name = change["after"]["name"].as_str().unwrap();
        let mut before = change["before"].clone();
        let mut after = change["after"].clone();
        if with_password.contains(&name) {
            assert_eq!(change["actions"], serde_json::json!(["update"]), "{name}");
            assert_eq!(after["password_wo_version"], 1, "{name}");
            before["password_wo_version"] = Value::Null;
            after["password_wo_version"] = Value::Null;
        } else {
            assert_eq!(change["actions"], serde_json::json!(["no-op"]), "{name}");
        }
        assert_eq!(before, after, "{name}: only password_wo_version may change");
    }
}

/// A missing directory, a file instead of a directory, a symbolic link loop
/// and a directory of more files than a query lists: each a clear
/// diagnostic on `directory`, in bounded time.
#[test]
fn bad_directories_get_a_clear_diagnostic() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let query = |directory: &str| {
            format!("list \"clusterproxy_profile\" \"fleet\" {{\n  provider = clusterproxy\n  config {{\n    directory = \"{directory}\"\n  }}\n}}\n")
        };
        let work = Workdir::from_files(tf, &[("main.tf", &example("provider/provider.tf"))]);
        work.write_file("a-file", "not a directory\n");
        std::fs::create_dir_all(work.path().join("loop/a")).unwrap();
        std::os::unix::fs::symlink("..", work.path().join("loop/a/up")).unwrap();
        let many = work.path().join("many");
        std::fs::create_dir(&many).unwrap();
        for i in 0..100_000 {
            std::fs::File::create(many.join(format!("f{i:06}"))).unwrap();
        }
        for (directory, code, needle) in [
            ("nope", 1, "\"nope\" does not exist"),
            ("a-file", 1, "is not a directory"),
            ("loop", 0, "a loop"),
            ("many", 1, "more than 50000 files and directories"),
        ] {
            work.write_file("fleet.tfquery.hcl", &query(directory));
            let started = std::time::Instant::now();
            let run = work.run(&["query", "-json"]);
            let texts: Vec<(String, Value)> = run
                .diagnostics()
                .iter()
                .map(|d| (diagnostic_text(d), d.clone()))
                .collect();
            assert_eq!(run.code, code, "{directory}: {}", run.combined());
            let (_, diagnostic) = texts
                .iter()
                .find(|(text, _)| text.contains(needle))
                .unwrap_or_else(|| panic!("{directory}: no {needle:?} in {}", run.combined()));
            assert!(
                diagnostic["snippet"]["code"]
                    .as_str()
                    .is_some_and(|code| code.contains(&format!("directory = \"{directory}\""))),
                "{directory}: not on `directory`: {diagnostic}"
            );
            assert!(started.elapsed() < std::time::Duration::from_secs(120));
        }
    });
}

/// The list configuration's caps through the real `terraform query`: 100
/// excludes of 256 characters are taken and the fleet is listed; 1,001 are
/// an error on `exclude` naming the cap.
#[test]
fn capped_arguments_get_a_diagnostic_on_the_argument() {
    for_each_terraform_with(Capability::ListResources, |tf| {
        let query = |globs: &[String]| {
            let list: Vec<String> = globs.iter().map(|g| format!("{g:?}")).collect();
            format!("list \"clusterproxy_profile\" \"fleet\" {{\n  provider = clusterproxy\n  config {{\n    directory = \"clusters\"\n    exclude = [{}]\n  }}\n}}\n", list.join(", "))
        };
        let long: Vec<String> = (0..100)
            .map(|i| format!("{i:08}/{}", "*".repeat(247)))
            .collect();
        let work = fleet_workdir(tf, &query(&long));
        let run = work.run(&["query", "-json"]);
        assert_eq!(run.code, 0, "{}", run.combined());
        assert!(
            !messages(&run, "list_resource_found").is_empty(),
            "{}",
            run.combined()
        );
        let many: Vec<String> = (0..1_001).map(|i| format!("x{i}/**")).collect();
        work.write_file("fleet.tfquery.hcl", &query(&many));
        let run = work.run(&["query", "-json"]);
        assert_eq!(run.code, 1, "{}", run.combined());
        let capped = run
            .diagnostics()
            .into_iter()
            .find(|d| diagnostic_text(d).contains("more than the 1000 globs"))
            .unwrap_or_else(|| panic!("no cap named in {}", run.combined()));
        assert!(
            capped["snippet"]["code"]
                .as_str()
                .is_some_and(|code| code.contains("exclude = [")),
            "not on `exclude`: {capped}"
        );
    });
}
