//! Real-client oracles for the NO_PROXY differential tests: each decision
//! ("would this client bypass the proxy for this URL with this setting?") is
//! made by the real client, never by our reading of it. Drivers live beside
//! this file; each decides a whole batch of cases in one process (Go and wget:
//! one process per distinct setting, as they read it once). Nothing leaves
//! loopback: the proxy is a closed port on 127.0.0.1, libcurl never opens a
//! socket (its socket callback records the port it would connect to), undici's
//! inner dispatchers are recorders, reqwest's proxy is a listener on 127.0.0.1
//! that closes every connection (its resolver answers no name), httpx only
//! picks a transport (none is used), and curl, wget, Ruby and reqwest run in a
//! network namespace of their own (`unshare -rn`) whose only interface is
//! loopback.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use clusterproxy::domain::no_proxy::dialect::Decision;
use clusterproxy::domain::no_proxy::Dialect;

use crate::tools;

/// One question: the setting (NO_PROXY, or `http.nonProxyHosts` for Java) and the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The setting's value.
    pub setting: String,
    /// The destination URL.
    pub url: String,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle")
}

/// A directory for built oracles and scripts: `target/tmp/oracle`.
pub fn scratch() -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle");
    std::fs::create_dir_all(&path).unwrap();
    path
}

/// Runs `command` with `input` on stdin and returns one decision per output line.
fn run(mut command: Command, input: &str, expected: usize) -> Vec<Decision> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start oracle {command:?}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let decisions: Vec<Decision> = stdout
        .lines()
        .map(|line| match line {
            "direct" => Decision::Direct,
            "proxy" => Decision::Proxy,
            "refused" => Decision::Refused,
            other => panic!("oracle {command:?} answered {other:?}"),
        })
        .collect();
    assert!(
        output.status.success() && decisions.len() == expected,
        "oracle {command:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    decisions
}

/// `program args...` inside a fresh network namespace with only loopback up.
fn isolated(program: &Path, args: &[&str]) -> Command {
    let mut command = tools::UNSHARE.command();
    command.args(["-rn", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh"]);
    command.arg(program);
    command.args(args);
    command
}

fn json_lines(cases: &[Case]) -> String {
    cases
        .iter()
        .map(|c| serde_json::json!({"no_proxy": c.setting, "url": c.url}).to_string() + "\n")
        .collect()
}

/// Builds the Go program `source` (GOPATH mode, standard library only) into
/// the scratch directory as `name`; returns the binary's path.
pub fn build_go(source: &Path, name: &str) -> PathBuf {
    let out = scratch().join(name);
    let status = tools::GO
        .command()
        .args(["build", "-o"])
        .arg(&out)
        .arg(source)
        .env("GOCACHE", scratch().join("gocache"))
        .env("GO111MODULE", "off")
        .env("GOFLAGS", "")
        .status()
        .expect("run go build");
    assert!(status.success(), "building {} failed", source.display());
    out
}

fn go_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| build_go(&dir().join("go/main.go"), "go-oracle"))
}

/// Go reads its environment once per process: one process per distinct setting.
fn go(cases: &[Case]) -> Vec<Decision> {
    let mut decisions = vec![Decision::Refused; cases.len()];
    let mut settings: Vec<&str> = cases.iter().map(|c| c.setting.as_str()).collect();
    settings.sort_unstable();
    settings.dedup();
    for setting in settings {
        let picked: Vec<usize> = (0..cases.len())
            .filter(|i| cases[*i].setting == setting)
            .collect();
        let input: String = picked
            .iter()
            .map(|i| format!("{}\n", cases[*i].url))
            .collect();
        let mut command = Command::new(go_binary());
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default());
        for key in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
            command.env(key, "http://127.0.0.1:9");
        }
        command.env("NO_PROXY", setting).env("no_proxy", setting);
        for (i, decision) in picked.iter().zip(run(command, &input, picked.len())) {
            decisions[*i] = decision;
        }
    }
    decisions
}

/// The decisions of the Python driver's `client` (see tests/oracle/decide.py).
pub fn python(client: &str, cases: &[Case]) -> Vec<Decision> {
    let script = dir().join("decide.py");
    let mut command = if matches!(client, "curl" | "curl-cli" | "wget") {
        isolated(&tools::PYTHON3.path(), &[script.to_str().unwrap(), client])
    } else {
        let mut command = tools::PYTHON3.command();
        command.arg(&script).arg(client);
        command
    };
    command.env("PYTHONPATH", tools::PYTHON_PACKAGES.path());
    run(command, &json_lines(cases), cases.len())
}

fn java(cases: &[Case]) -> Vec<Decision> {
    let mut command = tools::JAVA.command();
    command.arg(dir().join("NonProxyHosts.java"));
    let input: String = cases
        .iter()
        .map(|c| format!("{}\t{}\n", c.setting, c.url))
        .collect();
    run(command, &input, cases.len())
}

fn node(script: &str, cases: &[Case]) -> Vec<Decision> {
    let mut command = tools::NODE.command();
    command.arg(dir().join(script));
    command.env("NODE_PATH", tools::NODE_PACKAGES.path());
    run(command, &json_lines(cases), cases.len())
}

/// Ruby's decisions through `mode`: `find_proxy` (URI) or `net_http`.
pub fn ruby(mode: &str, cases: &[Case]) -> Vec<Decision> {
    let script = dir().join("decide.rb");
    run(
        isolated(&tools::RUBY.path(), &[script.to_str().unwrap(), mode]),
        &json_lines(cases),
        cases.len(),
    )
}

/// Rust reqwest through tests/oracle/reqwest, built by scripts/install-test-tools.
fn reqwest(cases: &[Case]) -> Vec<Decision> {
    run(
        isolated(&tools::REQWEST_ORACLE.path(), &[]),
        &json_lines(cases),
        cases.len(),
    )
}

/// httpx's decisions (tests/oracle/decide_httpx.py).
fn httpx(cases: &[Case]) -> Vec<Decision> {
    let mut command = tools::PYTHON3.command();
    command
        .arg(dir().join("decide_httpx.py"))
        .env("PYTHONPATH", tools::PYTHON_PACKAGES.path());
    run(command, &json_lines(cases), cases.len())
}

/// How the tests ask a client.
#[derive(Debug, Clone, Copy)]
pub enum Oracle {
    /// Its driver: the real client's decisions for a batch of cases.
    Driver(fn(&[Case]) -> Vec<Decision>),
    /// No driver yet, for this reason: the client's model is not checked
    /// against the real client (its test in tests/oracles/no_proxy_oracles.rs
    /// is ignored with the reason, and the client guide says so).
    #[allow(
        dead_code,
        reason = "constructed while a new client waits for its driver"
    )]
    Pending(&'static str),
}

/// `Oracle::Driver`, for the list in [`clients`].
const fn driver(run: fn(&[Case]) -> Vec<Decision>) -> Oracle {
    Oracle::Driver(run)
}

/// `Oracle::Pending`, for the list in [`clients`].
#[allow(dead_code, reason = "used while a new client waits for its driver")]
const fn pending(reason: &'static str) -> Oracle {
    Oracle::Pending(reason)
}

/// Every client's oracle, one line per client, keyed by its configuration
/// name: `name => driver(function)`, or `name => pending("reason")` while a
/// new client's model waits for its driver (the line becomes its driver line
/// when the driver lands). Passes the list to the macro `$then`: [`oracle`]
/// (which names the line to add for a client missing here) and the
/// per-client tests of tests/oracles/no_proxy_oracles.rs come from it.
macro_rules! clients {
    ($then:ident) => {
        $then! {
            go => driver(go),
            curl => driver(|cases| python("curl", cases)),
            python => driver(|cases| python("urllib", cases)),
            requests => driver(|cases| python("requests", cases)),
            ruby => driver(|cases| ruby("find_proxy", cases)),
            wget => driver(|cases| python("wget", cases)),
            java => driver(java),
            node => driver(|cases| node("decide.js", cases)),
            undici => driver(|cases| node("decide_undici.js", cases)),
            reqwest => driver(reqwest),
            httpx => driver(httpx),
        }
    };
}
#[allow(
    unused_imports,
    reason = "the oracles binary makes its per-client tests from the list; the E2E binary does not"
)]
pub(crate) use clients;

/// Declares [`oracle`] from the list of [`clients`].
macro_rules! oracle_match {
    ($($name:ident => $kind:ident($($args:tt)*),)*) => {
        /// How the tests ask `dialect`; panics, naming the line to add, for
        /// a client missing from [`clients`].
        pub fn oracle(dialect: Dialect) -> Oracle {
            match dialect.name() {
                $(stringify!($name) => $kind($($args)*),)*
                name => panic!(
                    "the client `{name}` has no oracle: add its line `{name} => driver(<function>),` or `{name} => pending(\"<why>\"),` to `clients!` in tests/oracle/mod.rs"
                ),
            }
        }
    };
}
clients!(oracle_match);

/// The clients with a driver, in registry order.
#[allow(dead_code, reason = "the E2E binary asks named clients")]
pub fn checked() -> impl Iterator<Item = Dialect> {
    Dialect::all().filter(|d| matches!(oracle(*d), Oracle::Driver(_)))
}

/// The real client's decisions for `cases`; panics for a client whose
/// driver is pending (ask only the [`checked`] clients).
pub fn decide(dialect: Dialect, cases: &[Case]) -> Vec<Decision> {
    if cases.is_empty() {
        return Vec::new();
    }
    match oracle(dialect) {
        Oracle::Driver(run) => run(cases),
        Oracle::Pending(reason) => panic!(
            "{dialect} has no real-client driver yet ({reason}): ask only the clients of oracle::checked()"
        ),
    }
}
