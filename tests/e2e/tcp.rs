//! End-to-end over go-plugin's TCP transport (the one Terraform uses on
//! Windows), selected here with CLUSTERPROXY_PLUGIN_TRANSPORT=tcp, with real
//! Terraform 1.11 and 1.0.3 and plugin TLS on: a profile, a data source and
//! an import through the full cycle, and Terraform's debug log showing that
//! the provider listened on 127.0.0.1 in the port range Terraform gave and
//! that every provider process stopped gracefully.

use crate::cycle::{run_cycle, Cycle};
use crate::harness::{for_each_terraform, Workdir};

/// A profile that the systemd fixture imports into, and a data source.
const MAIN: &str = r#"resource "clusterproxy_profile" "imported" {
  name       = "systemd"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example", ".corp.example"]
}

variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_no_proxy" "cluster" {
  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
}

output "no_proxy" {
  value = data.clusterproxy_no_proxy.cluster.no_proxy
}
"#;

fn import_id() -> String {
    format!(
        "systemd(service_cidrs=10.96.0.0/12;pod_cidrs=192.168.0.0/16):file:{}/tests/fixtures/import/systemd/messy.conf",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The provider's `plugin listening` lines in a Terraform debug log, as
/// (network, address).
fn plugin_addresses(log: &str) -> Vec<(String, String)> {
    log.lines()
        .filter(|line| line.contains("clusterproxy: plugin listening:"))
        .map(|line| {
            let field = |name: &str| {
                line.split_whitespace()
                    .find_map(|word| word.strip_prefix(name))
                    .unwrap_or_else(|| panic!("no {name} in {line}"))
                    .to_owned()
            };
            (field("network="), field("address="))
        })
        .collect()
}

#[test]
fn profile_data_source_and_import_over_tcp() {
    for_each_terraform(|tf| {
        let tf = tf.over_tcp();
        let work = Workdir::with_provider(&tf, MAIN);
        work.write_file("test.tfvars", "proxy_password = \"p@ss word\"\n");
        let outputs = run_cycle(
            &work,
            &Cycle::importing("clusterproxy_profile.imported", import_id()),
        );
        let no_proxy = outputs["no_proxy"].as_str().unwrap();
        assert!(no_proxy.contains("192.168.0.0/16"), "{no_proxy}");

        // One more plan (the cycle destroyed everything) with Terraform's
        // debug log: how it reached the provider, and how the provider stopped.
        let log = work.dir.path().join("terraform.log");
        let run = work
            .command(&["plan", "-var-file=test.tfvars"])
            .env("TF_LOG", "debug")
            .env("TF_LOG_PATH", &log)
            .output()
            .expect("spawn terraform");
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let log = std::fs::read_to_string(&log).expect("Terraform's log");
        let addresses = plugin_addresses(&log);
        assert!(!addresses.is_empty(), "no plugin address in the log");
        for (network, address) in &addresses {
            assert_eq!(network, "tcp", "on {}", tf.version_string());
            let address: std::net::SocketAddr = address.parse().unwrap();
            assert!(address.ip().is_loopback(), "{address}");
            // go-plugin's client defaults, passed as PLUGIN_MIN/MAX_PORT.
            assert!((10000..=25000).contains(&address.port()), "{address}");
        }
        let exits = log.matches("plugin process exited").count();
        assert_eq!(exits, addresses.len(), "every provider process exits");
        assert!(
            !log.contains("plugin failed to exit gracefully"),
            "a provider was killed on {}",
            tf.version_string()
        );
    });
}
