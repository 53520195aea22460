//! E2E install tests: `terraform init` installs the provider from the
//! artifacts `scripts/release` makes (as `make release` does), with real
//! Terraform 1.11 and 1.0.3 and no `dev_overrides`, through the provider
//! registry protocol, a network mirror and filesystem mirrors (packed and
//! unpacked); `terraform providers lock` and `providers mirror`; tampered
//! artifacts are refused. The install guide's mirror commands (docs/guides/install.md) run verbatim.
//! With the `release-check` feature (`make release-check`), `release_check`
//! proves the five-platform `dist/` of `make release-all`.

#[cfg(feature = "release-check")]
mod macho;
mod registry;
#[cfg(feature = "release-check")]
mod release_check;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::artifacts::*;
use crate::terraform::for_each_terraform;
use registry::*;

/// The provider address at the test registry.
fn registry_address(server: &HttpsServer) -> String {
    format!("{}/{NAMESPACE}/{TYPE}", server.host())
}

/// CLI configuration that installs everything directly from its origin
/// registry (the default, spelled out so no implied mirror is used).
const DIRECT_ONLY: &str = "provider_installation {\n  direct {}\n}\n";

#[test]
fn registry_protocol_install_records_verified_hashes() {
    let release = Release::shared();
    let expected = release.registry_hashes();
    for_each_terraform(|tf| {
        let tls = TestTls::new();
        let server = registry_server(&tls, &release, &release.key, Tamper::None);
        let work = InstallDir::new(tf, &tls, DIRECT_ONLY);
        let address = registry_address(&server);
        work.write_quickstart(&address);

        let init = work.run_ok(&["init"]);
        assert!(
            init.stdout
                .contains(&format!("key ID {}", release.key.key_id)),
            "init on {} does not report the signing key:\n{}",
            tf.version_string(),
            init.combined()
        );
        let requests = server.requests();
        for path in [
            "/.well-known/terraform.json".to_owned(),
            format!("/v1/providers/{NAMESPACE}/{TYPE}/versions"),
            format!(
                "/v1/providers/{NAMESPACE}/{TYPE}/{}/download/linux/amd64",
                version()
            ),
            format!("/files/{}", release.zip_name()),
            format!("/files/{}", release.asset_name("SHA256SUMS")),
            format!("/files/{}", release.asset_name("SHA256SUMS.sig")),
        ] {
            assert!(
                requests.contains(&path),
                "no request for {path} on {}: {requests:?}",
                tf.version_string()
            );
        }
        assert_eq!(
            locked_hashes(&work.lock_file(), &address),
            expected,
            "lock file hashes on {}",
            tf.version_string()
        );
        work.plan_apply_quickstart();

        // `terraform providers lock` against the registry records the same.
        let fresh = InstallDir::new(tf, &tls, DIRECT_ONLY);
        fresh.write_quickstart(&address);
        fresh.run_ok(&["providers", "lock", "-platform=linux_amd64"]);
        assert_eq!(
            locked_hashes(&fresh.lock_file(), &address),
            expected,
            "providers lock hashes on {}",
            tf.version_string()
        );
    });
}

/// A registry server for the assets of `release` that announces `key`.
fn registry_server(tls: &TestTls, release: &Release, key: &GpgKey, tamper: Tamper) -> HttpsServer {
    // The handler needs the server's URL, known once it listens: a slot
    // filled right after the start (no request arrives before init runs).
    let slot: Arc<OnceLock<Arc<Handler>>> = Arc::new(OnceLock::new());
    let handler: Arc<Handler> = {
        let slot = slot.clone();
        Arc::new(move |path: &str| slot.get().and_then(|handler| handler(path)))
    };
    let server = HttpsServer::start(tls, handler);
    let _ = slot.set(registry_handler(release, key, server.base_url(), tamper));
    server
}

#[test]
fn tampered_artifacts_are_refused() {
    let release = Release::shared();
    let foreign = release.copy();
    foreign.sign_with(&GpgKey::generate("stranger"));
    let cases: [(&Release, Tamper, &str); 4] = [
        (&release, Tamper::Zip, "archive has incorrect checksum"),
        (
            &release,
            Tamper::Shasum,
            "checksum list has unexpected SHA-256 hash",
        ),
        (
            &release,
            Tamper::SumsAfterSigning,
            "error checking signature",
        ),
        (
            &foreign,
            Tamper::None,
            "authentication signature from unknown issuer",
        ),
    ];
    for_each_terraform(|tf| {
        for (served, tamper, needle) in &cases {
            let tls = TestTls::new();
            // The registry announces the release's own key.
            let server = registry_server(&tls, served, &release.key, *tamper);
            let work = InstallDir::new(tf, &tls, DIRECT_ONLY);
            work.write_quickstart(&registry_address(&server));
            let run = work.run(&["init"]);
            let text = run.combined();
            assert!(
                run.code != 0 && text.contains(needle),
                "init with {tamper:?} (signed by {}) on {} did not fail with {needle:?}:\n{text}",
                served.key.key_id,
                tf.version_string()
            );
            assert!(
                !work
                    .path()
                    .join(".terraform/providers")
                    .join(server.host())
                    .exists()
                    || find_binaries(&work.path().join(".terraform/providers")).is_empty(),
                "a refused provider was installed on {}",
                tf.version_string()
            );
        }
    });
}

/// Provider binaries below `dir`.
fn find_binaries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                found.extend(find_binaries(&path));
            } else if path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with(ASSET_PREFIX))
            {
                found.push(path);
            }
        }
    }
    found
}

/// The provider's public source address, as examples/quickstart spells it.
fn public_address() -> String {
    format!("{PUBLIC_HOST}/{NAMESPACE}/{TYPE}")
}

/// CLI configuration that answers service discovery for the public
/// registry's host with the test registry (a `host` block), so the install guide's
/// commands, written for the public address, run unchanged.
fn public_registry_at(server: &HttpsServer) -> String {
    format!(
        "host \"{PUBLIC_HOST}\" {{\n  services = {{\n    \"providers.v1\" = \"{}/v1/providers/\"\n  }}\n}}\n",
        server.base_url()
    )
}

/// Runs the install guide's `providers mirror` block in a copy of the quickstart
/// against a test registry holding `release`; checks the mirror it wrote.
fn mirror_per_guide(
    tf: &crate::terraform::Terraform,
    tls: &TestTls,
    release: &Release,
    places: &Placeholders,
) {
    let registry = registry_server(tls, release, &release.key, Tamper::None);
    let work = InstallDir::new(tf, tls, &public_registry_at(&registry));
    work.write_quickstart(&public_address());
    work.run_script(
        &places.apply(&install_guide_block("mirror")),
        &work.path(),
        &[],
    );
    let dir = places
        .mirror_dir
        .join("providers")
        .join(PUBLIC_HOST)
        .join(NAMESPACE)
        .join(TYPE);
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).expect("index.json"))
            .expect("index JSON");
    assert_eq!(
        index,
        serde_json::json!({"versions": {version(): {}}}),
        "mirror index on {}",
        tf.version_string()
    );
    let zip = std::fs::read(dir.join(release.zip_name())).expect("mirrored zip");
    assert_eq!(
        zip,
        release.asset_bytes("linux_amd64.zip"),
        "mirrored zip differs"
    );
}

#[test]
fn network_mirror_per_guide() {
    let release = Release::shared();
    let h1 = h1_hash_of_zip(&release.zip());
    for_each_terraform(|tf| {
        let tls = TestTls::new();
        let root = tempfile::tempdir().expect("temp dir");
        let mirror = HttpsServer::start(&tls, static_handler(root.path().to_path_buf(), "/"));
        let places = Placeholders {
            mirror_dir: root.path().to_path_buf(),
            mirror_url: mirror.base_url(),
        };
        mirror_per_guide(tf, &tls, &release, &places);
        let version_json: serde_json::Value = serde_json::from_slice(
            &std::fs::read(
                root.path()
                    .join("providers")
                    .join(public_address())
                    .join(format!("{}.json", version())),
            )
            .expect("VERSION.json"),
        )
        .expect("VERSION.json is JSON");
        assert_eq!(
            version_json,
            serde_json::json!({"archives": {"linux_amd64": {
                "hashes": [h1],
                "url": release.zip_name(),
            }}}),
            "providers mirror wrote another {}.json on {}",
            version(),
            tf.version_string()
        );

        let work = InstallDir::new(
            tf,
            &tls,
            &places.apply(&install_guide_block("network-mirror-config")),
        );
        work.write_quickstart(&public_address());
        work.run_script(
            &places.apply(&install_guide_block("network-mirror-init")),
            &work.path(),
            &[],
        );
        let requests = mirror.requests();
        assert!(
            requests.contains(&format!("/providers/{}/index.json", public_address())),
            "the network mirror was not asked on {}: {requests:?}",
            tf.version_string()
        );
        assert_eq!(
            locked_hashes(&work.lock_file(), &public_address()),
            BTreeSet::from([h1.clone()]),
            "network mirror lock hashes on {}",
            tf.version_string()
        );
        work.plan_apply_quickstart();
    });
}

#[test]
fn filesystem_mirrors_per_guide() {
    let release = Release::shared();
    let h1 = h1_hash_of_zip(&release.zip());
    for_each_terraform(|tf| {
        let tls = TestTls::new();
        let root = tempfile::tempdir().expect("temp dir");
        let places = Placeholders {
            mirror_dir: root.path().to_path_buf(),
            mirror_url: "https://127.0.0.1:9".to_owned(),
        };
        // Packed: the zips `terraform providers mirror` wrote.
        mirror_per_guide(tf, &tls, &release, &places);
        let packed = InstallDir::new(
            tf,
            &tls,
            &places.apply(&install_guide_block("filesystem-mirror-config")),
        );
        packed.write_quickstart(&public_address());
        packed.run_script(
            &places.apply(&install_guide_block("filesystem-mirror-init")),
            &packed.path(),
            &[],
        );
        assert_eq!(
            locked_hashes(&packed.lock_file(), &public_address()),
            BTreeSet::from([h1.clone()]),
            "packed filesystem mirror lock hashes on {}",
            tf.version_string()
        );
        packed.plan_apply_quickstart();

        // Unpacked, from the release assets as downloaded, checked with gpg.
        let unpacked = InstallDir::new(
            tf,
            &tls,
            &places.apply(&install_guide_block("air-gapped-config")),
        );
        let downloads = unpacked.scratch("downloads");
        for suffix in ["linux_amd64.zip", "SHA256SUMS", "SHA256SUMS.sig"] {
            std::fs::copy(
                release.asset(suffix),
                downloads.join(release.asset_name(suffix)),
            )
            .expect("copy asset");
        }
        let gnupg = unpacked.scratch("gnupg");
        std::fs::set_permissions(&gnupg, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .expect("chmod GNUPGHOME");
        // The guide's key import, word for word but for the key: this
        // release's throwaway key stands in for the project's.
        std::fs::write(
            downloads.join("release-signing-key.asc"),
            &release.key.public_armor,
        )
        .expect("write key");
        let import = install_guide_block("import-key");
        assert!(
            import.contains(PUBLISHED_FINGERPRINT),
            "the guide's import-key block does not check {PUBLISHED_FINGERPRINT}"
        );
        unpacked.run_script(
            &import.replace(
                PUBLISHED_FINGERPRINT,
                &fingerprint(&release.key.public_armor),
            ),
            &downloads,
            &[("GNUPGHOME", &gnupg)],
        );
        let script = install_guide_block("air-gapped");
        assert!(
            script.contains(&format!("VERSION={}\n", version())),
            "the install guide's air-gapped VERSION is not {}",
            version()
        );
        unpacked.run_script(&places.apply(&script), &downloads, &[("GNUPGHOME", &gnupg)]);
        let binary_dir = root
            .path()
            .join("unpacked")
            .join(public_address())
            .join(version())
            .join("linux_amd64");
        assert_eq!(
            h1_hash(&binary_dir),
            h1,
            "unpacked tree and zip hash differently"
        );

        unpacked.write_quickstart(&public_address());
        unpacked.run_script(
            &places.apply(&install_guide_block("air-gapped-init")),
            &unpacked.path(),
            &[],
        );
        assert_eq!(
            locked_hashes(&unpacked.lock_file(), &public_address()),
            BTreeSet::from([h1.clone()]),
            "unpacked filesystem mirror lock hashes on {}",
            tf.version_string()
        );
        unpacked.plan_apply_quickstart();
    });
}

/// The release signing key's fingerprint as docs/guides/install.md gives it.
const PUBLISHED_FINGERPRINT: &str = "41C469FD16679E72166594403567671E87B074EC";

/// gpg's colon listing (`--with-colons`) of the keys in `armor`, imported
/// into no keyring.
fn key_listing(armor: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("key.asc");
    std::fs::write(&key, armor).expect("write key");
    let listing = run_checked(
        crate::tools::GPG
            .command()
            .arg("--homedir")
            .arg(dir.path())
            .args([
                "--batch",
                "--with-colons",
                "--import-options",
                "show-only",
                "--import",
            ])
            .arg(&key),
    );
    String::from_utf8_lossy(&listing.stdout).into_owned()
}

/// The fingerprint of the one public key in `armor`, read by gpg.
fn fingerprint(armor: &str) -> String {
    let fingerprints: Vec<String> = key_listing(armor)
        .lines()
        .skip_while(|line| !line.starts_with("pub:"))
        .filter(|line| line.starts_with("fpr:"))
        .take(1)
        .map(|line| line.split(':').nth(9).unwrap_or_default().to_owned())
        .collect();
    fingerprints.into_iter().next().expect("a public key")
}

/// Groups of four hex digits, two spaces in the middle, as `gpg --fingerprint` prints.
fn spaced(fingerprint: &str) -> String {
    let groups: Vec<&str> = (0..10).map(|i| &fingerprint[4 * i..4 * i + 4]).collect();
    format!("{}  {}", groups[..5].join(" "), groups[5..].join(" "))
}

#[test]
fn the_docs_name_the_published_signing_key_by_its_fingerprint() {
    let published = std::fs::read_to_string(repo_path("docs/release-signing-key.asc"))
        .expect("docs/release-signing-key.asc");
    assert!(
        published.contains("BEGIN PGP PUBLIC KEY BLOCK") && !published.contains("PRIVATE"),
        "docs/release-signing-key.asc is not one ASCII-armored public key"
    );
    assert_eq!(fingerprint(&published), PUBLISHED_FINGERPRINT);
    let guide = std::fs::read_to_string(repo_path("docs/guides/install.md")).expect("guide");
    let readme = std::fs::read_to_string(repo_path("README.md")).expect("README");
    for (name, text) in [("docs/guides/install.md", &guide), ("README.md", &readme)] {
        assert!(
            text.contains(&spaced(PUBLISHED_FINGERPRINT))
                && text.contains("release-signing-key.asc"),
            "{name} does not name the key file and its fingerprint {}",
            spaced(PUBLISHED_FINGERPRINT)
        );
    }
}

/// A PATH with only the programs scripts/install-release-tools needs to run
/// at all (no rustup, zig, mingw, wine, qemu or llvm). `python3` is the
/// interpreter itself, not a shim (pyenv's needs more than this PATH), so
/// the script's `python3 -m ziglang` runs.
fn bare_path(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("create bin");
    for program in ["bash", "dirname", "grep", "mkdir", "ln", "id"] {
        std::os::unix::fs::symlink(absolute_tool(program), bin.join(program)).expect("link");
    }
    let interpreter = run_checked(
        crate::tools::PYTHON3
            .command()
            .args(["-c", "import sys; print(sys.executable)"]),
    );
    let interpreter = String::from_utf8_lossy(&interpreter.stdout)
        .trim()
        .to_owned();
    std::os::unix::fs::symlink(interpreter, bin.join("python3")).expect("link");
    bin
}

/// `program` on PATH.
fn absolute_tool(program: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{program} not on PATH"))
}

/// A `ziglang` package in `tools` (what CLUSTERPROXY_RELEASE_TOOLS names)
/// whose `python3 -m ziglang version` prints `version`.
fn fake_ziglang(tools: &Path, version: &str) {
    let package = tools.join("python/ziglang");
    std::fs::create_dir_all(&package).expect("create package");
    std::fs::write(package.join("__init__.py"), "").expect("write __init__");
    std::fs::write(package.join("__main__.py"), format!("print({version:?})\n"))
        .expect("write __main__");
}

#[test]
fn release_all_without_cross_tools_names_the_package_per_target() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let bin = bare_path(scratch.path());
    // The one tool there is a zig of the version whose macOS links crash.
    fake_ziglang(&scratch.path().join("tools"), "0.15.1");
    let output = std::process::Command::new(bin.join("bash"))
        .arg(repo_path("scripts/install-release-tools"))
        .arg("--check")
        .env("PATH", &bin)
        .env("HOME", scratch.path())
        .env("CLUSTERPROXY_RELEASE_TOOLS", scratch.path().join("tools"))
        .output()
        .expect("spawn scripts/install-release-tools");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "--check passed without tools:\n{stderr}"
    );
    for (target, package) in [
        ("aarch64-unknown-linux-gnu", "cargo-zigbuild 0.24.0"),
        ("aarch64-unknown-linux-gnu", "ziglang==0.16.0"),
        ("aarch64-apple-darwin", "ziglang==0.16.0"),
        (
            "aarch64-unknown-linux-gnu",
            "Debian package qemu-user-static",
        ),
        (
            "aarch64-unknown-linux-gnu",
            "rustup target add aarch64-unknown-linux-gnu",
        ),
        ("x86_64-pc-windows-gnu", "Debian package mingw-w64"),
        ("x86_64-pc-windows-gnu", "Debian package wine"),
        ("x86_64-apple-darwin", "Debian package llvm-14"),
        ("aarch64-apple-darwin", "cargo-zigbuild 0.24.0"),
    ] {
        assert!(
            stderr.lines().any(
                |line| line.starts_with(&format!("release tools: {target} needs"))
                    && line.contains(package)
            ),
            "no line saying {target} needs {package}:\n{stderr}"
        );
    }
}

#[test]
fn release_all_without_a_signing_key_names_it_and_builds_nothing() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let out = scratch.path().join("dist");
    release_script_refuses_without_a_key(
        &[
            "all",
            "--version",
            version(),
            "--out",
            out.to_str().unwrap(),
        ],
        |stderr| {
            assert!(
                stderr.contains("nothing was built"),
                "release-all refused without saying nothing was built: {stderr}"
            );
            assert!(
                !out.exists(),
                "a refused release-all wrote {}",
                out.display()
            );
        },
    );
}
