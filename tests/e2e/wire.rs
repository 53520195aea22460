//! Proven on the wire: what the renderers write gets a real client through a
//! real proxy. Each test starts its own squid (tests/support/squid.rs: basic
//! auth, access log) and a loopback origin, renders with one real Terraform
//! 1.11 apply whose proxy URL points at that squid, reads each rendering back
//! the way its consumer does, and sends requests with the client that
//! consumer runs:
//! - systemd drop-ins (`clusterproxy_systemd_dropin`, the drop-ins in
//!   `clusterproxy_cloud_init`'s user data, `default_environment`): the
//!   environment systemd's unit parser gives the unit (`systemd-analyze
//!   verify`'s unit dump, tests/support/systemd.rs); containerd and kubelet
//!   are Go, so Go, and curl for whatever else a unit runs;
//! - `preKubeadmCommands` of `clusterproxy_capi_kubeadm`, inline (`export`
//!   lines) and with `cluster_name` (the Secret's `proxy.env` sourced): run by
//!   `sh` (with `systemctl` a no-op function), then curl in that shell, as
//!   kubeadm's commands run;
//! - Ignition's drop-in files (their `data:` URLs read by Python's urllib),
//!   as the drop-ins above; Talos's `machine.env` (before 1.13) and
//!   `EnvironmentConfig` (from 1.13) variables, which Talos sets on its
//!   services: Go;
//! - OpenShift's `Proxy`, EKS Anywhere's `proxyConfiguration`, TKG's
//!   variables and kubespray's `group_vars`: the proxy URLs and the NO_PROXY
//!   each platform computes from them (`status_no_proxy`, `node_no_proxy`,
//!   TKG_NO_PROXY plus `appended_by_tkg`, `effective_no_proxy`) as its Go
//!   components get them; AKS's
//!   `httpProxyConfig` with its `effectiveNoProxy`, which AKS gives its
//!   nodes (Go) and pods (every pod client), through a squid that asks for
//!   no credentials (AKS takes none);
//! - RKE2 and k3s environment files: systemd's environment file parser, then
//!   Go (containerd; with `scope = "containerd"` RKE2 and k3s hand the
//!   `CONTAINERD_*` variables to containerd without the prefix);
//! - pod env (`clusterproxy_pod_env`), Kyverno's patched pod (the policy's
//!   `patchStrategicMerge` env on a container without env of its own) and
//!   Helm `extraEnv`: `valueFrom.secretKeyRef` resolved from the rendered
//!   Secret manifest; curl, Go, Python requests and Node (undici's
//!   `EnvHttpProxyAgent`).
//!
//! The credentials are hostile: the user name has a space, `@` and a
//! non-ASCII letter, the password a space, `/`, `#`, `%`, `:`, `@`,
//! non-ASCII letters and `%41` (which must not be decoded twice). Requests for [`ORIGIN_NAME`]
//! must reach the origin through squid, logged with the right user: an
//! `http://` one (`HTTP_PROXY`) and an `https://` one (`HTTPS_PROXY`, a
//! `CONNECT` tunnel; the origin's CA is in the variables curl, Go, requests
//! and Node read for a destination, standing for the image's or node's
//! trust store, where the rendering sets none). Requests for `127.0.0.1` and
//! `localhost` (in every rendered NO_PROXY) must reach the origin directly
//! and never show in squid's log. Go never proxies loopback destinations
//! whatever NO_PROXY says (`golang.org/x/net/http/httpproxy`), which these
//! tests observe as direct too. undici tunnels every proxied request with
//! `CONNECT`. A wrong password gets 407 (undici: a failed tunnel).
//!
//! What a client cannot do is asserted as it behaves, not skipped:
//! requests encodes basic credentials as Latin-1 and fails on the non-ASCII
//! password (`UnicodeEncodeError`, nothing sent), so requests also runs with
//! ASCII hostile credentials in the other tests; curl reads no variable for
//! an HTTPS proxy's CA (only `--proxy-cacert`), so in a pod it refuses the
//! proxy's certificate (exit 60) unless the image trusts the CA.
//!
//! Clients run in a private mount namespace whose resolv.conf names only
//! 127.0.0.1 (see [`run_client`]), and squid asks no DNS server but one on
//! 127.0.0.1: a client that wrongly goes direct for [`ORIGIN_NAME`] fails
//! without a packet leaving loopback.
//!
//! Also: a proxy URL without scheme (refused, and why), a proxy on `[::1]`,
//! and an HTTPS proxy (squid's `https_port`; Debian builds squid with
//! GnuTLS, which serves `tls-cert=`/`tls-key=`) with `trusted_ca`: on a node
//! the `ca_files` bundle is the OS trust bundle (bound over it in a private
//! mount namespace, so the tests run as root), in a pod the CA variables'
//! file holds the rendered ConfigMap's bundle.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde::Deserialize as _;
use serde_json::{json, Value};

use clusterproxy::domain::render::pod_env::{CA_KEY, CA_MOUNT_PATH};

use crate::harness::{terraform_1_11, Workdir};
use crate::oracle::{build_go, scratch};
use crate::squid::{Access, Origin, Squid, ORIGIN_BODY, ORIGIN_NAME};
use crate::tools;

#[path = "../support/systemd.rs"]
mod systemd;

/// The proxy user: space, `@`, non-ASCII.
const USER: &str = "svc wire@ü";
/// Space, `/`, `#`, `%`, `:`, `@`, non-ASCII; and `%41` that must not be decoded twice.
const PASSWORD: &str = "p w/#%41:@ü€ x";

/// One environment: variable name to value.
type Env = BTreeMap<String, String>;

/// A client a consumer runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Client {
    Curl,
    Go,
    Requests,
    Undici,
}

const POD_CLIENTS: [Client; 4] = [Client::Curl, Client::Go, Client::Requests, Client::Undici];

/// What a client got for one URL: the status and body, or an error.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Answer(u16, String),
    Failed(String),
}

const GO_FETCH: &str = r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	client := &http.Client{Timeout: 20 * time.Second}
	for _, url := range os.Args[1:] {
		response, err := client.Get(url)
		if err != nil {
			fmt.Println("error")
			continue
		}
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		fmt.Printf("%d %s\n", response.StatusCode, strings.ReplaceAll(string(body), "\n", " "))
	}
}
"#;

const PYTHON_FETCH: &str = r#"import sys
import requests

for url in sys.argv[1:]:
    try:
        response = requests.get(url, timeout=20)
        print(response.status_code, response.text.replace("\n", " "))
    except Exception as error:
        print("error", type(error).__name__)
"#;

const NODE_FETCH: &str = r#"const { EnvHttpProxyAgent, fetch } = require('undici');
const agent = new EnvHttpProxyAgent();
(async () => {
  for (const url of process.argv.slice(2)) {
    try {
      const response = await fetch(url, { dispatcher: agent, signal: AbortSignal.timeout(20000) });
      console.log(`${response.status} ${(await response.text()).replace(/\n/g, ' ')}`);
    } catch (error) {
      console.log(`error ${(error.cause && error.cause.code) || error.name}`);
    }
  }
  await agent.close();
})();
"#;

/// The Go client, built once per test run.
fn go_fetch() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| build_go(Path::new(&script("fetch.go", GO_FETCH)), "go-fetch"))
}

/// The OS trust bundle of Debian (what `update-ca-certificates` writes), which
/// curl and Go read.
const OS_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// `client` fetching each of `urls` with exactly `env` (and PATH); with
/// `trust_store`, in a private mount namespace where that file is the OS
/// trust bundle (a node whose trust store got the rendered CA). A client
/// that exits without answering fails every URL with the error code it
/// printed (Node's `code: '...'`).
fn fetch(client: Client, env: &Env, urls: &[String], trust_store: Option<&Path>) -> Vec<Outcome> {
    let (program, mut args, tool_env): (PathBuf, Vec<String>, Option<(&str, PathBuf)>) =
        match client {
            Client::Curl => {
                return urls
                    .iter()
                    .map(|url| {
                        let args = ["-sS", "--max-time", "20", "-w", " %{http_code}", url];
                        let args = args.map(str::to_owned).to_vec();
                        let output = run_client(&tools::CURL.path(), &args, None, env, trust_store);
                        curl_outcome(&output)
                    })
                    .collect();
            }
            Client::Go => (go_fetch().to_owned(), Vec::new(), None),
            Client::Requests => (
                tools::PYTHON3.path(),
                vec![script("fetch.py", PYTHON_FETCH)],
                Some(("PYTHONPATH", tools::PYTHON_PACKAGES.path())),
            ),
            Client::Undici => (
                tools::NODE.path(),
                vec![script("fetch.js", NODE_FETCH)],
                Some(("NODE_PATH", tools::NODE_PACKAGES.path())),
            ),
        };
    args.extend(urls.iter().cloned());
    let output = run_client(&program, &args, tool_env, env, trust_store);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let outcomes: Vec<Outcome> = stdout.lines().map(outcome).collect();
    if outcomes.is_empty() && !output.status.success() {
        let code = stderr
            .split("code: '")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap_or("crashed");
        return vec![Outcome::Failed(code.to_owned()); urls.len()];
    }
    assert_eq!(
        outcomes.len(),
        urls.len(),
        "{client:?} failed ({}): {stderr}",
        output.status,
    );
    outcomes
}

/// Writes a client script into the scratch directory; returns its path.
fn script(name: &str, text: &str) -> String {
    let path = scratch().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `program args` with exactly `env`, PATH and `tool_env` (see
/// [`fetch`]) in a private mount namespace (so the tests run as root) whose
/// /etc/resolv.conf names only 127.0.0.1, where no DNS server listens: a
/// client that wrongly resolves [`ORIGIN_NAME`] itself fails at once and
/// sends nothing off loopback. With `trust_store`, that file is also the OS
/// trust bundle there.
fn run_client(
    program: &Path,
    args: &[String],
    tool_env: Option<(&str, PathBuf)>,
    env: &Env,
    trust_store: Option<&Path>,
) -> std::process::Output {
    let resolv = scratch().join("resolv.conf");
    std::fs::write(
        &resolv,
        "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n",
    )
    .unwrap();
    let script = format!(
        "mount --bind \"$1\" /etc/resolv.conf && {{ [ -z \"$2\" ] || mount --bind \"$2\" {OS_BUNDLE}; }} && shift 2 && exec \"$@\""
    );
    tools::UNSHARE
        .command()
        .args(["-m", "sh", "-c", &script, "sh"])
        .arg(&resolv)
        .arg(trust_store.unwrap_or(Path::new("")))
        .arg(program)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(tool_env)
        .envs(env)
        .output()
        .unwrap_or_else(|e| panic!("cannot run unshare: {e}"))
}

/// curl's output (the body, then ` CODE`) as an outcome; a failure is `exit N`.
fn curl_outcome(output: &std::process::Output) -> Outcome {
    let stdout = String::from_utf8_lossy(&output.stdout);
    match (output.status.code(), stdout.rsplit_once(' ')) {
        (Some(0), Some((body, code))) => Outcome::Answer(
            code.parse().unwrap_or_else(|_| panic!("{stdout:?}")),
            body.to_owned(),
        ),
        (code, _) => Outcome::Failed(format!("exit {}", code.unwrap_or(-1))),
    }
}

fn outcome(line: &str) -> Outcome {
    match line.split_once(' ').unwrap_or((line, "")) {
        ("error", why) => Outcome::Failed(why.to_owned()),
        (code, body) => Outcome::Answer(
            code.parse().unwrap_or_else(|_| panic!("{line:?}")),
            body.to_owned(),
        ),
    }
}

/// `host:port` of `url`, what squid logs for a `CONNECT` to it.
fn authority(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    rest.split_once('/')
        .map_or(rest, |(authority, _)| authority)
        .to_owned()
}

/// The variables with which curl, Go, requests and Node find the
/// destination's CA (not the proxy's, for curl).
const DESTINATION_CA_VARIABLES: [&str; 4] = [
    "CURL_CA_BUNDLE",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
];

/// A test's proxy and origin, and the checks every client run gets.
struct Wire {
    squid: Squid,
    origin: Origin,
    user: &'static str,
    password: &'static str,
}

impl Wire {
    /// `squid` (made with `start` for `user` and `password`, or without
    /// authentication for an empty `user`) and an origin.
    fn start(
        start: fn(&[(&str, &str)]) -> Squid,
        user: &'static str,
        password: &'static str,
    ) -> Wire {
        let users = if user.is_empty() {
            vec![]
        } else {
            vec![(user, password)]
        };
        Wire {
            squid: start(&users),
            origin: Origin::start(),
            user,
            password,
        }
    }

    /// `user` and `password` for the renderers, with `proxy` and `trusted_ca`.
    fn vars(&self, proxy: &str, trusted_ca: Option<&str>) -> Value {
        let [user, password] = [self.user, self.password].map(|v| (!v.is_empty()).then_some(v));
        json!({"proxy": proxy, "user": user, "password": password, "trusted_ca": trusted_ca})
    }

    /// `client` with `env` (from `family`) reaches the origin through squid
    /// for [`ORIGIN_NAME`], logged with [`USER`], and directly for
    /// `127.0.0.1` and `localhost`, which squid never sees.
    fn check(&self, family: &str, client: Client, env: &Env) {
        self.check_trusting(family, client, env, None, None);
    }

    /// [`Wire::check`] with `trust_store` as the OS trust bundle (see
    /// [`fetch`]); with `expected_failure`, the client fails for the proxied
    /// destination with that error and squid logs nothing (the direct ones
    /// still succeed).
    fn check_trusting(
        &self,
        family: &str,
        client: Client,
        env: &Env,
        trust_store: Option<&Path>,
        mut expected_failure: Option<&str>,
    ) {
        let tag = format!("{family}-{client:?}").to_lowercase();
        let proxied = self.origin.url(ORIGIN_NAME, &format!("{tag}/proxied"));
        let tunneled = self.origin.tls_url(ORIGIN_NAME, &format!("{tag}/tunneled"));
        let urls = [
            proxied.clone(),
            self.origin.url("127.0.0.1", &format!("{tag}/direct-ip")),
            self.origin.url("localhost", &format!("{tag}/direct-name")),
            tunneled.clone(),
        ];
        // The image's or node's own trust store, which holds the origin's
        // CA, where the rendering sets none.
        let mut env = env.clone();
        if trust_store.is_none() {
            let origin_ca = self.origin.ca_file().display().to_string();
            for name in DESTINATION_CA_VARIABLES {
                env.entry(name.to_owned())
                    .or_insert_with(|| origin_ca.clone());
            }
        }
        let before = self.squid.access_log().len();
        let outcomes = fetch(client, &env, &urls, trust_store);
        let body = Outcome::Answer(200, ORIGIN_BODY.to_owned());
        if client == Client::Requests && !(self.user.is_ascii() && self.password.is_ascii()) {
            // requests encodes basic credentials as Latin-1
            // (`requests.auth._basic_auth_str`): a user name or password
            // outside Latin-1 fails before any request is sent (within it
            // squid would get Latin-1 bytes, not the UTF-8 the others send).
            assert!(format!("{}{}", self.user, self.password)
                .chars()
                .any(|c| c > '\u{ff}'));
            expected_failure = Some("UnicodeEncodeError");
        }
        if let Some(error) = expected_failure {
            let failed = Outcome::Failed(error.to_owned());
            assert_eq!(
                outcomes,
                vec![failed.clone(), body.clone(), body, failed],
                "{tag}: {urls:?}"
            );
            assert_eq!(
                self.squid.access_log().len(),
                before,
                "{tag}: nothing reached squid"
            );
            return;
        }
        assert_eq!(outcomes, vec![body; 4], "{tag}: {urls:?}");
        let entry = |method: &str, url: String| Access {
            user: (!self.user.is_empty()).then(|| self.user.to_owned()),
            method: method.to_owned(),
            url,
            status: 200,
        };
        let mut wanted = vec![
            // undici tunnels every proxied request.
            match client {
                Client::Undici => entry("CONNECT", authority(&proxied)),
                _ => entry("GET", proxied),
            },
            entry("CONNECT", authority(&tunneled)),
        ];
        wanted.sort_by(|a, b| a.url.cmp(&b.url));
        // A tunnel is logged when it closes, which may be after the next one.
        let log = self.squid.wait_until(|log| log.len() >= before + 2);
        let mut new = log[before..].to_vec();
        new.sort_by(|a, b| a.url.cmp(&b.url));
        assert_eq!(
            new, wanted,
            "{tag}: squid logged exactly the proxied requests, with the user"
        );
        let arrivals = self.origin.arrivals();
        for (path, via_proxy) in [
            // A tunnel (CONNECT) carries no Via header.
            (format!("/{tag}/proxied"), client != Client::Undici),
            (format!("/{tag}/direct-ip"), false),
            (format!("/{tag}/direct-name"), false),
            (format!("/{tag}/tunneled"), false),
        ] {
            assert!(
                arrivals
                    .iter()
                    .any(|a| a.target == path && a.via_proxy == via_proxy),
                "{tag}: {path} via proxy {via_proxy}: {arrivals:?}"
            );
        }
    }

    /// The control: without the rendered NO_PROXY, `client` sends the
    /// `127.0.0.1` and `localhost` destinations through squid (they are
    /// direct in [`Wire::check`] because the rendering lists them).
    fn check_without_no_proxy(&self, family: &str, client: Client, env: &Env) {
        let mut env = env.clone();
        env.retain(|name, _| !name.eq_ignore_ascii_case("no_proxy"));
        let tag = format!("{family}-{client:?}-control").to_lowercase();
        let urls = [
            self.origin.url("127.0.0.1", &format!("{tag}/ip")),
            self.origin.url("localhost", &format!("{tag}/name")),
        ];
        let before = self.squid.access_log().len();
        let body = Outcome::Answer(200, ORIGIN_BODY.to_owned());
        assert_eq!(fetch(client, &env, &urls, None), vec![body.clone(), body]);
        let log = self.squid.wait_until(|log| log.len() >= before + 2);
        let logged: Vec<String> = log[before..].iter().map(|a| a.url.clone()).collect();
        let wanted: Vec<String> = match client {
            Client::Undici => urls.iter().map(|url| authority(url)).collect(),
            _ => urls.to_vec(),
        };
        assert_eq!(logged, wanted, "{tag}");
    }

    /// `client` with `env` gets 407 for [`ORIGIN_NAME`] (undici: its tunnel fails).
    fn check_refused(&self, family: &str, client: Client, env: &Env) {
        let url = self
            .origin
            .url(ORIGIN_NAME, &format!("{family}-{client:?}/refused"));
        let outcome = fetch(client, env, std::slice::from_ref(&url), None).remove(0);
        match client {
            Client::Undici => assert!(matches!(outcome, Outcome::Failed(_)), "{outcome:?}"),
            _ => assert!(matches!(outcome, Outcome::Answer(407, _)), "{outcome:?}"),
        }
        let wanted = match client {
            Client::Undici => authority(&url),
            _ => url,
        };
        let log = self.squid.wait_for(|a| a.url == wanted);
        assert!(
            log.iter().any(|a| a.url == wanted && a.status == 407),
            "{log:?}"
        );
    }
}

/// The settings every renderer takes, from the variables.
const SETTINGS: &str = r#"
  http_proxy   = var.proxy
  username     = var.user
  password     = var.password
  trusted_ca   = var.trusted_ca
  installation = ["registry.corp.example"]"#;

/// A working directory for Terraform 1.11 with `main` (data sources using
/// [`SETTINGS`]) and `vars` (`proxy`, `user`, `password`, and optionally
/// `trusted_ca` and `wrong`, a second password) in a `.tfvars.json` file.
fn workdir(main: &str, vars: Value) -> Workdir {
    let tf = terraform_1_11();
    let variables = r#"
variable "proxy" { type = string }
variable "user" {
  type    = string
  default = null
}
variable "password" {
  type      = string
  sensitive = true
  default   = null
}
variable "wrong" {
  type      = string
  sensitive = true
  default   = null
}
variable "trusted_ca" {
  type    = string
  default = null
}
"#;
    let work = Workdir::with_provider(&tf, &format!("{variables}\n{main}"));
    work.write_file("terraform.tfvars.json", &vars.to_string());
    work
}

/// Applies `main` with `vars` (see [`workdir`]) and returns its output
/// `rendered`, an object of the renderings the test reads.
fn apply(main: &str, vars: Value) -> Value {
    let work = workdir(main, vars);
    work.run_ok(&["apply", "-auto-approve"]);
    work.outputs()
        .remove("rendered")
        .expect("the output rendered")
}

fn text(rendered: &Value, name: &str) -> String {
    rendered[name]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: {:?}", rendered[name]))
        .to_owned()
}

fn yaml(text: &str) -> Value {
    serde_yaml_ng::from_str(text).expect("valid YAML")
}

/// The data of a Secret manifest, decoded.
fn secret_data(manifest: &str) -> BTreeMap<String, String> {
    use base64::Engine as _;
    yaml(manifest)["data"]
        .as_object()
        .expect("a Secret with data")
        .iter()
        .map(|(key, value)| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(value.as_str().unwrap())
                .unwrap();
            (key.clone(), String::from_utf8(bytes).unwrap())
        })
        .collect()
}

/// A container's env list with `value` and `valueFrom.secretKeyRef` (from
/// `secret`, the one Secret the renderers refer to) resolved, as the kubelet does.
fn container_env(entries: &Value, secret: Option<&BTreeMap<String, String>>) -> Env {
    entries
        .as_array()
        .expect("an env list")
        .iter()
        .map(|entry| {
            let name = entry["name"].as_str().unwrap().to_owned();
            let value = match (&entry["value"], &entry["valueFrom"]["secretKeyRef"]) {
                (Value::String(value), Value::Null) => value.clone(),
                (Value::Null, reference) if reference.is_object() => {
                    let key = reference["key"].as_str().unwrap();
                    secret.expect("the rendered Secret")[key].clone()
                }
                other => panic!("env entry {entry}: {other:?}"),
            };
            (name, value)
        })
        .collect()
}

/// The environment a unit gets from the drop-in `content`, parsed by systemd.
fn unit_env(content: &str) -> Env {
    systemd::systemd_unit_environment(content)
        .into_iter()
        .collect()
}

/// The environment after `sh` runs `commands` (with `systemctl` a no-op);
/// returns the environment `env -0` prints there.
fn sh_env(commands: &[String]) -> Env {
    let script = format!("systemctl() {{ :; }}\n{}\nexec env -0", commands.join("\n"));
    stdout_of(
        Command::new("sh")
            .args(["-ec", &script])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default()),
    )
    .split('\0')
    .filter_map(|pair| pair.split_once('='))
    .filter(|(name, _)| !matches!(*name, "PATH" | "PWD" | "SHLVL" | "_"))
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect()
}

/// The standard output of `command`, which must succeed.
fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The variables of an environment file as systemd's parser reads them.
fn env_file(content: &str) -> Env {
    let (kept, warnings) = systemd::systemd_reads(content);
    assert!(warnings.is_empty(), "{warnings:?}");
    kept.into_iter().collect()
}

/// The content of a `data:` URL, decoded by Python's urllib (`urlopen`).
fn data_url(url: &str) -> String {
    stdout_of(tools::PYTHON3.command().args([
        "-c",
        "import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())",
        url,
    ]))
}

fn string_list(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// Every renderer family's output, rendered for squid on 127.0.0.1 with the
/// hostile password, gets its consumer's clients through squid (and past it
/// for NO_PROXY destinations); a drop-in with a wrong password gets 407.
#[test]
fn every_renderer_family_reaches_the_origin_through_squid() {
    let wire = Wire::start(Squid::start, USER, PASSWORD);
    let main = format!(
        r#"
data "clusterproxy_systemd_dropin" "node" {{{SETTINGS}
  units = ["containerd"]
}}

data "clusterproxy_systemd_dropin" "wrong" {{
  http_proxy = var.proxy
  username   = var.user
  password   = var.wrong
  units      = ["containerd"]
}}

data "clusterproxy_cloud_init" "node" {{{SETTINGS}
  units = ["kubelet"]
}}

data "clusterproxy_capi_kubeadm" "inline" {{{SETTINGS}
}}

data "clusterproxy_capi_kubeadm" "secret" {{{SETTINGS}
  cluster_name = "wire"
}}

data "clusterproxy_rke2" "rke2" {{{SETTINGS}
  distribution = "rke2"
  role         = "agent"
  scope        = "all"
}}

data "clusterproxy_rke2" "k3s" {{{SETTINGS}
  distribution = "k3s"
  role         = "server"
}}

data "clusterproxy_pod_env" "pods" {{{SETTINGS}
  credentials_secret = "proxy-credentials"
}}

data "clusterproxy_kyverno_policy" "pods" {{{SETTINGS}
  credentials_secret = "proxy-credentials"
}}

data "clusterproxy_helm_values" "charts" {{{SETTINGS}
  credentials_secret = "proxy-credentials"
}}

data "clusterproxy_ignition" "node" {{{SETTINGS}
  units = ["containerd"]
}}

data "clusterproxy_talos" "v1_12" {{{SETTINGS}
  talos_version = "1.12"
}}

data "clusterproxy_talos" "v1_13" {{{SETTINGS}
  talos_version = "1.13"
}}

data "clusterproxy_openshift_proxy" "ocp" {{{SETTINGS}
  service_cidrs = ["172.30.0.0/16"]
}}

data "clusterproxy_eksa_proxy_config" "eksa" {{{SETTINGS}
  service_cidrs = ["10.96.0.0/12"]
}}

data "clusterproxy_tkg_config" "tkg" {{{SETTINGS}
  service_cidrs = ["100.64.0.0/13"]
}}

data "clusterproxy_kubespray" "kubespray" {{{SETTINGS}
  service_cidrs = ["10.233.0.0/18"]
}}

output "rendered" {{
  sensitive = true
  value = {{
    dropin               = data.clusterproxy_systemd_dropin.node.dropins[0].content
    default_environment  = data.clusterproxy_systemd_dropin.node.default_environment
    wrong_dropin         = data.clusterproxy_systemd_dropin.wrong.dropins[0].content
    user_data            = data.clusterproxy_cloud_init.node.user_data
    capi_commands        = data.clusterproxy_capi_kubeadm.inline.pre_kubeadm_commands
    capi_secret_commands = data.clusterproxy_capi_kubeadm.secret.pre_kubeadm_commands
    capi_secret          = data.clusterproxy_capi_kubeadm.secret.secret_manifest
    rke2                 = data.clusterproxy_rke2.rke2.content
    k3s                  = data.clusterproxy_rke2.k3s.content
    pod_env              = data.clusterproxy_pod_env.pods.env_yaml
    pod_secret           = data.clusterproxy_pod_env.pods.credentials_secret_yaml
    kyverno              = data.clusterproxy_kyverno_policy.pods.policy_yaml
    kyverno_secret       = data.clusterproxy_kyverno_policy.pods.credentials_secret_yaml
    helm                 = data.clusterproxy_helm_values.charts.extra_env_yaml
    helm_secret          = data.clusterproxy_helm_values.charts.credentials_secret_yaml
    ignition             = data.clusterproxy_ignition.node.config
    talos_1_12           = data.clusterproxy_talos.v1_12.patch
    talos_1_13           = data.clusterproxy_talos.v1_13.patch
    openshift            = data.clusterproxy_openshift_proxy.ocp.proxy_yaml
    openshift_no_proxy   = data.clusterproxy_openshift_proxy.ocp.status_no_proxy
    eksa                 = data.clusterproxy_eksa_proxy_config.eksa.proxy_configuration
    eksa_no_proxy        = data.clusterproxy_eksa_proxy_config.eksa.node_no_proxy
    tkg                  = data.clusterproxy_tkg_config.tkg.variables
    tkg_appended         = data.clusterproxy_tkg_config.tkg.appended_by_tkg
    kubespray            = data.clusterproxy_kubespray.kubespray.group_vars
    kubespray_no_proxy   = data.clusterproxy_kubespray.kubespray.effective_no_proxy
  }}
}}
"#
    );
    let out = apply(
        &main,
        json!({"proxy": wire.squid.url(), "user": USER, "password": PASSWORD, "wrong": "wrong password"}),
    );

    node_drop_ins(&wire, &out);
    talos(&wire, &out);
    platforms(&wire, &out);
    kubeadm(&wire, &out);
    rke2_and_k3s(&wire, &out);
    pods(&wire, &out);
}

/// systemd drop-ins (the data source's, cloud-init's, Ignition's) and
/// `DefaultEnvironment=`: Go (containerd, kubelet) and curl; a wrong password gets 407.
fn node_drop_ins(wire: &Wire, out: &Value) {
    // systemd drop-ins: containerd and kubelet (Go), anything else (curl).
    let dropin = unit_env(&text(out, "dropin"));
    wire.check("dropin", Client::Go, &dropin);
    wire.check("dropin", Client::Curl, &dropin);
    let manager = unit_env(&systemd::manager_as_dropin(&text(
        out,
        "default_environment",
    )));
    assert_eq!(
        manager, dropin,
        "DefaultEnvironment= sets what the drop-in sets"
    );
    wire.check("default-environment", Client::Go, &manager);
    wire.check_without_no_proxy("dropin", Client::Curl, &dropin);
    let wrong = unit_env(&text(out, "wrong_dropin"));
    wire.check_refused("wrong-password", Client::Go, &wrong);
    wire.check_refused("wrong-password", Client::Curl, &wrong);

    // cloud-init: the drop-ins it writes.
    let user_data = yaml(&text(out, "user_data"));
    let files = user_data["write_files"].as_array().expect("write_files");
    let kubelet = files
        .iter()
        .find(|f| f["path"] == "/etc/systemd/system/kubelet.service.d/http-proxy.conf")
        .expect("the kubelet drop-in");
    wire.check(
        "cloud-init",
        Client::Go,
        &unit_env(kubelet["content"].as_str().unwrap()),
    );

    // Ignition: the drop-in it writes, its data: URL read by Python's urllib.
    let ignition: Value = serde_json::from_str(&text(out, "ignition")).unwrap();
    let dropin = ignition["storage"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "/etc/systemd/system/containerd.service.d/http-proxy.conf")
        .expect("the containerd drop-in");
    let content = data_url(dropin["contents"]["source"].as_str().unwrap());
    wire.check("ignition", Client::Go, &unit_env(&content));
}

/// Talos's variables, in `machine.env` and in an EnvironmentConfig document: Go.
fn talos(wire: &Wire, out: &Value) {
    // Talos: the variables it sets on containerd and kubelet (Go), in
    // `machine.env` before 1.13 and in an EnvironmentConfig document from 1.13.
    let machine_env = &yaml(&text(out, "talos_1_12"))["machine"]["env"];
    let environment_config = serde_yaml_ng::Deserializer::from_str(&text(out, "talos_1_13"))
        .map(|document| Value::deserialize(document).unwrap())
        .find(|document| document["kind"] == "EnvironmentConfig")
        .expect("an EnvironmentConfig document");
    for (version, variables) in [
        ("1.12", machine_env),
        ("1.13", &environment_config["variables"]),
    ] {
        let env: Env = variables
            .as_object()
            .expect("a mapping of variables")
            .iter()
            .map(|(name, value)| (name.clone(), value.as_str().unwrap().to_owned()))
            .collect();
        wire.check(&format!("talos-{version}"), Client::Go, &env);
    }
}

/// OpenShift, EKS Anywhere, TKG and kubespray: what their Go components get.
fn platforms(wire: &Wire, out: &Value) {
    // Cluster-wide settings a platform hands its node and cluster
    // components (Go) as HTTP_PROXY, HTTPS_PROXY and the NO_PROXY it
    // computes: OpenShift's `status.noProxy`, the list EKS Anywhere writes
    // onto nodes, TKG_NO_PROXY plus what TKG appends, kubespray's generated
    // `no_proxy`.
    let openshift = yaml(&text(out, "openshift"));
    let eksa = &out["eksa"];
    let tkg = &out["tkg"];
    let kubespray = yaml(&text(out, "kubespray"));
    let tkg_no_proxy = [
        vec![text(tkg, "TKG_NO_PROXY")],
        string_list(&out["tkg_appended"]),
    ]
    .concat();
    for (platform, http, https, no_proxy) in [
        (
            "openshift",
            &openshift["spec"]["httpProxy"],
            &openshift["spec"]["httpsProxy"],
            string_list(&out["openshift_no_proxy"]),
        ),
        (
            "eksa",
            &eksa["http_proxy"],
            &eksa["https_proxy"],
            string_list(&out["eksa_no_proxy"]),
        ),
        (
            "tkg",
            &tkg["TKG_HTTP_PROXY"],
            &tkg["TKG_HTTPS_PROXY"],
            tkg_no_proxy,
        ),
        (
            "kubespray",
            &kubespray["http_proxy"],
            &kubespray["https_proxy"],
            vec![text(out, "kubespray_no_proxy")],
        ),
    ] {
        let env: Env = [
            ("HTTP_PROXY", http.as_str().unwrap().to_owned()),
            ("HTTPS_PROXY", https.as_str().unwrap().to_owned()),
            ("NO_PROXY", no_proxy.join(",")),
        ]
        .map(|(name, value)| (name.to_owned(), value))
        .into();
        wire.check(platform, Client::Go, &env);
    }
}

/// `preKubeadmCommands`, inline and sourcing the Secret's `proxy.env`: curl after `sh`.
fn kubeadm(wire: &Wire, out: &Value) {
    // preKubeadmCommands through sh, then curl as kubeadm's commands run.
    let inline = sh_env(&string_list(&out["capi_commands"]));
    wire.check("kubeadm", Client::Curl, &inline);
    let proxy_env = secret_data(&text(out, "capi_secret"))
        .remove(clusterproxy::domain::render::capi::ENV_KEY)
        .expect("the proxy.env key");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), proxy_env).unwrap();
    let quoted_path = format!("'{}'", clusterproxy::domain::render::capi::ENV_FILE_PATH);
    let commands: Vec<String> = string_list(&out["capi_secret_commands"])
        .into_iter()
        .map(|c| c.replace(&quoted_path, &format!("'{}'", file.path().display())))
        .collect();
    assert!(commands
        .iter()
        .any(|c| c.contains(&*file.path().to_string_lossy())));
    let sourced = sh_env(&commands);
    assert_eq!(
        sourced, inline,
        "proxy.env sets what the inline commands set"
    );
    wire.check("kubeadm-secret", Client::Curl, &sourced);
}

/// RKE2 and k3s environment files: Go (containerd).
fn rke2_and_k3s(wire: &Wire, out: &Value) {
    // RKE2 and k3s: the environment file, read by systemd; containerd is Go.
    wire.check("rke2", Client::Go, &env_file(&text(out, "rke2")));
    // k3s starts containerd with its own environment plus each `CONTAINERD_*`
    // variable without the prefix.
    let mut k3s = env_file(&text(out, "k3s"));
    let unprefixed: Env = k3s
        .iter()
        .filter_map(|(name, value)| {
            Some((name.strip_prefix("CONTAINERD_")?.to_owned(), value.clone()))
        })
        .collect();
    assert_eq!(unprefixed.len(), 3, "{k3s:?}");
    k3s.extend(unprefixed);
    wire.check("k3s", Client::Go, &k3s);
}

/// Pod env, Kyverno's patched pod and Helm `extraEnv`: every pod client.
fn pods(wire: &Wire, out: &Value) {
    // Pods: the env list with valueFrom resolved from the rendered Secret.
    let pod_secret = secret_data(&text(out, "pod_secret"));
    let pod = container_env(&yaml(&text(out, "pod_env"))["env"], Some(&pod_secret));
    // Kyverno's MutatingPolicy, its JSON Patch evaluated on a pod by a real
    // CEL implementation.
    let policy = yaml(&text(out, "kyverno"));
    let sample = json!({
        "metadata": {"name": "app"},
        "spec": {"containers": [{"name": "app", "image": "app:1"}]},
    });
    let patched =
        clusterproxy::domain::render::kyverno::evaluate::mutate(&policy, "default", &sample)
            .expect("the policy evaluates")
            .expect("the pod is mutated");
    let kyverno = container_env(
        &patched["spec"]["containers"][0]["env"],
        Some(&secret_data(&text(out, "kyverno_secret"))),
    );
    let helm = container_env(
        &yaml(&text(out, "helm"))["extraEnv"],
        Some(&secret_data(&text(out, "helm_secret"))),
    );
    assert_eq!(kyverno, pod, "Kyverno's patched pod gets the pod env");
    assert_eq!(helm, pod, "Helm extraEnv is the pod env");
    wire.check_without_no_proxy("pod", Client::Undici, &pod);
    for client in POD_CLIENTS {
        wire.check("pod", client, &pod);
        wire.check("kyverno", client, &kyverno);
        wire.check("helm", client, &helm);
    }
}

/// A hostile user name and password within ASCII, which every client sends as is.
const ASCII_USER: &str = "svc wire@corp";
/// See [`ASCII_USER`].
const ASCII_PASSWORD: &str = "p w/#%41:@ x";

/// A systemd drop-in and the pod env (with the credentials inline, and with
/// `trusted_ca` the CA ConfigMap).
const DROPIN_AND_PODS: &str = r#"
data "clusterproxy_systemd_dropin" "node" {
  http_proxy = var.proxy
  username   = var.user
  password   = var.password
  trusted_ca = var.trusted_ca
  units      = ["containerd"]
}

data "clusterproxy_pod_env" "pods" {
  http_proxy = var.proxy
  username   = var.user
  password   = var.password
  trusted_ca = var.trusted_ca
}


output "rendered" {
  sensitive = true
  value = {
    dropin        = data.clusterproxy_systemd_dropin.node.dropins[0].content
    ca_files      = data.clusterproxy_systemd_dropin.node.ca_files
    pod_env       = data.clusterproxy_pod_env.pods.env_yaml
    ca_config_map = data.clusterproxy_pod_env.pods.ca_config_map_yaml
  }
}
"#;

/// Renders [`DROPIN_AND_PODS`] for `proxy` and checks the drop-in with Go
/// and curl and the pod env with every pod client. With `trusted_ca`, the
/// node's OS trust bundle is the drop-in's `ca_files` bundle (in a private
/// mount namespace: curl reads no CA variable for its proxy) and the pod's
/// CA variables point at a file holding the ConfigMap's bundle, where the pod
/// would mount it. Returns the pod env.
fn drop_in_and_pods(wire: &Wire, family: &str, proxy: &str, trusted_ca: Option<&str>) -> Env {
    let out = apply(DROPIN_AND_PODS, wire.vars(proxy, trusted_ca));
    let dir = tempfile::tempdir().unwrap();
    let node = unit_env(&text(&out, "dropin"));
    let trust_store = trusted_ca.map(|_| {
        let bundle = dir.path().join("node-ca.pem");
        std::fs::write(&bundle, out["ca_files"][0]["content"].as_str().unwrap()).unwrap();
        bundle
    });
    for client in [Client::Go, Client::Curl] {
        wire.check_trusting(
            &format!("{family}-dropin"),
            client,
            &node,
            trust_store.as_deref(),
            None,
        );
    }

    let mut pod = container_env(&yaml(&text(&out, "pod_env"))["env"], None);
    if trusted_ca.is_some() {
        let config_map = yaml(&text(&out, "ca_config_map"));
        let mount = dir.path().join("mount");
        std::fs::create_dir(&mount).unwrap();
        std::fs::write(
            mount.join(CA_KEY),
            config_map["data"][CA_KEY].as_str().unwrap(),
        )
        .unwrap();
        let in_pod = format!("{CA_MOUNT_PATH}/{CA_KEY}");
        for value in pod.values_mut() {
            if *value == in_pod {
                *value = mount.join(CA_KEY).display().to_string();
            }
        }
    }
    for client in POD_CLIENTS {
        // curl takes the CA variables for the destination only (curl 7.88:
        // `CURL_CA_BUNDLE`/`SSL_CERT_FILE` set `--cacert`; only
        // `--proxy-cacert` sets the proxy's CA): it refuses the HTTPS
        // proxy's certificate (exit 60) unless the image trusts the CA.
        let failure = (trusted_ca.is_some() && client == Client::Curl).then_some("exit 60");
        wire.check_trusting(&format!("{family}-pod"), client, &pod, None, failure);
    }
    pod
}

/// A proxy URL without scheme is refused on the attribute, and the wire
/// shows why: with the rendered credentials of a user such as `svc-wire`
/// and the scheme cut off, curl and Go read `svc-wire:password@host:port`
/// as an `http://` proxy, but `svc-wire` parses as the URL's scheme, so
/// requests refuses it (`InvalidProxyURL`) and undici's `EnvHttpProxyAgent`
/// throws `UND_ERR_INVALID_ARG` ("Invalid URL protocol") before any request
/// (without credentials, `ERR_INVALID_URL`). The `http://` form the
/// diagnostic asks for gets every client through.
#[test]
fn proxy_url_without_scheme() {
    let wire = Wire::start(Squid::start, "svc-wire", ASCII_PASSWORD);
    let bare = wire.squid.authority();
    let work = workdir(DROPIN_AND_PODS, wire.vars(&bare, None));
    let run = work.run(&["plan", "-json"]);
    assert_ne!(run.code, 0, "{}", run.combined());
    let refused: Vec<Value> = run
        .diagnostics()
        .into_iter()
        .filter(|d| d["severity"] == "error" && d["summary"] == "proxy URL has no scheme")
        .collect();
    assert_eq!(refused.len(), 2, "{}", run.combined());
    assert!(!run.combined().contains(ASCII_PASSWORD));

    // The same variables with the scheme cut off the proxy URLs.
    let pod = drop_in_and_pods(&wire, "no-scheme", &format!("http://{bare}"), None);
    let bare_env: Env = pod
        .into_iter()
        .map(|(name, value)| {
            let value = value
                .strip_prefix("http://")
                .map_or(value.clone(), str::to_owned);
            (name, value)
        })
        .collect();
    for client in [Client::Curl, Client::Go] {
        wire.check("bare", client, &bare_env);
    }
    wire.check_trusting(
        "bare",
        Client::Requests,
        &bare_env,
        None,
        Some("InvalidProxyURL"),
    );
    let url = wire.origin.url(ORIGIN_NAME, "bare-undici");
    assert_eq!(
        fetch(Client::Undici, &bare_env, &[url], None),
        vec![Outcome::Failed("UND_ERR_INVALID_ARG".to_owned())]
    );
}

/// A proxy on `[::1]` (the URL's host in brackets) gets every client through.
#[test]
fn ipv6_proxy_address() {
    let wire = Wire::start(Squid::start_ipv6, ASCII_USER, ASCII_PASSWORD);
    assert!(wire.squid.url().starts_with("http://[::1]:"));
    drop_in_and_pods(&wire, "ipv6", &wire.squid.url(), None);
}

/// An `https://` proxy (squid's `https_port`) with its CA in `trusted_ca`:
/// every client verifies the proxy with the rendered bundle (curl in a pod
/// excepted, see [`drop_in_and_pods`]). The bundle also holds the origin's
/// CA, as a TLS-inspecting proxy's CA signs what its clients see.
#[test]
fn https_proxy_with_trusted_ca() {
    let wire = Wire::start(Squid::start_https, ASCII_USER, ASCII_PASSWORD);
    let proxy_ca = wire.squid.ca_pem().expect("the proxy's CA");
    let origin_ca = std::fs::read_to_string(wire.origin.ca_file()).unwrap();
    let bundle = format!("{proxy_ca}{origin_ca}");
    drop_in_and_pods(&wire, "https", &wire.squid.url(), Some(&bundle));
}

/// AKS takes no proxy credentials: its `httpProxyConfig`, as AKS hands it
/// to its node components (Go) and, through its admission webhook, to pods
/// (every pod client), with the NO_PROXY it reports as `effectiveNoProxy`,
/// through a squid that asks for none.
#[test]
fn aks_http_proxy_config_without_credentials() {
    let wire = Wire::start(Squid::start, "", "");
    let main = format!(
        r#"
data "clusterproxy_aks_http_proxy_config" "aks" {{{SETTINGS}
  service_cidrs = ["10.96.0.0/12"]
}}

output "rendered" {{
  value = {{
    config    = data.clusterproxy_aks_http_proxy_config.aks.http_proxy_config
    no_proxy  = data.clusterproxy_aks_http_proxy_config.aks.effective_no_proxy
  }}
}}
"#
    );
    let out = apply(&main, wire.vars(&wire.squid.url(), None));
    let config = &out["config"];
    // AKS injects both cases (learn.microsoft.com/azure/aks/http-proxy).
    let env: Env = [
        ("HTTP_PROXY", text(config, "http_proxy")),
        ("HTTPS_PROXY", text(config, "https_proxy")),
        ("NO_PROXY", string_list(&out["no_proxy"]).join(",")),
    ]
    .into_iter()
    .flat_map(|(name, value)| {
        [
            (name.to_lowercase(), value.clone()),
            (name.to_owned(), value),
        ]
    })
    .collect();
    for client in POD_CLIENTS {
        wire.check("aks", client, &env);
    }
}
