//! Release artifacts for the install and release tests: made by
//! `scripts/release` from the provider binary cargo built for this test run,
//! signed with a throwaway GPG key. The install side (registry and mirror
//! server, Terraform working directories, lock-file hashes) is in
//! `tests/e2e/install/registry.rs`, which only the E2E `install` module uses.

use std::path::{Path, PathBuf};
use std::process::Command;

/// File name prefix of every release asset.
pub const ASSET_PREFIX: &str = "terraform-provider-clusterproxy";
/// The platform the tests package and install.
pub const PLATFORM: (&str, &str) = ("linux", "amd64");

/// The crate version, which `make release` uses.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Path under the crate root.
pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// Runs `command`, panicking with its output unless it exits 0.
pub fn run_checked(command: &mut Command) -> std::process::Output {
    let output = command
        .output()
        .unwrap_or_else(|err| panic!("spawn {command:?}: {err}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes)
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A GPG key made for one test (in a keyring that is gone afterwards).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GpgKey {
    /// The ASCII-armored secret key (what GPG_PRIVATE_KEY holds).
    pub secret_armor: String,
    /// The ASCII-armored public key.
    pub public_armor: String,
    /// The 16-hex-digit key ID Terraform reports.
    pub key_id: String,
}

impl GpgKey {
    /// A new RSA signing key without passphrase.
    pub fn generate(name: &str) -> GpgKey {
        let home = tempfile::Builder::new()
            .prefix("gnupg-")
            .tempdir()
            .expect("temp dir");
        let gpg = |args: &[&str]| {
            let output = run_checked(
                crate::tools::GPG
                    .command()
                    .arg("--homedir")
                    .arg(home.path())
                    .args(["--batch", "--quiet", "--pinentry-mode", "loopback"])
                    .args(args),
            );
            String::from_utf8(output.stdout).expect("gpg prints UTF-8")
        };
        let uid = format!("{name} <{name}@example.invalid>");
        gpg(&[
            "--passphrase",
            "",
            "--quick-gen-key",
            &uid,
            "rsa2048",
            "sign",
            "never",
        ]);
        let key = GpgKey {
            secret_armor: gpg(&["--armor", "--export-secret-keys"]),
            public_armor: gpg(&["--armor", "--export"]),
            key_id: gpg(&["--with-colons", "--list-keys"])
                .lines()
                .find(|line| line.starts_with("pub:"))
                .and_then(|line| line.split(':').nth(4))
                .expect("gpg lists the key")
                .to_owned(),
        };
        let _ = Command::new("gpgconf")
            .arg("--homedir")
            .arg(home.path())
            .args(["--kill", "gpg-agent"])
            .output();
        key
    }
}

/// Release artifacts made by `scripts/release` (as `make release` does) from
/// the provider binary cargo built for this test run.
pub struct Release {
    out: PathBuf,
    _temp: Option<tempfile::TempDir>,
    /// The signing key.
    pub key: GpgKey,
}

impl Release {
    /// The test binary (without debug info) packaged for linux_amd64,
    /// SHA256SUMS signed with a new key. Made once per binary, harness and
    /// `scripts/release`, and shared by the test processes
    /// through `CARGO_TARGET_TMPDIR`; never modify it: see [`Release::copy`].
    pub fn shared() -> Release {
        let binary = Path::new(env!("CARGO_BIN_EXE_terraform-provider-clusterproxy"));
        let meta = std::fs::metadata(binary).expect("provider binary");
        let modified = meta
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |age| age.as_nanos());
        let script = std::fs::read(repo_path("scripts/release")).expect("scripts/release");
        let harness = include_str!("mod.rs").as_bytes();
        let key = sha256_hex(
            format!(
                "{}-{modified}-{}-{}",
                meta.len(),
                sha256_hex(&script),
                sha256_hex(harness)
            )
            .as_bytes(),
        );
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("install-release");
        let done = root.join(&key[..16]);
        std::fs::create_dir_all(&root).expect("create cache dir");
        // One builder at a time; the others wait and then find it done.
        let lock = std::fs::File::create(root.join("lock")).expect("lock file");
        // SAFETY: flock on a file descriptor this function owns; released
        // when `lock` is closed.
        let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
        assert_eq!(locked, 0, "flock {}", root.display());
        if !done.join("key.json").is_file() {
            let building = tempfile::Builder::new()
                .prefix("building-")
                .tempdir_in(&root)
                .expect("temp dir");
            let release = Release::build_in(building.path().to_path_buf());
            std::fs::write(
                building.path().join("key.json"),
                serde_json::to_vec(&release.key).expect("key JSON"),
            )
            .expect("write key");
            std::fs::rename(building.keep(), &done).expect("publish the release");
            // Releases of older binaries are of no further use, nor builds
            // that a killed test process left behind.
            for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
                let name = entry.file_name();
                if name != done.file_name().unwrap() && entry.path().is_dir() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        drop(lock);
        let key = serde_json::from_slice(&std::fs::read(done.join("key.json")).expect("read key"))
            .expect("key JSON");
        Release {
            out: done.join("dist"),
            _temp: None,
            key,
        }
    }

    /// The binary [`Release::shared`] packaged (the test binary without debug info).
    #[allow(
        dead_code,
        reason = "tests/suite/release.rs checks the binary; the E2E binary does not"
    )]
    pub fn binary(&self) -> PathBuf {
        self.out.parent().expect("release dir").join(ASSET_PREFIX)
    }

    fn build_in(dir: PathBuf) -> Release {
        let release = Release {
            out: dir.join("dist"),
            _temp: None,
            key: GpgKey::generate("release"),
        };
        // Debug info is 85 of the debug binary's 110 MB; without it every
        // zip, download, unzip and hash below is four times cheaper, and the
        // code Terraform runs is the same.
        let binary = dir.join(ASSET_PREFIX);
        run_checked(
            crate::tools::STRIP
                .command()
                .arg("--strip-debug")
                .arg("-o")
                .arg(&binary)
                .arg(env!("CARGO_BIN_EXE_terraform-provider-clusterproxy")),
        );
        release_script(&[
            "package",
            "--binary",
            binary.to_str().unwrap(),
            "--target",
            "x86_64-unknown-linux-gnu",
            "--version",
            version(),
            "--out",
            release.out().to_str().unwrap(),
        ]);
        release.sign_with(&release.key.clone());
        release
    }

    /// A private copy of the assets, to sign again or change.
    pub fn copy(&self) -> Release {
        let temp = tempfile::Builder::new()
            .prefix("clusterproxy-release-")
            .tempdir()
            .expect("temp dir");
        let out = temp.path().join("dist");
        std::fs::create_dir(&out).expect("create dist");
        for entry in std::fs::read_dir(&self.out).expect("read dist") {
            let path = entry.expect("dir entry").path();
            std::fs::copy(&path, out.join(path.file_name().unwrap())).expect("copy asset");
        }
        Release {
            out,
            _temp: Some(temp),
            key: self.key.clone(),
        }
    }

    /// Signs (again) with `key`: rewrites manifest, SHA256SUMS and its signature.
    pub fn sign_with(&self, key: &GpgKey) {
        let out = self.out();
        release_script_with_key(
            &[
                "sign",
                "--version",
                version(),
                "--out",
                out.to_str().unwrap(),
            ],
            key,
        );
    }

    /// The directory holding the assets.
    pub fn out(&self) -> PathBuf {
        self.out.clone()
    }

    /// Asset name with `suffix` after `terraform-provider-clusterproxy_VERSION_`.
    pub fn asset_name(&self, suffix: &str) -> String {
        format!("{ASSET_PREFIX}_{}_{suffix}", version())
    }

    /// Path of an asset.
    pub fn asset(&self, suffix: &str) -> PathBuf {
        self.out().join(self.asset_name(suffix))
    }

    /// Bytes of an asset.
    pub fn asset_bytes(&self, suffix: &str) -> Vec<u8> {
        std::fs::read(self.asset(suffix)).expect("read asset")
    }

    /// Name of the zip for [`PLATFORM`].
    pub fn zip_name(&self) -> String {
        self.asset_name(&format!("{}_{}.zip", PLATFORM.0, PLATFORM.1))
    }

    /// Path of the zip for [`PLATFORM`].
    pub fn zip(&self) -> PathBuf {
        self.out().join(self.zip_name())
    }
}

/// Runs `scripts/release ARGS...`.
pub fn release_script(args: &[&str]) -> std::process::Output {
    run_checked(Command::new(repo_path("scripts/release")).args(args))
}

/// Runs `scripts/release ARGS...` with `key` in GPG_PRIVATE_KEY.
pub fn release_script_with_key(args: &[&str], key: &GpgKey) -> std::process::Output {
    run_checked(
        Command::new(repo_path("scripts/release"))
            .args(args)
            .env("GPG_PRIVATE_KEY", &key.secret_armor)
            .env_remove("GPG_PASSPHRASE"),
    )
}

/// Runs `scripts/release ARGS...` without GPG_PRIVATE_KEY, then with one
/// that holds no key: each run must fail with the message naming
/// GPG_PRIVATE_KEY; `check` then gets that run's stderr (for what else the
/// refusal must say, or must not have written).
pub fn release_script_refuses_without_a_key(args: &[&str], check: impl Fn(&str)) {
    for key in [None, Some("not a key")] {
        let mut command = Command::new(repo_path("scripts/release"));
        command.args(args);
        match key {
            Some(text) => command.env("GPG_PRIVATE_KEY", text),
            None => command.env_remove("GPG_PRIVATE_KEY"),
        };
        let output = command
            .output()
            .unwrap_or_else(|err| panic!("spawn {command:?}: {err}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success()
                && stderr.contains("GPG_PRIVATE_KEY must hold an ASCII-armored secret key"),
            "scripts/release {args:?} with GPG_PRIVATE_KEY={key:?}: {stderr}"
        );
        check(&stderr);
    }
}
