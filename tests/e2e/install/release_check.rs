//! `make release-check`: the assets `make release-all` wrote into `dist/`
//! (`CLUSTERPROXY_RELEASE_DIST`), proven with the real Terraform 1.15.5.
//! Built only with the `release-check` feature, so `make test` neither
//! builds these tests nor needs the cross tools.
//!
//! - linux_arm64 runs under qemu-user (`qemu-aarch64-static` with Debian's
//!   arm64 glibc), windows_amd64 under wine (the TCP transport, with a
//!   test-only `ProcessPrng` stub DLL that wine 8.0 lacks): each through a
//!   launcher in an unpacked filesystem mirror, the plugin directory
//!   Terraform starts it from; `examples/quickstart` is planned, applied and
//!   planned again (no changes).
//! - darwin_amd64 and darwin_arm64 are checked statically ([`super::macho`]).
//! - dist/ installs from a packed filesystem mirror and from a provider
//!   registry over HTTPS on loopback, Terraform verifying the signature
//!   against the published key (`docs/release-signing-key.asc`, or
//!   `CLUSTERPROXY_RELEASE_PUBLIC_KEY`); `terraform providers lock` writes one
//!   `h1:` per platform and the `zh:` of every zip.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use super::macho;
use super::registry::*;
use crate::artifacts::*;
use crate::terraform::{terraform_1_15, Terraform};

/// Every platform `make release-all` builds, as Terraform names them.
const PLATFORMS: [(&str, &str); 5] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("windows", "amd64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];

/// The release directory under test.
fn dist() -> PathBuf {
    let dir = std::env::var_os("CLUSTERPROXY_RELEASE_DIST")
        .map(PathBuf::from)
        .expect("CLUSTERPROXY_RELEASE_DIST must name the dist/ of `make release-all`");
    assert!(
        dir.join(asset_name("SHA256SUMS")).is_file(),
        "{} holds no {}: run `make release-all`",
        dir.display(),
        asset_name("SHA256SUMS")
    );
    dir
}

fn asset_name(suffix: &str) -> String {
    format!("{ASSET_PREFIX}_{}_{suffix}", version())
}

fn zip_of(os: &str, arch: &str) -> PathBuf {
    dist().join(asset_name(&format!("{os}_{arch}.zip")))
}

/// The binary of one platform's zip, unpacked by Info-ZIP into `dir`.
fn unpack(os: &str, arch: &str, dir: &Path) -> PathBuf {
    run_checked(
        Command::new("unzip")
            .arg("-q")
            .arg(zip_of(os, arch))
            .arg("-d")
            .arg(dir),
    );
    let member = format!(
        "{ASSET_PREFIX}_v{}{}",
        version(),
        if os == "windows" { ".exe" } else { "" }
    );
    let binary = dir.join(&member);
    assert!(binary.is_file(), "the {os}_{arch} zip holds no {member}");
    binary
}

/// The published signing key: its armor and its key ID.
fn published_key() -> (String, String) {
    let path = std::env::var_os("CLUSTERPROXY_RELEASE_PUBLIC_KEY")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_path("docs/release-signing-key.asc"));
    let armor = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("read {}: {err}", path.display()));
    let key_id = super::key_listing(&armor)
        .lines()
        .find(|line| line.starts_with("pub:"))
        .and_then(|line| line.split(':').nth(4))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{} holds no public key", path.display()));
    (armor, key_id)
}

/// The provider's source address in examples/quickstart.
fn public_address() -> String {
    format!("{PUBLIC_HOST}/{NAMESPACE}/{TYPE}")
}

/// A CLI configuration installing the provider from the filesystem mirror
/// at `dir` only.
fn filesystem_mirror(dir: &Path) -> String {
    format!(
        "provider_installation {{\n  filesystem_mirror {{\n    path    = \"{}\"\n    include = [\"{}\"]\n  }}\n  direct {{\n    exclude = [\"{}\"]\n  }}\n}}\n",
        dir.display(),
        public_address(),
        public_address()
    )
}

#[test]
fn dist_holds_five_platforms_signed_with_the_published_key() {
    let dist = dist();
    let sums = std::fs::read_to_string(dist.join(asset_name("SHA256SUMS"))).expect("SHA256SUMS");
    let mut expected: Vec<String> = PLATFORMS
        .iter()
        .map(|(os, arch)| asset_name(&format!("{os}_{arch}.zip")))
        .chain([asset_name("manifest.json")])
        .collect();
    expected.sort();
    let listed: Vec<String> = sums
        .lines()
        .map(|line| {
            let (sum, name) = line.split_once("  ").expect("sha256  name");
            assert_eq!(
                sum,
                sha256_hex(&std::fs::read(dist.join(name)).expect("listed file")),
                "{name}"
            );
            name.to_owned()
        })
        .collect();
    assert_eq!(listed, expected, "SHA256SUMS lists other files");
    let (armor, _) = published_key();
    let key = tempfile::tempdir().expect("temp dir");
    std::fs::write(key.path().join("key.asc"), armor).expect("write key");
    run_checked(
        crate::tools::GPG
            .command()
            .arg("--homedir")
            .arg(key.path())
            .args(["--batch", "--quiet", "--import"])
            .arg(key.path().join("key.asc")),
    );
    run_checked(
        crate::tools::GPG
            .command()
            .arg("--homedir")
            .arg(key.path())
            .args(["--batch", "--verify"])
            .arg(dist.join(asset_name("SHA256SUMS.sig")))
            .arg(dist.join(asset_name("SHA256SUMS"))),
    );
}

#[test]
fn macos_binaries_pass_the_static_check() {
    for (arch, cpu, signed) in [
        ("amd64", macho::CPU_TYPE_X86_64, false),
        ("arm64", macho::CPU_TYPE_ARM64, true),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let binary = unpack("darwin", arch, dir.path());
        let bytes = std::fs::read(&binary).expect("read binary");
        let parsed = macho::parse(&bytes)
            .unwrap_or_else(|err| panic!("darwin_{arch}: not a Mach-O executable: {err}"));
        let problems = macho::problems(&parsed, cpu, signed);
        assert!(
            problems.is_empty(),
            "darwin_{arch}: {problems:#?}\n{parsed:#?}"
        );
        // The checker is no yes-man: one flipped byte in the text is found.
        if let Some(signature) = &parsed.signature {
            let at = 3 * signature.page_size + 17;
            let mut changed = bytes.clone();
            changed[at] ^= 0x40;
            let again = macho::parse(&changed).expect("still a Mach-O");
            assert_eq!(
                again.signature.expect("signature").mismatched_pages,
                vec![3],
                "darwin_{arch}: a byte changed in page 3 of {} not found",
                signature.code_slots
            );
        }
    }
}

/// zig 0.15's Mach-O linker died of SIGSEGV, printing nothing, on aws-lc's
/// s2n-bignum objects (one symbol, several CFI procedures): the provider's
/// macOS links failed with an empty message. The zig that
/// scripts/install-release-tools pins links that shape, for both targets,
/// into a Mach-O the static checker passes.
#[test]
fn pinned_zig_links_one_symbol_with_two_cfi_procedures_for_macos() {
    let zig_packages = crate::tools::Tool {
        name: "ziglang (PyPI; scripts/install-release-tools)",
        env: None,
        location: crate::tools::Location::Tools("release/python"),
    }
    .path();
    let source = repo_path("tests/e2e/install/darwin/two_procedures.S");
    for (arch, cpu, signed) in [
        ("aarch64", macho::CPU_TYPE_ARM64, true),
        ("x86_64", macho::CPU_TYPE_X86_64, false),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("two_procedures");
        let link = crate::tools::PYTHON3
            .command()
            .args(["-m", "ziglang", "cc", "-target"])
            .arg(format!("{arch}-macos.11.0-none"))
            .arg(&source)
            .arg("-o")
            .arg(&out)
            .env("PYTHONPATH", &zig_packages)
            .output()
            .expect("spawn python3 -m ziglang");
        assert!(
            link.status.success(),
            "zig cc for {arch}-macos: {:?}\n{}",
            link.status,
            String::from_utf8_lossy(&link.stderr)
        );
        let parsed = macho::parse(&std::fs::read(&out).expect("read output"))
            .unwrap_or_else(|err| panic!("{arch}-macos: not a Mach-O executable: {err}"));
        let problems = macho::problems(&parsed, cpu, signed);
        assert!(
            problems.is_empty(),
            "{arch}-macos: {problems:#?}\n{parsed:#?}"
        );
    }
}

/// A launcher that Terraform starts as the plugin: `launcher` is the shell
/// text after `#!/bin/sh`, which `exec`s the foreign binary. Written into
/// an unpacked filesystem mirror below `mirror` as linux_amd64 (the
/// platform of the Terraform here).
fn write_launcher(mirror: &Path, launcher: &str) {
    let dir = mirror
        .join(public_address())
        .join(version())
        .join("linux_amd64");
    std::fs::create_dir_all(&dir).expect("create mirror dir");
    let path = dir.join(format!("{ASSET_PREFIX}_v{}", version()));
    std::fs::write(&path, format!("#!/bin/sh\n{launcher}")).expect("write launcher");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod launcher");
}

/// `sh` single-quoted.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// Installs the launcher's mirror with Terraform 1.15.5, then plans, applies
/// and plans again `examples/quickstart` (the second plan: no changes).
fn quickstart_through_launcher(tf: &Terraform, mirror: &Path, what: &str) {
    let tls = TestTls::new();
    let work = InstallDir::new(tf, &tls, &filesystem_mirror(mirror));
    work.write_quickstart(&public_address());
    work.run_ok(&["init"]);
    work.plan_apply_quickstart();
    let replan = work.run(&["plan", "-detailed-exitcode"]);
    assert_eq!(
        replan.code,
        0,
        "{what}: the plan after apply is not empty (exit {}):\n{}",
        replan.code,
        replan.combined()
    );
    assert!(
        replan.stdout.contains("No changes."),
        "{what}: {}",
        replan.combined()
    );
}

#[test]
fn linux_arm64_under_qemu_plans_applies_and_replans_the_quickstart() {
    let tf = terraform_1_15();
    let root = tempfile::tempdir().expect("temp dir");
    let binary = unpack("linux", "arm64", &root.path().join("arm64"));
    let elf = std::fs::read(&binary).expect("read binary");
    // ELF64, little-endian, e_machine EM_AARCH64 (183).
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "linux_arm64 is no ELF64 LE");
    assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), 183, "not aarch64");
    let qemu = crate::tools::Tool {
        name: "qemu-aarch64-static (Debian's qemu-user-static; scripts/install-release-tools)",
        env: None,
        location: crate::tools::Location::OnPath("qemu-aarch64-static"),
    }
    .path();
    let sysroot = Path::new("/usr/aarch64-linux-gnu");
    assert!(
        sysroot.join("lib/ld-linux-aarch64.so.1").exists(),
        "{} has no arm64 glibc: install libc6-arm64-cross (scripts/install-release-tools)",
        sysroot.display()
    );
    let mirror = root.path().join("mirror");
    write_launcher(
        &mirror,
        &format!(
            "exec {} -L {} {} \"$@\"\n",
            quoted(&qemu),
            quoted(sysroot),
            quoted(&binary)
        ),
    );
    quickstart_through_launcher(&tf, &mirror, "linux_arm64 under qemu");
}

/// The `ProcessPrng` stub, built once per test binary into its build output.
fn process_prng_stub() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wine-stub");
            std::fs::create_dir_all(&dir).expect("create stub dir");
            let gcc = crate::tools::Tool {
                name: "x86_64-w64-mingw32-gcc (Debian's mingw-w64; scripts/install-release-tools)",
                env: None,
                location: crate::tools::Location::OnPath("x86_64-w64-mingw32-gcc"),
            };
            run_checked(
                gcc.command()
                    .args(["-shared", "-O2", "-o"])
                    .arg(dir.join("bcryptprimitives.dll"))
                    .arg(repo_path("tests/e2e/install/wine/bcryptprimitives.c"))
                    .arg("-ladvapi32"),
            );
            dir
        })
        .clone()
}

/// A wine prefix of its own, its wineserver kept up while the test runs
/// and stopped when dropped.
struct WinePrefix {
    dir: tempfile::TempDir,
    wine: PathBuf,
}

impl WinePrefix {
    fn new() -> WinePrefix {
        let wine = crate::tools::Tool {
            name: "wine (Debian's wine; scripts/install-release-tools)",
            env: None,
            location: crate::tools::Location::OnPath("wine"),
        }
        .path();
        let prefix = WinePrefix {
            dir: tempfile::Builder::new()
                .prefix("wine-")
                .tempdir()
                .expect("temp dir"),
            wine,
        };
        // The prefix is made once, before Terraform's plugin start timeout runs.
        run_checked(prefix.command("wineboot").arg("-i"));
        prefix
    }

    /// The environment the launcher exports.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("WINEPREFIX", self.dir.path().display().to_string()),
            ("WINEDEBUG", "-all".to_owned()),
            ("WINEPATH", process_prng_stub().display().to_string()),
            (
                "WINEDLLOVERRIDES",
                "bcryptprimitives=n,b;mscoree=;mshtml=".to_owned(),
            ),
        ]
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(if program == "wine" {
            self.wine.clone()
        } else {
            PathBuf::from(program)
        });
        command.envs(self.env());
        command
    }
}

impl Drop for WinePrefix {
    fn drop(&mut self) {
        let _ = self.command("wineserver").arg("-k").output();
    }
}

#[test]
fn windows_amd64_under_wine_plans_applies_and_replans_the_quickstart() {
    let tf = terraform_1_15();
    let root = tempfile::tempdir().expect("temp dir");
    let binary = unpack("windows", "amd64", &root.path().join("windows"));
    let exe = std::fs::read(&binary).expect("read binary");
    // PE32+ for AMD64: "MZ", then at e_lfanew "PE\0\0" and machine 0x8664.
    assert_eq!(&exe[..2], b"MZ", "windows_amd64 is no PE file");
    let pe = u32::from_le_bytes(exe[0x3c..0x40].try_into().unwrap()) as usize;
    assert_eq!(&exe[pe..pe + 4], b"PE\0\0");
    assert_eq!(
        u16::from_le_bytes([exe[pe + 4], exe[pe + 5]]),
        0x8664,
        "not AMD64"
    );
    let prefix = WinePrefix::new();
    let exports: String = prefix
        .env()
        .iter()
        .map(|(name, value)| format!("export {name}={}\n", quoted(Path::new(value))))
        .collect();
    let mirror = root.path().join("mirror");
    write_launcher(
        &mirror,
        &format!(
            "{exports}exec {} {} \"$@\"\n",
            quoted(&prefix.wine),
            quoted(&binary)
        ),
    );
    quickstart_through_launcher(&tf, &mirror, "windows_amd64 under wine");
}

/// A packed filesystem mirror of every zip in dist/ (HOST/NAMESPACE/TYPE/ZIP).
fn packed_mirror(root: &Path) -> PathBuf {
    let dir = root.join(public_address());
    std::fs::create_dir_all(&dir).expect("create mirror dir");
    for (os, arch) in PLATFORMS {
        let zip = zip_of(os, arch);
        std::fs::copy(&zip, dir.join(zip.file_name().unwrap())).expect("copy zip");
    }
    root.to_path_buf()
}

fn lock_flags() -> Vec<String> {
    PLATFORMS
        .iter()
        .map(|(os, arch)| format!("-platform={os}_{arch}"))
        .collect()
}

fn h1_of_every_zip() -> BTreeSet<String> {
    PLATFORMS
        .iter()
        .map(|(os, arch)| h1_hash_of_zip(&zip_of(os, arch)))
        .collect()
}

#[test]
fn filesystem_mirror_of_dist_installs_and_locks_five_platforms() {
    let tf = terraform_1_15();
    let root = tempfile::tempdir().expect("temp dir");
    let mirror = packed_mirror(root.path());
    let tls = TestTls::new();
    let work = InstallDir::new(&tf, &tls, &filesystem_mirror(&mirror));
    work.write_quickstart(&public_address());
    work.run_ok(&["init"]);
    work.plan_apply_quickstart();

    let fresh = InstallDir::new(&tf, &tls, &filesystem_mirror(&mirror));
    fresh.write_quickstart(&public_address());
    let fs_mirror = format!("-fs-mirror={}", mirror.display());
    let mut args = vec!["providers", "lock", fs_mirror.as_str()];
    let flags = lock_flags();
    args.extend(flags.iter().map(String::as_str));
    fresh.run_ok(&args);
    assert_eq!(
        locked_hashes(&fresh.lock_file(), &public_address()),
        h1_of_every_zip(),
        "providers lock -fs-mirror with five platforms"
    );
}

#[test]
fn registry_serving_dist_verifies_the_signature_and_locks_five_zips() {
    let tf = terraform_1_15();
    let dist = dist();
    let (public_armor, key_id) = published_key();
    let assets = RegistryAssets {
        out: dist.clone(),
        platforms: PLATFORMS
            .iter()
            .map(|(os, arch)| (os.to_string(), arch.to_string()))
            .collect(),
        public_armor,
        key_id: key_id.clone(),
    };
    let tls = TestTls::new();
    let slot: Arc<OnceLock<Arc<Handler>>> = Arc::new(OnceLock::new());
    let handler: Arc<Handler> = {
        let slot = slot.clone();
        Arc::new(move |path: &str| slot.get().and_then(|handler| handler(path)))
    };
    let server = HttpsServer::start(&tls, handler);
    let _ = slot.set(registry_handler_for(
        &assets,
        server.base_url(),
        Tamper::None,
    ));
    let address = format!("{}/{NAMESPACE}/{TYPE}", server.host());
    let direct = "provider_installation {\n  direct {}\n}\n";

    // zh: of every line of the signed SHA256SUMS (the five zips, the manifest).
    let sums = std::fs::read_to_string(dist.join(asset_name("SHA256SUMS"))).expect("SHA256SUMS");
    let zh: BTreeSet<String> = sums
        .lines()
        .map(|line| format!("zh:{}", line.split_once("  ").expect("sha256  name").0))
        .collect();
    for (os, arch) in PLATFORMS {
        assert!(
            zh.contains(&zh_hash(&std::fs::read(zip_of(os, arch)).expect("zip"))),
            "no zh: for {os}_{arch}"
        );
    }

    let work = InstallDir::new(&tf, &tls, direct);
    work.write_quickstart(&address);
    let init = work.run_ok(&["init"]);
    assert!(
        init.stdout.contains(&format!("key ID {key_id}")),
        "init does not report the signing key {key_id}:\n{}",
        init.combined()
    );
    let mut expected = zh.clone();
    expected.insert(h1_hash_of_zip(&zip_of("linux", "amd64")));
    assert_eq!(locked_hashes(&work.lock_file(), &address), expected, "init");
    work.plan_apply_quickstart();

    let fresh = InstallDir::new(&tf, &tls, direct);
    fresh.write_quickstart(&address);
    let mut args = vec!["providers", "lock"];
    let flags = lock_flags();
    args.extend(flags.iter().map(String::as_str));
    fresh.run_ok(&args);
    let mut expected = zh;
    expected.extend(h1_of_every_zip());
    assert_eq!(
        locked_hashes(&fresh.lock_file(), &address),
        expected,
        "providers lock with five platforms"
    );
    for (os, arch) in PLATFORMS {
        assert!(
            server.requests().contains(&format!(
                "/files/{}",
                asset_name(&format!("{os}_{arch}.zip"))
            )),
            "the {os}_{arch} zip was not downloaded"
        );
    }
}
