//! A real proxy for the tests: Debian's squid 5.7 (installed by
//! scripts/install-test-tools) with basic authentication through
//! `/usr/lib/squid/basic_ncsa_auth`, one instance per test on a free loopback
//! port, and a loopback origin server for the destinations.
//!
//! Each [`Squid`] runs `squid -N -f CONF` as a child with its configuration,
//! password file, logs and pid file in a temporary directory (owned by `proxy`
//! when the tests run as root, as squid drops to that user). No disk cache, no
//! caching at all (`cache deny all`), no ICMP pinger, no netdb file; shutdown
//! waits for nothing. Dropping it kills squid and waits for it.
//!
//! Listeners: HTTP on 127.0.0.1 ([`Squid::start`]), HTTP on `[::1]`
//! ([`Squid::start_ipv6`]) and TLS on 127.0.0.1 ([`Squid::start_https`]:
//! Debian builds squid `--with-gnutls`, and `https_port` with `tls-cert=` and
//! `tls-key=` serves a certificate for `127.0.0.1`, `::1` and `localhost`
//! issued by a CA made here with rcgen).
//!
//! Squid resolves destination names itself, from a hosts file of its own
//! (and a DNS server on 127.0.0.1, where none listens: nothing leaves loopback):
//! `localhost` and [`ORIGIN_NAME`] are 127.0.0.1 there, so those names, and
//! `127.0.0.1` and `[::1]`, all reach the [`Origin`] through squid. Only
//! squid knows [`ORIGIN_NAME`], and it is no loopback name to a client (Go
//! sends requests for loopback names and addresses directly whatever the
//! environment says). Requests squid forwards reach the origin with squid's `Via`
//! header, so the origin tells a proxied request from a direct one too.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::tools;

/// How long squid may take to start listening.
const START_LIMIT: Duration = Duration::from_secs(30);
/// How long [`Squid::wait_until`] polls the access log.
const LOG_LIMIT: Duration = Duration::from_secs(10);

/// A destination name only squid resolves (to 127.0.0.1, where the [`Origin`] listens).
pub const ORIGIN_NAME: &str = "origin.wire.test";

/// Where a [`Squid`] listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listener {
    Http4,
    Http6,
    Https4,
}

/// One line of squid's access log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The user name the client sent (as squid logs it), `None` for `-`.
    pub user: Option<String>,
    /// The request method, e.g. `GET` or `CONNECT`.
    pub method: String,
    /// The request URL (`host:port` for `CONNECT`).
    pub url: String,
    /// The status squid answered, e.g. 200 or 407.
    pub status: u16,
}

/// A running squid, killed on drop.
pub struct Squid {
    child: Child,
    dir: tempfile::TempDir,
    listener: Listener,
    port: u16,
    ca_pem: Option<String>,
}

impl Squid {
    /// Squid with basic auth for `users` (name, password) on an HTTP port of
    /// 127.0.0.1; with no users, squid asks for no credentials.
    pub fn start(users: &[(&str, &str)]) -> Squid {
        Squid::launch(users, Listener::Http4)
    }

    /// Squid with basic auth for `users` on an HTTP port of `[::1]`.
    pub fn start_ipv6(users: &[(&str, &str)]) -> Squid {
        Squid::launch(users, Listener::Http6)
    }

    /// Squid with basic auth for `users` on a TLS port of 127.0.0.1 (an
    /// HTTPS proxy); its certificate's CA is [`Squid::ca_pem`].
    pub fn start_https(users: &[(&str, &str)]) -> Squid {
        Squid::launch(users, Listener::Https4)
    }

    /// The proxy URL without credentials, e.g. `http://127.0.0.1:40123` or `http://[::1]:40123`.
    pub fn url(&self) -> String {
        let scheme = match self.listener {
            Listener::Https4 => "https",
            Listener::Http4 | Listener::Http6 => "http",
        };
        format!("{scheme}://{}", self.authority())
    }

    /// `host:port` of the listener, e.g. `127.0.0.1:40123` or `[::1]:40123`.
    pub fn authority(&self) -> String {
        match self.listener {
            Listener::Http6 => format!("[::1]:{}", self.port),
            Listener::Http4 | Listener::Https4 => format!("127.0.0.1:{}", self.port),
        }
    }

    /// The PEM of the CA that issued the HTTPS listener's certificate (`None` for HTTP).
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// The access log so far, one entry per request, without the
    /// connections that sent none (the start-up probe's).
    pub fn access_log(&self) -> Vec<Access> {
        let text = std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default();
        text.lines()
            .map(parse_access)
            .filter(|access| access.url != "error:transaction-end-before-headers")
            .collect()
    }

    /// The access log once an entry satisfies `wanted`, or as it is after a
    /// bounded wait (the caller's assertion then says what is missing).
    pub fn wait_for(&self, wanted: impl Fn(&Access) -> bool) -> Vec<Access> {
        self.wait_until(|log| log.iter().any(&wanted))
    }

    /// The access log once it satisfies `done`, or as it is after a bounded
    /// wait (squid logs a transaction after the client may have its answer,
    /// and a `CONNECT` tunnel when it closes).
    pub fn wait_until(&self, done: impl Fn(&[Access]) -> bool) -> Vec<Access> {
        let deadline = Instant::now() + LOG_LIMIT;
        loop {
            let log = self.access_log();
            if done(&log) || Instant::now() > deadline {
                return log;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn launch(users: &[(&str, &str)], listener: Listener) -> Squid {
        require_tools();
        let dir = tempfile::Builder::new()
            .prefix("clusterproxy-squid-")
            .tempdir()
            .expect("create squid temp dir");
        write_password_file(&dir.path().join("passwords"), users);
        let ca_pem = (listener == Listener::Https4).then(|| write_tls_files(dir.path()));
        // A free port can be taken between probing and squid's bind: a few tries.
        for _ in 0..3 {
            let port = free_port(listener);
            write_config(dir.path(), listener, port, !users.is_empty());
            own_by_proxy(dir.path());
            let mut child = tools::SQUID
                .command()
                .arg("-N")
                .arg("-f")
                .arg(dir.path().join("squid.conf"))
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start `squid`: {e}"));
            if wait_listening(&mut child, listener, port) {
                return Squid {
                    child,
                    dir,
                    listener,
                    port,
                    ca_pem,
                };
            }
            stop(&mut child);
        }
        let log = std::fs::read_to_string(dir.path().join("cache.log")).unwrap_or_default();
        panic!("squid did not start listening; its cache.log:\n{log}");
    }
}

impl Drop for Squid {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// Polls until squid accepts connections on `port` (true) or exits or times out (false).
fn wait_listening(child: &mut Child, listener: Listener, port: u16) -> bool {
    let address: SocketAddr = match listener {
        Listener::Http6 => (Ipv6Addr::LOCALHOST, port).into(),
        Listener::Http4 | Listener::Https4 => (Ipv4Addr::LOCALHOST, port).into(),
    };
    let deadline = Instant::now() + START_LIMIT;
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Kills squid (its helpers exit at the end of their input) and reaps it.
fn stop(child: &mut Child) {
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// Fails with the missing tool's name when squid or its auth helper is absent.
fn require_tools() {
    tools::SQUID.path();
    tools::SQUID_NCSA_AUTH.path();
}

/// Writes `name:hash` lines; the hashes are SHA-256 crypt (`$5$`), which
/// basic_ncsa_auth checks through crypt(3) (libxcrypt).
fn write_password_file(path: &Path, users: &[(&str, &str)]) {
    let mut lines = String::new();
    for (name, password) in users {
        assert!(
            !name.contains([':', '\n']) && !password.contains('\n'),
            "a user name holds no ':' or newline and a password no newline"
        );
        let mut openssl = Command::new("openssl")
            .args(["passwd", "-5", "-stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run `openssl`: {e} (run scripts/install-test-tools)")
            });
        let mut stdin = openssl.stdin.take().unwrap();
        stdin.write_all(format!("{password}\n").as_bytes()).unwrap();
        drop(stdin);
        let output = openssl.wait_with_output().unwrap();
        assert!(output.status.success(), "openssl passwd failed");
        let hash = String::from_utf8(output.stdout).unwrap();
        lines.push_str(&format!("{name}:{}\n", hash.trim_end()));
    }
    std::fs::write(path, lines).unwrap();
}

/// A CA (its PEM) and a server certificate it issued (certificate, key).
struct Issued {
    ca_pem: String,
    cert: rcgen::Certificate,
    key: rcgen::KeyPair,
}

/// Makes a CA named `ca_name` and a server certificate for `names`.
fn issue(ca_name: &str, names: &[&str]) -> Issued {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, ca_name);
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let mut leaf = rcgen::CertificateParams::new(names).unwrap();
    leaf.distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    leaf.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    Issued {
        ca_pem: ca_cert.pem(),
        cert,
        key,
    }
}

/// Writes a server certificate for 127.0.0.1, ::1 and localhost and its
/// key; returns the PEM of the CA that issued it.
fn write_tls_files(dir: &Path) -> String {
    let issued = issue(
        "clusterproxy test proxy CA",
        &["localhost", "127.0.0.1", "::1"],
    );
    std::fs::write(dir.join("proxy.crt"), issued.cert.pem()).unwrap();
    std::fs::write(dir.join("proxy.key"), issued.key.serialize_pem()).unwrap();
    issued.ca_pem
}

/// Writes squid.conf and squid's hosts file; without `authenticated`, squid
/// asks for no credentials.
fn write_config(dir: &Path, listener: Listener, port: u16, authenticated: bool) {
    let d = dir.display();
    let port_line = match listener {
        Listener::Http4 => format!("http_port 127.0.0.1:{port}"),
        Listener::Http6 => format!("http_port [::1]:{port}"),
        Listener::Https4 => {
            format!("https_port 127.0.0.1:{port} tls-cert={d}/proxy.crt tls-key={d}/proxy.key")
        }
    };
    let access = if authenticated {
        let ncsa_auth = tools::SQUID_NCSA_AUTH.path();
        format!(
            "auth_param basic program {} {d}/passwords\n\
             auth_param basic children 2 startup=1\n\
             auth_param basic credentialsttl 1 seconds\n\
             acl authed proxy_auth REQUIRED\n\
             http_access allow authed\n\
             http_access deny all\n",
            ncsa_auth.display()
        )
    } else {
        "http_access allow all\n".to_owned()
    };
    let config = format!(
        "{port_line}\n\
         {access}\
         cache deny all\n\
         cache_mem 1 MB\n\
         logformat clusterproxy %>Hs %rm %ru %#un\n\
         access_log stdio:{d}/access.log logformat=clusterproxy\n\
         cache_log {d}/cache.log\n\
         cache_store_log none\n\
         pid_filename {d}/squid.pid\n\
         hosts_file {d}/hosts\n\
         dns_nameservers 127.0.0.1\n\
         coredump_dir {d}\n\
         netdb_filename none\n\
         pinger_enable off\n\
         visible_hostname clusterproxy-test-squid\n\
         shutdown_lifetime 0 seconds\n"
    );
    std::fs::write(dir.join("squid.conf"), config).unwrap();
    std::fs::write(
        dir.join("hosts"),
        format!("127.0.0.1 localhost {ORIGIN_NAME}\n::1 ip6-localhost\n"),
    )
    .unwrap();
}

/// Squid started as root runs as `proxy` and must write its logs and pid file.
fn own_by_proxy(dir: &Path) {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let status = Command::new("chown")
        .arg("-R")
        .arg("proxy:proxy")
        .arg(dir)
        .status()
        .expect("run chown");
    assert!(status.success(), "chown -R proxy:proxy {}", dir.display());
}

fn free_port(listener: Listener) -> u16 {
    let bound = match listener {
        Listener::Http6 => TcpListener::bind((Ipv6Addr::LOCALHOST, 0)),
        Listener::Http4 | Listener::Https4 => TcpListener::bind((Ipv4Addr::LOCALHOST, 0)),
    };
    bound
        .expect("bind a loopback port")
        .local_addr()
        .unwrap()
        .port()
}

/// Parses a line of the `clusterproxy` log format: the status squid
/// answered, the method, the URL and the user name URL-quoted (`-` for none).
fn parse_access(line: &str) -> Access {
    let fields: Vec<&str> = line.split(' ').collect();
    let [status, method, url, user] = fields.as_slice() else {
        panic!("unexpected access log line {line:?}");
    };
    let user = match *user {
        "-" => None,
        name => Some(
            percent_encoding::percent_decode_str(name)
                .decode_utf8()
                .expect("a UTF-8 user name")
                .into_owned(),
        ),
    };
    Access {
        user,
        method: (*method).to_owned(),
        url: (*url).to_owned(),
        status: status
            .parse()
            .unwrap_or_else(|_| panic!("no status in access log line {line:?}")),
    }
}

/// The body every [`Origin`] answers with, so a client's output shows it reached one.
pub const ORIGIN_BODY: &str = "clusterproxy-origin-ok";

/// One request an [`Origin`] received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival {
    /// The request target, e.g. `/path`.
    pub target: String,
    /// Whether it came through a proxy (it carries a `Via` header).
    pub via_proxy: bool,
}

/// A loopback HTTP/1.1 server answering every request with 200 and
/// [`ORIGIN_BODY`]: plain HTTP on 127.0.0.1 and `[::1]` on one port number,
/// and HTTPS on 127.0.0.1 (another port) with a certificate for
/// [`ORIGIN_NAME`], `localhost` and `127.0.0.1` issued by a CA of its own
/// ([`Origin::ca_file`]).
pub struct Origin {
    port: u16,
    tls_port: u16,
    ca: tempfile::NamedTempFile,
    arrivals: Arc<Mutex<Vec<Arrival>>>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Origin {
    /// Starts the server.
    pub fn start() -> Origin {
        // The same port on both loopback addresses, so `localhost` works whichever squid picks.
        let (v4, v6) = (0..20)
            .find_map(|_| {
                let v4 = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).ok()?;
                let port = v4.local_addr().ok()?.port();
                let v6 = TcpListener::bind((Ipv6Addr::LOCALHOST, port)).ok()?;
                Some((v4, v6))
            })
            .expect("a port free on 127.0.0.1 and ::1");
        let port = v4.local_addr().unwrap().port();
        let tls = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
        let tls_port = tls.local_addr().unwrap().port();
        let issued = issue(
            "clusterproxy test origin CA",
            &[ORIGIN_NAME, "localhost", "127.0.0.1"],
        );
        let ca = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(ca.path(), &issued.ca_pem).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![issued.cert.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(issued.key.serialize_der().into()),
            )
            .unwrap();
        let config = Arc::new(config);
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads: Vec<JoinHandle<()>> = [v4, v6]
            .into_iter()
            .map(|listener| {
                let (arrivals, stop) = (arrivals.clone(), stop.clone());
                std::thread::spawn(move || serve(&listener, &stop, |s| answer(s, &arrivals)))
            })
            .collect();
        let (tls_arrivals, tls_stop) = (arrivals.clone(), stop.clone());
        threads.push(std::thread::spawn(move || {
            serve(&tls, &tls_stop, |tcp| {
                let connection = rustls::ServerConnection::new(config.clone()).ok()?;
                let mut stream = rustls::StreamOwned::new(connection, tcp);
                answer(&mut stream, &tls_arrivals)?;
                stream.conn.send_close_notify();
                stream.flush().ok()
            })
        }));
        Origin {
            port,
            tls_port,
            ca,
            arrivals,
            stop,
            threads,
        }
    }

    /// `http://HOST:PORT/PATH` for a loopback `host` (`127.0.0.1`, `[::1]`, `localhost`).
    pub fn url(&self, host: &str, path: &str) -> String {
        format!(
            "http://{host}:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }

    /// `https://HOST:PORT/PATH` of the HTTPS listener, for `host`
    /// [`ORIGIN_NAME`] (through squid) or `localhost`/`127.0.0.1`.
    pub fn tls_url(&self, host: &str, path: &str) -> String {
        format!(
            "https://{host}:{}/{}",
            self.tls_port,
            path.trim_start_matches('/')
        )
    }

    /// A PEM file holding the CA of the HTTPS listener's certificate.
    pub fn ca_file(&self) -> &Path {
        self.ca.path()
    }

    /// The requests received so far.
    pub fn arrivals(&self) -> Vec<Arrival> {
        self.arrivals.lock().unwrap().clone()
    }
}

impl Drop for Origin {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake every accept loop.
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port));
        let _ = TcpStream::connect((Ipv6Addr::LOCALHOST, self.port));
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.tls_port));
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Accepts connections until `stop`, handing each to `handle` (bounded reads).
fn serve(listener: &TcpListener, stop: &AtomicBool, handle: impl Fn(TcpStream) -> Option<()>) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .is_ok()
        {
            handle(stream);
        }
    }
}

/// Reads one request head (bounded), records it, then answers 200 with
/// [`ORIGIN_BODY`] (recorded first, so a client that has its answer finds
/// its request in [`Origin::arrivals`]).
fn answer(mut stream: impl Read + Write, arrivals: &Mutex<Vec<Arrival>>) -> Option<()> {
    let mut reader = BufReader::new((&mut stream).take(64 * 1024));
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let target = request_line.split_whitespace().nth(1)?.to_owned();
    let mut via_proxy = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 || header.trim_end().is_empty() {
            break;
        }
        via_proxy |= header.to_ascii_lowercase().starts_with("via:");
    }
    drop(reader);
    arrivals.lock().unwrap().push(Arrival { target, via_proxy });
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ORIGIN_BODY}",
        ORIGIN_BODY.len()
    );
    stream.write_all(response.as_bytes()).ok()?;
    stream.flush().ok()
}
