//! The install side of the install tests (the E2E `install` module only): an HTTPS
//! server on 127.0.0.1 with a test CA that speaks the provider registry and
//! network mirror protocols, Terraform working directories with their own
//! CLI configuration and HOME, and the lock-file hashes computed
//! independently of Terraform.
//!
//! Protocol facts: shared/reference/distribution.md, from hashicorp/terraform
//! internal/getproviders (registry_client.go, http_mirror_source.go, hash.go).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::artifacts::*;
use crate::terraform::{Run, Terraform};

/// Provider namespace and type.
pub const NAMESPACE: &str = "clusterproxy";
/// Provider type.
pub const TYPE: &str = "clusterproxy";
/// The public registry host of the provider's source address.
pub const PUBLIC_HOST: &str = "registry.terraform.io";

/// The `zh:` lock-file hash of a zip: its SHA-256 in hex.
pub fn zh_hash(zip: &[u8]) -> String {
    format!("zh:{}", sha256_hex(zip))
}

/// The `h1:` lock-file hash of an unpacked provider package: Go's
/// `dirhash.Hash1`, the SHA-256 of the lines `hex(sha256(file))  name\n` for
/// every file below `dir` (slash-separated relative names, sorted), base64.
pub fn h1_hash(dir: &Path) -> String {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files);
    files.sort();
    let summary: String = files
        .iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(name)).expect("read package file");
            format!("{}  {name}\n", sha256_hex(&bytes))
        })
        .collect();
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, summary.as_bytes());
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
    )
}

fn collect_files(root: &Path, dir: &Path, files: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            collect_files(root, &path, files);
        } else {
            let relative = path.strip_prefix(root).expect("below root");
            files.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The `h1:` hash of a zip, computed over its contents unpacked by Info-ZIP
/// `unzip` (not by Terraform, nor by the Python that wrote it).
pub fn h1_hash_of_zip(zip: &Path) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    run_checked(
        Command::new("unzip")
            .arg("-q")
            .arg(zip)
            .arg("-d")
            .arg(dir.path()),
    );
    h1_hash(dir.path())
}

/// The hashes of the lock-file entry for `address` (e.g.
/// `registry.terraform.io/clusterproxy/clusterproxy`) in `lock_file`.
pub fn locked_hashes(lock_file: &str, address: &str) -> BTreeSet<String> {
    let header = format!("provider \"{address}\" {{");
    let start = lock_file
        .find(&header)
        .unwrap_or_else(|| panic!("no {header} in the lock file:\n{lock_file}"));
    let block = &lock_file[start..];
    let block = &block[..block.find("\n}").unwrap_or(block.len())];
    block
        .split('"')
        .filter(|part| part.starts_with("h1:") || part.starts_with("zh:"))
        .map(str::to_owned)
        .collect()
}

impl Release {
    /// The lock-file hashes a registry install must record, computed here:
    /// `h1:` of the unpacked zip and `zh:` of every SHA256SUMS line's file
    /// (Terraform trusts the whole signed list: package_authentication.go,
    /// `signatureAuthentication.AcceptableHashes`).
    pub fn registry_hashes(&self) -> BTreeSet<String> {
        let mut hashes = BTreeSet::from([h1_hash_of_zip(&self.zip())]);
        for suffix in [
            "manifest.json",
            &format!("{}_{}.zip", PLATFORM.0, PLATFORM.1),
        ] {
            hashes.insert(zh_hash(&self.asset_bytes(suffix)));
        }
        hashes
    }
}

/// One HTTP response.
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Content-Type header.
    pub content_type: &'static str,
    /// Body.
    pub body: Vec<u8>,
}

impl Response {
    /// 200 with a JSON body.
    pub fn json(value: &Value) -> Response {
        Response {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_vec(value).expect("JSON"),
        }
    }

    /// 200 with a binary body.
    pub fn bytes(body: Vec<u8>) -> Response {
        Response {
            status: 200,
            content_type: "application/octet-stream",
            body,
        }
    }
}

/// Answers the path of a GET request; `None` is a 404.
pub type Handler = dyn Fn(&str) -> Option<Response> + Send + Sync;

/// The test CA and a server certificate for `localhost` and 127.0.0.1.
pub struct TestTls {
    dir: tempfile::TempDir,
    config: Arc<rustls::ServerConfig>,
}

impl TestTls {
    /// A new CA and server certificate.
    pub fn new() -> TestTls {
        let ca_key = rcgen::KeyPair::generate().expect("CA key");
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA");
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "clusterproxy install test CA");
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
        ];
        let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).expect("CA cert");

        let key = rcgen::KeyPair::generate().expect("server key");
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .expect("server params");
        params
            .extended_key_usages
            .push(rcgen::ExtendedKeyUsagePurpose::ServerAuth);
        let cert = params.signed_by(&key, &ca).expect("server cert");

        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).expect("write CA");
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone(), ca.der().clone()],
                rustls_pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .expect("server TLS config");
        TestTls {
            dir,
            config: Arc::new(config),
        }
    }

    /// The CA certificate file for `SSL_CERT_FILE`.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }
}

/// An HTTPS/1.1 server on 127.0.0.1 that answers GET requests through a
/// handler and records the paths asked for. Stops when dropped.
pub struct HttpsServer {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HttpsServer {
    /// Starts serving on a free loopback port.
    pub fn start(tls: &TestTls, handler: Arc<Handler>) -> HttpsServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local addr").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let config = tls.config.clone();
        let thread = {
            let requests = requests.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (config, handler, requests) =
                        (config.clone(), handler.clone(), requests.clone());
                    std::thread::spawn(move || serve(stream, config, &*handler, &requests));
                }
            })
        };
        HttpsServer {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// `localhost:PORT`, the host part of a source address or URL.
    pub fn host(&self) -> String {
        format!("localhost:{}", self.port)
    }

    /// `https://localhost:PORT`.
    pub fn base_url(&self) -> String {
        format!("https://{}", self.host())
    }

    /// Paths requested so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for HttpsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serves one connection: one GET request, answered, then closed.
fn serve(
    stream: TcpStream,
    config: Arc<rustls::ServerConfig>,
    handler: &Handler,
    requests: &Mutex<Vec<String>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Ok(connection) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(connection, stream);
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        match tls.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > 64 * 1024 {
            return;
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut request_line = head.lines().next().unwrap_or_default().split(' ');
    let (method, target) = (request_line.next(), request_line.next().unwrap_or("/"));
    let path = target.split('?').next().unwrap_or(target).to_owned();
    requests.lock().unwrap().push(path.clone());
    let response = match method {
        Some("GET") => handler(&path),
        _ => None,
    }
    .unwrap_or(Response {
        status: 404,
        content_type: "text/plain",
        body: b"not found\n".to_vec(),
    });
    let reason = if response.status == 200 {
        "OK"
    } else {
        "Not Found"
    };
    let header = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    if tls.write_all(header.as_bytes()).is_ok() && tls.write_all(&response.body).is_ok() {
        tls.conn.send_close_notify();
        let _ = tls.flush();
    }
}

/// What a registry serves wrongly, to check that Terraform refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tamper {
    /// Everything as released.
    None,
    /// The zip has one byte changed (shasum and SHA256SUMS as released).
    Zip,
    /// The download response's `shasum` is wrong (zip and SHA256SUMS as released).
    Shasum,
    /// SHA256SUMS has the manifest's line changed after signing.
    SumsAfterSigning,
}

/// A handler for the provider registry protocol serving the assets of
/// `release` (below `/files/`) and announcing `key` as the signing key, at
/// `base_url` (the server's own URL, for absolute download URLs).
pub fn registry_handler(
    release: &Release,
    key: &GpgKey,
    base_url: String,
    tamper: Tamper,
) -> Arc<Handler> {
    registry_handler_for(
        &RegistryAssets {
            out: release.out(),
            platforms: vec![(PLATFORM.0.to_owned(), PLATFORM.1.to_owned())],
            public_armor: key.public_armor.clone(),
            key_id: key.key_id.clone(),
        },
        base_url,
        tamper,
    )
}

/// What a test registry serves: the release assets in `out` (named as
/// `scripts/release` names them) for `platforms`, signed by the key given.
pub struct RegistryAssets {
    /// The directory holding the zips, manifest, SHA256SUMS and signature.
    pub out: PathBuf,
    /// (os, arch) of every zip served.
    pub platforms: Vec<(String, String)>,
    /// The ASCII-armored public key announced as the signing key.
    pub public_armor: String,
    /// Its 16-hex-digit key ID.
    pub key_id: String,
}

/// A registry protocol handler for `assets` (below `/files/`); see
/// [`registry_handler`].
pub fn registry_handler_for(
    assets: &RegistryAssets,
    base_url: String,
    tamper: Tamper,
) -> Arc<Handler> {
    let out = assets.out.clone();
    let version = version().to_owned();
    let asset = |suffix: &str| format!("{ASSET_PREFIX}_{version}_{suffix}");
    let sums_name = asset("SHA256SUMS");
    // (os, arch, zip name, shasum) per platform.
    let platforms: Vec<(String, String, String, String)> = assets
        .platforms
        .iter()
        .map(|(os, arch)| {
            let name = asset(&format!("{os}_{arch}.zip"));
            let bytes = std::fs::read(out.join(&name)).expect("read zip");
            let shasum = if tamper == Tamper::Shasum {
                sha256_hex(b"not the zip")
            } else {
                sha256_hex(&bytes)
            };
            (os.clone(), arch.clone(), name, shasum)
        })
        .collect();
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(out.join(asset("manifest.json"))).expect("read manifest"),
    )
    .expect("manifest is JSON");
    let protocols = manifest["metadata"]["protocol_versions"].clone();
    let public_key = assets.public_armor.clone();
    let key_id = assets.key_id.clone();
    let prefix = format!("/v1/providers/{NAMESPACE}/{TYPE}/");
    Arc::new(move |path: &str| {
        if path == "/.well-known/terraform.json" {
            return Some(Response::json(&json!({"providers.v1": "/v1/providers/"})));
        }
        if let Some(file) = path.strip_prefix("/files/") {
            let mut bytes = std::fs::read(out.join(file)).ok()?;
            match tamper {
                Tamper::Zip if platforms.iter().any(|p| p.2 == file) => {
                    let middle = bytes.len() / 2;
                    bytes[middle] ^= 0x01;
                }
                Tamper::SumsAfterSigning if file == sums_name => {
                    // The second line (the manifest's, with one platform:
                    // the zip served stays right, so only the signature
                    // check can notice).
                    let line = bytes.iter().position(|&b| b == b'\n').expect("two lines") + 1;
                    bytes[line] = if bytes[line] == b'0' { b'1' } else { b'0' };
                }
                _ => {}
            }
            return Some(Response::bytes(bytes));
        }
        let rest = path.strip_prefix(&prefix)?;
        if rest == "versions" {
            let listed: Vec<Value> = platforms
                .iter()
                .map(|(os, arch, ..)| json!({"os": os, "arch": arch}))
                .collect();
            return Some(Response::json(&json!({"versions": [{
                "version": version,
                "protocols": protocols,
                "platforms": listed,
            }]})));
        }
        let (os, arch, zip_name, shasum) = platforms
            .iter()
            .find(|(os, arch, ..)| rest == format!("{version}/download/{os}/{arch}"))?;
        Some(Response::json(&json!({
            "protocols": protocols,
            "os": os,
            "arch": arch,
            "filename": zip_name,
            "download_url": format!("{base_url}/files/{zip_name}"),
            "shasums_url": format!("{base_url}/files/{sums_name}"),
            "shasums_signature_url": format!("{base_url}/files/{sums_name}.sig"),
            "shasum": shasum,
            "signing_keys": {"gpg_public_keys": [{
                "key_id": key_id,
                "ascii_armor": public_key,
            }]},
        })))
    })
}

/// A handler serving the files below `root` at `/PREFIX/...` as a network
/// mirror does (a static tree, as `terraform providers mirror` writes it):
/// `.json` files as application/json, others as octet-stream.
pub fn static_handler(root: PathBuf, prefix: &'static str) -> Arc<Handler> {
    Arc::new(move |path: &str| {
        let relative = path.strip_prefix(prefix)?;
        if relative
            .split('/')
            .any(|part| part == ".." || part.is_empty())
        {
            return None;
        }
        let bytes = std::fs::read(root.join(relative)).ok()?;
        Some(if relative.ends_with(".json") {
            Response {
                status: 200,
                content_type: "application/json",
                body: bytes,
            }
        } else {
            Response::bytes(bytes)
        })
    })
}

/// A Terraform working directory with its own CLI configuration, HOME and
/// trusted CA; no `dev_overrides`. Network access other than loopback goes
/// to a closed proxy port.
pub struct InstallDir {
    dir: tempfile::TempDir,
    tf: Terraform,
    ca_file: PathBuf,
}

impl InstallDir {
    /// An empty working directory whose CLI configuration is `cli_config`.
    pub fn new(tf: &Terraform, tls: &TestTls, cli_config: &str) -> InstallDir {
        let dir = tempfile::Builder::new()
            .prefix("clusterproxy-install-")
            .tempdir()
            .expect("temp dir");
        for sub in ["work", "home"] {
            std::fs::create_dir(dir.path().join(sub)).expect("create dir");
        }
        std::fs::write(dir.path().join("cli.tfrc"), cli_config).expect("write CLI config");
        InstallDir {
            dir,
            tf: tf.clone(),
            ca_file: tls.ca_file(),
        }
    }

    /// The directory Terraform runs in.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// A scratch directory next to the working directory.
    pub fn scratch(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(&path).expect("create scratch dir");
        path
    }

    /// Writes `examples/quickstart/main.tf` into the working directory, with
    /// `source` as the provider source address; returns the text written.
    pub fn write_quickstart(&self, source: &str) -> String {
        let text = std::fs::read_to_string(repo_path("examples/quickstart/main.tf"))
            .expect("read quickstart");
        let original = format!("source = \"{PUBLIC_HOST}/{NAMESPACE}/{TYPE}\"");
        assert!(text.contains(&original), "quickstart has no {original}");
        let text = text.replace(&original, &format!("source = \"{source}\""));
        std::fs::write(self.path().join("main.tf"), &text).expect("write main.tf");
        text
    }

    /// The environment every command here runs with.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let home = self.dir.path().join("home");
        vec![
            ("HOME", home.display().to_string()),
            (
                "TF_CLI_CONFIG_FILE",
                self.dir.path().join("cli.tfrc").display().to_string(),
            ),
            ("SSL_CERT_FILE", self.ca_file.display().to_string()),
            (
                "SSL_CERT_DIR",
                self.dir.path().join("no-certs").display().to_string(),
            ),
            ("TF_IN_AUTOMATION", "1".into()),
            ("TF_INPUT", "0".into()),
            ("CHECKPOINT_DISABLE", "1".into()),
            ("TF_REGISTRY_DISCOVERY_RETRY", "0".into()),
            // Go never proxies loopback; anything else hits a closed port.
            ("HTTPS_PROXY", "http://127.0.0.1:9".into()),
            ("HTTP_PROXY", "http://127.0.0.1:9".into()),
            ("NO_PROXY", String::new()),
        ]
    }

    /// Runs `terraform ARGS...` in the working directory.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut command = Command::new(&self.tf.path);
        match args.split_first() {
            // `providers lock|mirror` take no -no-color (and print no colour).
            Some((&"providers", _)) => command.args(args),
            Some((subcommand, rest)) => command.arg(subcommand).arg("-no-color").args(rest),
            None => &mut command,
        };
        self.run_command(command.current_dir(self.path()))
    }

    /// Runs `command` with this directory's environment.
    pub fn run_command(&self, command: &mut Command) -> Run {
        for name in [
            "TF_PLUGIN_CACHE_DIR",
            "TF_LOG",
            "TF_LOG_PATH",
            "TF_REATTACH_PROVIDERS",
            "TF_DATA_DIR",
            "TF_DISABLE_PLUGIN_TLS",
        ] {
            command.env_remove(name);
        }
        command.envs(self.env());
        Run::from_output(command.output().expect("spawn"))
    }

    /// Runs `terraform ARGS...` in this installation directory; panics
    /// unless it exits 0.
    pub fn run_ok(&self, args: &[&str]) -> Run {
        self.run(args).expect_ok(args, &self.tf.version_string())
    }

    /// The lock file's text.
    pub fn lock_file(&self) -> String {
        std::fs::read_to_string(self.path().join(".terraform.lock.hcl")).expect("read lock file")
    }

    /// Plans and applies the quickstart written by [`Self::write_quickstart`]
    /// with the installed provider, and checks the merged NO_PROXY it
    /// computed from `terraform show -json`.
    pub fn plan_apply_quickstart(&self) {
        self.run_ok(&["plan", "-out=tfplan"]);
        let plan: Value = serde_json::from_str(&self.run_ok(&["show", "-json", "tfplan"]).stdout)
            .expect("plan JSON");
        let planned = &plan["planned_values"]["outputs"]["no_proxy"]["value"];
        assert!(
            planned.as_str().is_some_and(
                |value| value.contains(".corp.example") && value.contains("192.168.0.0/16")
            ),
            "planned no_proxy on {}: {planned}",
            self.tf.version_string()
        );
        self.run_ok(&["apply", "-auto-approve", "tfplan"]);
        let state: Value =
            serde_json::from_str(&self.run_ok(&["show", "-json"]).stdout).expect("state JSON");
        assert_eq!(
            &state["values"]["outputs"]["no_proxy"]["value"],
            planned,
            "applied no_proxy differs from the plan on {}",
            self.tf.version_string()
        );
    }
}

/// The fenced block after `<!-- install-test: NAME -->` in the install
/// guide (docs/guides/install.md, "Installing").
pub fn install_guide_block(name: &str) -> String {
    let guide = std::fs::read_to_string(repo_path("docs/guides/install.md"))
        .expect("read the install guide");
    let marker = format!("<!-- install-test: {name} -->\n");
    let start = guide
        .find(&marker)
        .unwrap_or_else(|| panic!("docs/guides/install.md has no {marker:?}"))
        + marker.len();
    let rest = &guide[start..];
    let body = rest
        .strip_prefix("```")
        .and_then(|fenced| fenced.split_once('\n'))
        .map(|(_, body)| body)
        .unwrap_or_else(|| panic!("{marker:?} is not followed by a fenced block"));
    let end = body.find("```\n").expect("closed fenced block");
    body[..end].to_owned()
}

/// `program` as an absolute path: a bare name is looked up in PATH.
fn absolute_program(program: &Path) -> PathBuf {
    if program.components().count() > 1 || program.is_absolute() {
        return std::fs::canonicalize(program).expect("program path");
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{} not on PATH", program.display()))
}

/// The install guide's placeholders and their stand-ins in a test.
pub struct Placeholders {
    /// Replaces `/srv/terraform-mirror`.
    pub mirror_dir: PathBuf,
    /// Replaces `https://terraform-mirror.example.com` (no trailing slash).
    pub mirror_url: String,
}

impl Placeholders {
    /// `text` with the placeholders replaced.
    pub fn apply(&self, text: &str) -> String {
        text.replace(
            "/srv/terraform-mirror",
            &self.mirror_dir.display().to_string(),
        )
        .replace("https://terraform-mirror.example.com", &self.mirror_url)
    }
}

impl InstallDir {
    /// Runs an install guide's shell block with bash (`set -euo pipefail`) in `dir`,
    /// with this directory's environment and `terraform` on PATH being the
    /// Terraform under test.
    pub fn run_script(&self, script: &str, dir: &Path, extra_env: &[(&str, &Path)]) -> Run {
        let bin = self.scratch("bin");
        let link = bin.join("terraform");
        if link.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(absolute_program(&self.tf.path), &link)
                .expect("link terraform");
        }
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("bash");
        command
            .args(["-euo", "pipefail", "-c", script])
            .current_dir(dir)
            .env("PATH", path);
        for (name, value) in extra_env {
            command.env(name, value);
        }
        let run = self.run_command(&mut command);
        assert_eq!(
            run.code,
            0,
            "install guide block failed on {}:\n{script}\n{}",
            self.tf.version_string(),
            run.combined()
        );
        run
    }
}
