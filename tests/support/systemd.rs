//! systemd's own parsers, for the tests that read back what the renderers
//! write for systemd: `systemd-analyze verify` of a unit with a drop-in
//! (its warnings, and at debug level the environment systemd parsed from
//! `Environment=`), and the environment file parser (`load_env_file`) through
//! the user environment generator. No systemd manager runs here.

use std::process::{Command, Output};

use crate::tools;

/// `systemd-analyze verify` of a unit with `dropin` as its drop-in
/// `http-proxy.conf`; at debug level it also dumps the unit it loaded.
fn verify(dropin: &str, debug: bool) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let unit = "clusterproxy-schema.service";
    std::fs::write(
        dir.path().join(unit),
        "[Unit]\nDescription=test\n[Service]\nType=oneshot\nExecStart=/bin/true\n",
    )
    .unwrap();
    let dropins = dir.path().join(format!("{unit}.d"));
    std::fs::create_dir(&dropins).unwrap();
    std::fs::write(dropins.join("http-proxy.conf"), dropin).unwrap();
    let mut command = tools::SYSTEMD_ANALYZE.command();
    command
        .args(["verify", "--man=no"])
        .arg(dir.path().join(unit))
        .env("SYSTEMD_UNIT_PATH", format!("{}:", dir.path().display()));
    if debug {
        command.env("SYSTEMD_LOG_LEVEL", "debug");
    }
    command.output().expect("run systemd-analyze")
}

/// The environment systemd gives a unit with `dropin` as its drop-in:
/// the `Environment=` assignments as systemd's unit file parser read them
/// (unquoted, unescaped, specifiers such as `%%` resolved). Panics on any
/// warning about the drop-in ([`systemd_verify`]).
#[allow(
    dead_code,
    reason = "the oracles binary reads the environment with its log (systemd_parsed_environment)"
)]
pub fn systemd_unit_environment(dropin: &str) -> Vec<(String, String)> {
    let warnings = systemd_verify(dropin);
    assert!(warnings.is_empty(), "{warnings:?}");
    systemd_parsed_environment(dropin).0
}

/// The `Environment=` assignments systemd kept from `dropin`, from the unit
/// dump `systemd-analyze verify` prints at debug level, whatever it warned
/// (an assignment it refused is missing), and its whole log.
pub fn systemd_parsed_environment(dropin: &str) -> (Vec<(String, String)>, String) {
    let out = verify(dropin, true);
    let stdout = String::from_utf8(out.stdout).expect("the unit dump is UTF-8");
    let pairs = stdout
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("Environment: "))
        .map(|assignment| {
            let (name, value) = assignment.split_once('=').expect("NAME=value");
            (name.to_owned(), value.to_owned())
        })
        .collect();
    (
        pairs,
        String::from_utf8_lossy(&out.stderr).into_owned() + &stdout,
    )
}

/// The `DefaultEnvironment=` lines of a `[Manager]` file as `Environment=`
/// lines of a `[Service]` drop-in (the same value syntax).
pub fn manager_as_dropin(text: &str) -> String {
    assert!(text.contains("[Manager]\n"), "{text}");
    text.replace("[Manager]\n", "[Service]\n")
        .replace("\nDefaultEnvironment=", "\nEnvironment=")
}

/// `systemd-analyze verify` of a unit with `dropin` as its drop-in: every
/// line systemd logs about the drop-in (a warning or an ignored assignment)
/// is an error, and so is a failed verify.
pub fn systemd_verify(dropin: &str) -> Vec<String> {
    let out = verify(dropin, false);
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let mut found: Vec<String> = log
        .lines()
        .filter(|line| line.contains("http-proxy.conf"))
        .map(str::to_owned)
        .collect();
    if !out.status.success() {
        found.push(format!(
            "systemd-analyze verify exited {}: {log}",
            out.status
        ));
    }
    found
}

/// The variables systemd's environment file parser (`load_env_file`) reads
/// from `text`, and every warning it logs about the file: the user
/// environment generator reads `environment.d/*.conf` with that parser and
/// prints what it kept (`systemd-analyze verify` does not open environment
/// files, and no systemd manager runs here). environment.d also expands
/// `$NAME` after parsing, which `EnvironmentFile=` does not.
pub fn systemd_reads(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let generator = tools::SYSTEMD_ENVIRONMENT_GENERATOR.path();
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("environment.d");
    std::fs::create_dir(&conf).unwrap();
    std::fs::write(conf.join("50-proxy.conf"), text).unwrap();
    let out = Command::new(&generator)
        .env_clear()
        .env("XDG_CONFIG_HOME", dir.path())
        .env("XDG_CONFIG_DIRS", dir.path().join("none"))
        .env("XDG_DATA_DIRS", dir.path().join("none"))
        .output()
        .unwrap();
    let mut log: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|line| line.contains("50-proxy.conf"))
        .map(str::to_owned)
        .collect();
    if !out.status.success() {
        log.push(format!("the generator exited {}", out.status));
    }
    // The generator prints `NAME=value`, the value in double quotes with
    // backslash escapes where it needs them.
    let unquote = |v: &str| match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::new();
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                out.push(if c == '\\' { chars.next().unwrap() } else { c });
            }
            out
        }
        None => v.to_owned(),
    };
    let kept = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), unquote(v)))
        .collect();
    (kept, log)
}

/// The value of `name` after POSIX `sh` runs the assignment `line`.
#[allow(dead_code, reason = "tests/e2e/wire.rs runs whole command lists in sh")]
pub fn sh_reads(line: &str, name: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", &format!("{line}\nprintf '%s' \"${name}\"")])
        .env_clear()
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}
