//! examples/fleet-lifecycle: a fleet that keeps changing, adopted cluster by
//! cluster through `clusterproxy_fleet`, `for_each` and `import { for_each
//! }`, by identity on Terraform 1.15.5 and by ID (examples/fleet-lifecycle/by-id)
//! on 1.11; 1.0.3 refuses it clearly. Over a generated fleet folder: the
//! first plan is N imports and nothing else, apply, an empty re-plan, one
//! more artifact plans exactly one import, one removed exactly its destroy;
//! no password is given anywhere, and none shows. The drift check
//! (examples/drift-check/drift-check.sh) run in the example's folder names
//! the cluster whose artifact moved.

use serde_json::Value;

use crate::harness::{example, Workdir};
use crate::terraform::{
    run_on, terraform_1_0, terraform_1_11, terraform_1_15, Capability, Terraform,
};

/// The proxy password of the fleet's one cluster with credentials, decoded,
/// and as its artifact writes it.
const PASSWORD: [&str; 2] = ["fl33t#pw", "fl33t%23pw"];

/// A query of the fleet's profiles.
const QUERY: &str = "list \"clusterproxy_profile\" \"fleet\" {\n  provider = clusterproxy\n  config {\n    directory = \"clusters\"\n  }\n}\n";

/// The number of clusters of the generated fleet.
const CLUSTERS: usize = 5;

/// A TKG cluster configuration for cluster `name` behind `proxy`, with the
/// credentials of [`PASSWORD`] when `credentials`.
fn tkg(name: &str, proxy: &str, credentials: bool) -> String {
    let proxy = match credentials {
        true => proxy.replacen("http://", &format!("http://svc-fleet:{}@", PASSWORD[1]), 1),
        false => proxy.to_owned(),
    };
    format!(
        "CLUSTER_NAME: {name}\nTKG_HTTP_PROXY_ENABLED: true\nTKG_HTTP_PROXY: \"{proxy}\"\nTKG_HTTPS_PROXY: \"{proxy}\"\nTKG_NO_PROXY: \"registry.corp.example,.corp.example\"\n"
    )
}

/// The folder and the key of cluster `i`: three environments, so that
/// names repeat nowhere but folders do.
fn cluster(i: usize) -> (String, String) {
    let folder = format!("env{}", i % 3);
    let name = format!("c{i}");
    (
        format!("clusters/{folder}/{name}.yaml"),
        format!("{folder}/{name}"),
    )
}

/// Writes cluster `i`'s artifact behind `proxy` (cluster 0 has credentials).
fn write_cluster(work: &Workdir, i: usize, proxy: &str) {
    let (path, key) = cluster(i);
    let name = key.rsplit('/').next().unwrap();
    let path = work.path().join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, tkg(name, proxy, i == 0)).unwrap();
}

/// The example's configuration for `tf`: by identity where it has
/// identities, else by ID.
fn workdir(tf: &Terraform) -> Workdir {
    let import = match tf.supports(Capability::Identity) {
        true => "fleet-lifecycle/import.tf",
        false => "fleet-lifecycle/by-id/import.tf",
    };
    Workdir::from_files(
        tf,
        &[
            ("fleet.tf", &example("fleet-lifecycle/fleet.tf")),
            ("import.tf", &example(import)),
        ],
    )
}

/// The `change_summary` of a `plan -json`: (import, add, change, remove).
fn summary(stdout: &str) -> (u64, u64, u64, u64) {
    let message = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|m| m["type"] == "change_summary")
        .unwrap_or_else(|| panic!("no change summary in {stdout}"));
    let count = |name: &str| message["changes"][name].as_u64().unwrap_or(0);
    (
        count("import"),
        count("add"),
        count("change"),
        count("remove"),
    )
}

/// The addresses `plan -json` plans `action` for.
fn planned(stdout: &str, action: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["type"] == "planned_change" && m["change"]["action"] == action)
        .map(|m| m["change"]["resource"]["addr"].as_str().unwrap().to_owned())
        .collect()
}

impl Workdir {
    /// `plan -json` without any password, asserting that none shows.
    fn fleet_plan(&self) -> String {
        let run = self.assert_secrets_absent(&["plan", "-json", "-out=tfplan"], &[], &PASSWORD);
        assert_eq!(run.code, 0, "{}", run.combined());
        run.stdout
    }
}

/// The fleet's life on 1.15.5 (identity) and 1.11 (IDs), without any
/// password: N imports and nothing else, an empty re-plan, one more
/// artifact one import, one removed its destroy; the drift check is quiet,
/// then names the one cluster whose artifact moved, and not the others.
#[test]
fn a_changing_fleet_is_adopted_cluster_by_cluster() {
    run_on(&[terraform_1_15(), terraform_1_11()], |tf| {
        let version = tf.version_string();
        let work = workdir(tf);
        for i in 0..CLUSTERS {
            write_cluster(&work, i, "http://proxy.corp.example:3128");
        }
        let first = work.fleet_plan();
        assert_eq!(
            summary(&first),
            (CLUSTERS as u64, 0, 0, 0),
            "first plan on {version}: {first}"
        );
        work.assert_secrets_absent(&["apply", "-auto-approve", "tfplan"], &[], &PASSWORD)
            .expect_ok(&["apply"], &version);
        let again = work.fleet_plan();
        assert_eq!(
            summary(&again),
            (0, 0, 0, 0),
            "re-plan on {version}: {again}"
        );
        work.assert_drift_check_quiet(&[]);
        if tf.supports(Capability::ListResources) {
            // `terraform query` runs without any password too.
            work.write_file("fleet.tfquery.hcl", QUERY);
            let query = work.assert_secrets_absent(&["query"], &[], &PASSWORD);
            assert_eq!(query.code, 0, "{}", query.combined());
        }
        // The password given decoded records its version and changes
        // nothing else; given as the artifact writes it, the plan says to
        // give it decoded, on `password_wo`.
        let (_, first_key) = cluster(0);
        for (given, warned) in [(PASSWORD[0], 0), (PASSWORD[1], 1)] {
            let passwords = format!("{{\"{first_key}\" = \"{given}\"}}");
            let versions = format!("{{\"{first_key}\" = 1}}");
            let env = [
                ("TF_VAR_passwords".to_owned(), passwords.as_str()),
                ("TF_VAR_password_versions".to_owned(), versions.as_str()),
            ];
            let run = work.assert_secrets_absent(&["plan", "-json"], &env, &PASSWORD);
            assert_eq!(run.code, 0, "{}", run.combined());
            assert_eq!(summary(&run.stdout), (0, 0, 1, 0), "{}", run.stdout);
            let encoded = run.warnings(|s| s == "Proxy password given percent-encoded");
            assert_eq!(encoded.len(), warned, "{}", run.stdout);
        }

        write_cluster(&work, CLUSTERS, "http://proxy.corp.example:3128");
        let added = work.fleet_plan();
        assert_eq!(
            summary(&added),
            (1, 0, 0, 0),
            "one more on {version}: {added}"
        );
        work.run_ok(&["apply", "-auto-approve", "tfplan"]);

        let (path, key) = cluster(1);
        std::fs::remove_file(work.path().join(path)).unwrap();
        let removed = work.fleet_plan();
        assert_eq!(
            summary(&removed),
            (0, 0, 0, 1),
            "one removed on {version}: {removed}"
        );
        assert_eq!(
            planned(&removed, "delete"),
            [format!("clusterproxy_profile.fleet[\"{key}\"]")],
            "{removed}"
        );
        work.run_ok(&["apply", "-auto-approve", "tfplan"]);
        work.assert_drift_check_quiet(&[]);

        // Cluster 2's proxy moves in its artifact: the drift check names it
        // alone, and says the password was not compared.
        let (_, moved) = cluster(2);
        write_cluster(&work, 2, "http://proxy-2.corp.example:3128");
        let drift = work.drift_check(&[]);
        assert_eq!(drift.code, 2, "{drift:?}");
        let lines: Vec<&str> = drift.stdout.lines().collect();
        assert_eq!(lines.len(), 1, "{drift:?}");
        assert!(
            lines[0].contains(&format!("cluster {moved} "))
                && lines[0].contains("password not compared"),
            "{drift:?}"
        );
        // Cluster 3's NO_PROXY set moves too: both are named, each once.
        let (path, also_moved) = cluster(3);
        let path = work.path().join(path);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace(",.corp.example", ",.corp2.example")).unwrap();
        let drift = work.drift_check(&[]);
        assert_eq!(drift.code, 2, "{drift:?}");
        let mut named: Vec<&str> = drift
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("drifted: cluster "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        named.sort_unstable();
        let mut expected = [moved.as_str(), also_moved.as_str()];
        expected.sort_unstable();
        assert_eq!(named, expected, "{drift:?}");
        // The plan then updates those two profiles.
        let update = work.fleet_plan();
        assert_eq!(summary(&update), (0, 0, 2, 0), "{update}");
    });
}

/// Terraform 1.0.3 refuses the example: it reads neither `required_version`
/// before the blocks it does not know nor those blocks, so it names each
/// newer part, the `import` block, the ephemeral passwords and the drift
/// `check`, and plans nothing.
#[test]
fn terraform_1_0_refuses_the_fleet_lifecycle_clearly() {
    let tf = terraform_1_0();
    let work = workdir(&tf);
    let run = work.run(&["plan"]);
    assert_eq!(run.code, 1, "{}", run.combined());
    let output = run.combined();
    for needle in [
        "Blocks of type \"import\" are not expected here.",
        "Blocks of type \"check\" are not expected here.",
        "An argument named \"ephemeral\" is not expected here.",
    ] {
        assert!(output.contains(needle), "{needle}: {output}");
    }
}
