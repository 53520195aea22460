//! The renderers' output run by the programs that consume it: POSIX `sh`
//! (`export` lines, apply commands), systemd (`systemd-analyze verify`, the
//! manager's own `DefaultEnvironment=` parser), cloud-init's schema check,
//! `ignition-validate`, PyYAML (a YAML 1.1 reader, as go-yaml v2 under
//! kubectl), and a node's trust store update (the real
//! `update-ca-certificates` in a private mount namespace). The domain's unit
//! tests check the same renderers' pure logic with nothing but Rust; each
//! program here is found through `tools`.

use std::io::Write as _;
use std::process::{Command, Stdio};

use clusterproxy::domain::render::capi::testing::files_from_secret;
use clusterproxy::domain::render::capi::Capi;
use clusterproxy::domain::render::cloud_init::user_data;
use clusterproxy::domain::render::ignition::{config, Variant, TRUST_UNIT};
use clusterproxy::domain::render::shell::{exports, quote};
use clusterproxy::domain::render::systemd::{
    apply_commands, assignment, default_environment, dropin, LONG_LINE_MAX,
};
use clusterproxy::domain::render::trust::testing::ca_and_leaf;
use clusterproxy::domain::render::trust::{ca_file, OsFamily};
use clusterproxy::domain::render::yaml::testing::{document, tricky, RANDOM_STRING};
use clusterproxy::domain::render::yaml::to_string;
use clusterproxy::domain::render::{ProxySettings, Secrets};
use clusterproxy::domain::trusted_ca::TrustedCa;
use serde_json::Value;

use crate::systemd::systemd_parsed_environment;
use crate::tools;
use crate::upstream_schemas::{render_with, settings, PASSWORD};

/// The units the node renderers' tests give the settings.
fn units() -> Vec<String> {
    vec![
        "containerd.service".to_owned(),
        "kubelet.service".to_owned(),
    ]
}

/// [`settings`] with a fresh CA as `trusted_ca`, and a leaf it signed.
fn with_ca_and_leaf() -> (ProxySettings, String) {
    let (ca, leaf) = ca_and_leaf();
    let mut s = settings(false);
    s.trusted_ca = Some(TrustedCa::parse(&ca).unwrap());
    (s, leaf)
}

/// `sh -n` accepts `script`.
fn sh_parses(script: &str) {
    let check = tools::SH
        .command()
        .args(["-n", "-c", script])
        .status()
        .unwrap();
    assert!(check.success(), "sh -n rejects:\n{script}");
}

#[test]
fn exported_values_survive_a_real_shell() {
    let mut variables = settings(false).variables(Secrets::Include);
    // Raw values too: quotes, backslashes, `$`, spaces, `%`, a newline.
    variables.extend([
        ("RAW_PASSWORD", PASSWORD.to_owned()),
        ("RAW_QUOTES", r#"'' "" \' $(id) `id` ${HOME}"#.to_owned()),
        ("RAW_NEWLINE", "a\nb".to_owned()),
    ]);
    let script = exports(&variables).join("\n");
    sh_parses(&script);
    for (name, value) in &variables {
        let out = tools::SH
            .command()
            .args(["-c", &format!("{script}\nprintf '%s' \"${name}\"")])
            .env_clear()
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), *value, "{name}");
    }
    assert_eq!(quote(PASSWORD).matches(r"'\''").count(), 2);
}

/// The commands reach a real `systemctl` argv through `sh` as intended:
/// `--` first, the escape `\x2d` and `@` intact.
#[test]
fn commands_pass_unit_names_intact_through_sh() {
    let units = vec![
        r"foo\x2dbar.service".to_owned(),
        "getty@tty1.service".to_owned(),
        "containerd.service".to_owned(),
    ];
    let commands = apply_commands(&units, Some("update-ca-certificates"));
    assert_eq!(commands[0], "update-ca-certificates");
    assert_eq!(commands[1], "systemctl daemon-reload");
    let bin = tempfile::tempdir().unwrap();
    for tool in ["systemctl", "update-ca-certificates"] {
        let path = bin.path().join(tool);
        std::fs::write(
            &path,
            format!("#!/bin/sh\nprintf '{tool}'\nprintf ' <%s>' \"$@\"\necho\n"),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    let out = tools::SH
        .command()
        .args(["-c", &commands.join("\n")])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "update-ca-certificates <>\nsystemctl <daemon-reload>\nsystemctl <restart> <--> <foo\\x2dbar.service>\nsystemctl <restart> <--> <getty@tty1.service>\nsystemctl <restart> <--> <containerd.service>\n"
    );
}

/// systemd itself refuses a drop-in whose line reaches LONG_LINE_MAX and
/// loads one just below, where the renderer's check draws the line (the
/// domain's `line_limits`).
#[test]
fn line_limit_matches_systemd() {
    let line = |length: usize| {
        format!(
            "[Service]\nEnvironment=\"A={}\"\n",
            "a".repeat(length - "Environment=\"A=\"".len())
        )
    };
    let (pairs, log) = systemd_parsed_environment(&line(LONG_LINE_MAX - 1));
    assert_eq!(pairs.len(), 1, "{log}");
    let (pairs, _) = systemd_parsed_environment(&line(LONG_LINE_MAX));
    assert!(pairs.is_empty());
}

/// Values with every character that needs care in a systemd value.
const RAW_VALUES: [&str; 6] = [
    r#"a"b"#,
    r"c\d e",
    "$HOME 100% 'x'",
    "p%40ss %n %%",
    r#"\"quoted\" \\n"#,
    "trailing\\",
];

fn owned(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// systemd itself decodes the drop-in to exactly the intended values.
#[test]
fn systemd_analyze_decodes_the_intended_values() {
    let s = settings(false);
    let (pairs, log) = systemd_parsed_environment(
        &dropin(&s, "clusterproxy-test.service", Secrets::Include).content,
    );
    assert!(!log.contains("Failed to resolve specifiers"), "{log}");
    assert_eq!(pairs, owned(&s.variables(Secrets::Include)), "{log}");
}

/// Raw values with `"`, `\`, spaces, `$`, `'` and `%` (not only
/// percent-encoded URLs) come back unchanged from systemd.
#[test]
fn systemd_analyze_decodes_raw_values() {
    let names: Vec<String> = (0..RAW_VALUES.len()).map(|i| format!("V{i}")).collect();
    let content = names
        .iter()
        .zip(RAW_VALUES)
        .map(|(n, v)| format!("Environment={}\n", assignment(n, v)))
        .collect::<String>();
    let (pairs, log) = systemd_parsed_environment(&format!("[Service]\n{content}"));
    let want: Vec<(String, String)> = names
        .into_iter()
        .zip(RAW_VALUES.map(str::to_owned))
        .collect();
    assert_eq!(pairs, want, "{log}");
}

/// The manager's own parser (`systemd --test --user`, which reads
/// `$XDG_CONFIG_HOME/systemd/user.conf` with the code that reads
/// system.conf.d) decodes `DefaultEnvironment=`. Each name gets a `0`
/// prefix, which makes the assignment invalid, so that systemd logs the
/// decoded `0NAME=value` it ignores; the escaping of the values is untouched.
fn manager_decode(content: &str) -> (Vec<(String, String)>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("systemd")).unwrap();
    std::fs::write(dir.path().join("systemd/user.conf"), content).unwrap();
    for path in [dir.path().to_owned(), dir.path().join("systemd")] {
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    let systemd = tools::SYSTEMD.path();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    // systemd refuses test mode as root: drop to nobody when needed.
    let mut command = if root {
        let mut c = tools::SETPRIV.command();
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&systemd);
        c
    } else {
        Command::new(&systemd)
    };
    let out = command
        .args(["--test", "--user", "--no-pager"])
        .env("XDG_CONFIG_HOME", dir.path())
        .env("SYSTEMD_LOG_TARGET", "console")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let pairs = log
        .lines()
        .filter_map(|l| l.split_once("Invalid environment assignment, ignoring: 0"))
        .filter_map(|(_, kv)| kv.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    (pairs, log)
}

#[test]
fn systemd_manager_decodes_default_environment() {
    let s = settings(false);
    let content = default_environment(&s, Secrets::Include);
    let probe = s
        .variables(Secrets::Include)
        .iter()
        .fold(content.clone(), |c, (name, _)| {
            c.replace(&format!("\"{name}="), &format!("\"0{name}="))
        });
    let (pairs, log) = manager_decode(&probe);
    assert!(!log.contains("Failed to resolve specifiers"), "{log}");
    assert_eq!(pairs, owned(&s.variables(Secrets::Include)), "{log}");

    let raw: Vec<String> = RAW_VALUES
        .iter()
        .enumerate()
        .map(|(i, v)| assignment(&format!("0V{i}"), v))
        .collect();
    let (pairs, log) = manager_decode(&format!(
        "[Manager]\nDefaultEnvironment={}\n",
        raw.join(" ")
    ));
    let want: Vec<(String, String)> = RAW_VALUES
        .iter()
        .enumerate()
        .map(|(i, v)| (format!("V{i}"), (*v).to_owned()))
        .collect();
    assert_eq!(pairs, want, "{log}");
}

/// The CAPI inline commands pass `sh -n` and, run with `systemctl`
/// stubbed, export exactly the intended values (read back with `env`).
#[test]
fn pre_kubeadm_commands_export_the_values_in_a_real_shell() {
    let s = settings(false);
    let capi = Capi {
        units: units(),
        os: OsFamily::Debian,
        base64_content: false,
        cluster_name: None,
        namespace: "default".to_owned(),
    };
    let kubeadm = render_with(&capi, &s).kubeadm;
    let script = kubeadm.pre_kubeadm_commands.join("\n");
    sh_parses(&script);
    let out = tools::SH
        .command()
        .arg("-c")
        .arg(format!("systemctl() {{ :; }}\n{script}\nenv"))
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}");
    let env = String::from_utf8(out.stdout).unwrap();
    for (name, value) in s.variables(Secrets::Include) {
        let line = format!("{name}={value}");
        assert!(env.lines().any(|l| l == line), "{line} missing:\n{env}");
    }
}

/// The CAPI Secret variant, run in an isolated root with the files from the
/// Secret in place: the commands make the system trust the CA and give
/// kubeadm exactly the variables, restarting every unit but kubelet.
#[test]
fn capi_secret_variant_works_on_a_node() {
    let (s, leaf) = with_ca_and_leaf();
    let capi = Capi {
        units: vec![
            "containerd.service".to_owned(),
            "kubelet.service".to_owned(),
            r"foo\x2dbar@a_b.service".to_owned(),
        ],
        os: OsFamily::Debian,
        base64_content: false,
        cluster_name: Some("prod".to_owned()),
        namespace: "org-acme".to_owned(),
    };
    let config = render_with(&capi, &s);
    let manifest = config.secret_manifest.expect("the Secret variant");
    let files = files_from_secret(&config.kubeadm, &manifest);
    let script = format!("{}\nenv", config.kubeadm.pre_kubeadm_commands.join("\n"));
    let (before, after, log) = run_isolated(&files, &script, &leaf);
    assert!(!before && after, "{log}");
    for (name, value) in s.variables(Secrets::Include) {
        let line = format!("{name}={value}");
        assert!(log.lines().any(|l| l == line), "{line} missing:\n{log}");
    }
    assert!(
        log.contains("systemctl restart -- foo\\x2dbar@a_b.service"),
        "{log}"
    );
    assert!(!log.contains("systemctl restart -- kubelet"), "{log}");
}

/// The real `cloud-init schema` (Debian's cloud-init) accepts the document.
fn cloud_init_accepts(document: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("user-data");
    std::fs::write(&path, document).unwrap();
    let out = tools::CLOUD_INIT
        .command()
        .args(["schema", "--config-file"])
        .arg(&path)
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && log.contains("Valid"),
        "{log}\n{document}"
    );
}

#[test]
fn cloud_init_schema_accepts_the_user_data() {
    cloud_init_accepts(&user_data(
        &with_ca_and_leaf().0,
        &units(),
        OsFamily::Rhel,
        Secrets::Include,
    ));
    cloud_init_accepts(&user_data(
        &settings(false),
        &units(),
        OsFamily::Debian,
        Secrets::Redact,
    ));
}

/// The real cloud-init schema check fails on a document it must refuse,
/// so the check above can fail.
#[test]
#[should_panic(expected = "schema errors")]
fn cloud_init_schema_refuses_a_bad_document() {
    cloud_init_accepts("#cloud-config\nwrite_files:\n- permissions: 420\n  content: x\n");
}

/// What cloud-init does with the document, done for real in an isolated
/// root ([`run_isolated`]): the `write_files` entries written with their
/// permissions, then the `runcmd` commands run by `sh` with the real
/// `update-ca-certificates` (systemctl stubbed): a leaf the proxy CA signed
/// verifies afterwards and not before.
#[test]
fn cloud_init_files_and_commands_make_the_node_trust_the_ca() {
    let (s, leaf) = with_ca_and_leaf();
    let parsed: Value =
        serde_yaml_ng::from_str(&user_data(&s, &units(), OsFamily::Debian, Secrets::Include))
            .unwrap();
    let files: Vec<(String, String, String)> = parsed["write_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let field = |name: &str| f[name].as_str().unwrap().to_owned();
            (field("path"), field("content"), field("permissions"))
        })
        .collect();
    let script: Vec<&str> = parsed["runcmd"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let (before, after, log) = run_isolated(&files, &script.join("\n"), &leaf);
    assert!(!before && after, "{log}");
    assert!(
        log.contains("systemctl restart -- containerd.service"),
        "{log}"
    );
}

/// The real `ignition-validate` (Debian's ignition 2.14) on `config`:
/// whether it accepts it, and its report.
fn validate(config: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.ign");
    std::fs::write(&path, config).unwrap();
    let out = tools::IGNITION_VALIDATE
        .command()
        .arg(&path)
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), log)
}

#[test]
fn ignition_validate_accepts_every_variant() {
    for variant in [Variant::Flatcar, Variant::Fcos] {
        for s in [settings(false), with_ca_and_leaf().0] {
            for secrets in [Secrets::Include, Secrets::Redact] {
                let config = config(&s, &units(), variant, secrets);
                let (ok, log) = validate(&config);
                assert!(ok && !log.contains("warning"), "{log}\n{config}");
            }
        }
    }
    // The validator can fail: a mode as a string is refused.
    let (ok, _) = validate(
        r#"{"ignition":{"version":"3.3.0"},"storage":{"files":[{"path":"/a","mode":"0600"}]}}"#,
    );
    assert!(!ok);
}

/// Ignition's trust unit passes `systemd-analyze verify` (Flatcar's command
/// exists on the test host).
#[test]
fn ignition_trust_unit_passes_systemd_analyze() {
    let (s, _) = with_ca_and_leaf();
    let parsed: Value =
        serde_json::from_str(&config(&s, &units(), Variant::Flatcar, Secrets::Include)).unwrap();
    let unit = parsed["systemd"]["units"][0]["contents"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(TRUST_UNIT), unit).unwrap();
    let out = tools::SYSTEMD_ANALYZE
        .command()
        .args(["verify", "--man=no"])
        .arg(dir.path().join(TRUST_UNIT))
        .env("SYSTEMD_UNIT_PATH", format!("{}:", dir.path().display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        !log.contains(TRUST_UNIT) && !log.contains("nknown"),
        "{log}"
    );
}

/// Runs `script` as root in a private mount namespace where `/etc` and
/// `/usr/local/share/ca-certificates` are writable copies (the host's stay
/// untouched), with `systemctl` stubbed and `files` (path, content, mode)
/// written first. Whether the `leaf` certificate verified against the
/// system bundle before and after, and the script's output.
fn run_isolated(
    files: &[(String, String, String)],
    script: &str,
    leaf: &str,
) -> (bool, bool, String) {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("leaf.pem"), leaf).unwrap();
    let mut setup = String::new();
    for (index, (path, content, mode)) in files.iter().enumerate() {
        let source = work.path().join(format!("file{index}"));
        std::fs::write(&source, content).unwrap();
        setup.push_str(&format!(
            "mkdir -p \"$(dirname '{path}')\" && cp '{}' '{path}' && chmod {mode} '{path}'\n",
            source.display()
        ));
    }
    let openssl = tools::OPENSSL.path();
    let verify = format!(
        "'{}' verify -CAfile /etc/ssl/certs/ca-certificates.crt \"$WORK/leaf.pem\" >/dev/null 2>&1",
        openssl.display()
    );
    let stub = work.path().join("bin");
    std::fs::create_dir(&stub).unwrap();
    std::fs::write(stub.join("systemctl"), "#!/bin/sh\necho \"systemctl $*\"\n").unwrap();
    std::fs::set_permissions(
        stub.join("systemctl"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(work.path().join("rendered.sh"), script).unwrap();
    let outer = format!(
        r#"set -e
for d in /etc /usr/local/share/ca-certificates; do
  mkdir -p "$WORK/copy$d" "$d"
  cp -a "$d/." "$WORK/copy$d/"
  mount --bind "$WORK/copy$d" "$d"
done
{setup}
if {verify}; then echo BEFORE=ok; else echo BEFORE=fail; fi
PATH="$WORK/bin:$PATH" sh "$WORK/rendered.sh"
if {verify}; then echo AFTER=ok; else echo AFTER=fail; fi
"#
    );
    // The rendered commands run the real trust store update.
    tools::UPDATE_CA_CERTIFICATES.path();
    let out = tools::UNSHARE
        .command()
        .args(["--mount", "--propagation", "private", "sh", "-c", &outer])
        .env("WORK", work.path())
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    (log.contains("BEFORE=ok"), log.contains("AFTER=ok"), log)
}

/// The Debian file and command make `openssl verify` accept a leaf the CA
/// signed, which it refused before (isolated root, real
/// update-ca-certificates).
#[test]
fn debian_file_and_command_make_the_system_trust_the_ca() {
    let (ca, leaf) = ca_and_leaf();
    let bundle = TrustedCa::parse(&ca).unwrap();
    let file = ca_file(&bundle, OsFamily::Debian);
    let (before, after, log) = run_isolated(
        &[(
            file.path.to_owned(),
            file.content,
            file.permissions.to_owned(),
        )],
        OsFamily::Debian.trust_command(),
        &leaf,
    );
    assert!(!before && after, "{log}");
    assert!(
        !std::fs::read_to_string("/etc/ssl/certs/ca-certificates.crt")
            .unwrap_or_default()
            .contains(ca.lines().nth(1).unwrap()),
        "the host's bundle was touched"
    );
}

/// Reads `yaml` with PyYAML (a YAML 1.1 reader, as go-yaml v2 under
/// kubectl) and returns the value as JSON.
fn pyyaml(yaml: &str) -> Value {
    let mut child = tools::PYTHON3
        .command()
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))",
        ])
        .env("PYTHONPATH", tools::PYTHON_PACKAGES.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(yaml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "PyYAML rejects:\n{yaml}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The YAML 1.1 reader (PyYAML) reads back exactly the value written, as
/// the YAML 1.2 reader does (the domain's unit tests).
#[test]
fn yaml_1_1_reader_reads_back_every_tricky_string() {
    let value = document(&tricky());
    let yaml = to_string(&value);
    assert_eq!(pyyaml(&yaml), value, "{yaml}");
}

/// Random strings (YAML indicators, line breaks, words) read back unchanged
/// through PyYAML, in one batch.
#[test]
fn random_strings_read_back_in_pyyaml() {
    use proptest::strategy::{Strategy as _, ValueTree as _};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = proptest::collection::vec(RANDOM_STRING, 200..201);
    let strings = strategy.new_tree(&mut runner).unwrap().current();
    let value = document(&strings);
    let yaml = to_string(&value);
    assert_eq!(pyyaml(&yaml), value, "{yaml}");
}
