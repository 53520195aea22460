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
//! Squid resolves destination names itself, through /etc/hosts first:
//! `localhost`, `127.0.0.1` and `[::1]` destinations all reach the
//! [`Origin`]. Requests squid forwards reach the origin with squid's `Via`
//! header, so the origin tells a proxied request from a direct one too.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The basic-auth helper Debian's squid package ships.
const NCSA_AUTH: &str = "/usr/lib/squid/basic_ncsa_auth";
/// How long squid may take to start listening.
const START_LIMIT: Duration = Duration::from_secs(30);
/// How long [`Squid::wait_for`] polls the access log (squid logs a
/// transaction after the client may already have its answer).
const LOG_LIMIT: Duration = Duration::from_secs(10);

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
    /// Squid with basic auth for `users` (name, password) on an HTTP port of 127.0.0.1.
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
        let deadline = Instant::now() + LOG_LIMIT;
        loop {
            let log = self.access_log();
            if log.iter().any(&wanted) || Instant::now() > deadline {
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
            write_config(dir.path(), listener, port);
            own_by_proxy(dir.path());
            let mut child = Command::new("squid")
                .arg("-N")
                .arg("-f")
                .arg(dir.path().join("squid.conf"))
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start `squid`: {e} (run scripts/install-test-tools)")
                });
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
    let squid = Command::new("squid")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(
        matches!(squid, Ok(status) if status.success()),
        "`squid` is not installed: run scripts/install-test-tools"
    );
    assert!(
        Path::new(NCSA_AUTH).exists(),
        "{NCSA_AUTH} (squid's basic auth helper) is missing: run scripts/install-test-tools"
    );
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

/// Writes a CA and a server certificate for 127.0.0.1, ::1 and localhost;
/// returns the CA's PEM.
fn write_tls_files(dir: &Path) -> String {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "clusterproxy test proxy CA");
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let mut leaf = rcgen::CertificateParams::new(vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ])
    .unwrap();
    leaf.distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    leaf.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    std::fs::write(dir.join("proxy.crt"), cert.pem()).unwrap();
    std::fs::write(dir.join("proxy.key"), key.serialize_pem()).unwrap();
    ca_cert.pem()
}

fn write_config(dir: &Path, listener: Listener, port: u16) {
    let d = dir.display();
    let port_line = match listener {
        Listener::Http4 => format!("http_port 127.0.0.1:{port}"),
        Listener::Http6 => format!("http_port [::1]:{port}"),
        Listener::Https4 => {
            format!("https_port 127.0.0.1:{port} tls-cert={d}/proxy.crt tls-key={d}/proxy.key")
        }
    };
    let config = format!(
        "{port_line}\n\
         auth_param basic program {NCSA_AUTH} {d}/passwords\n\
         auth_param basic children 2 startup=1\n\
         auth_param basic credentialsttl 1 seconds\n\
         acl authed proxy_auth REQUIRED\n\
         http_access allow authed\n\
         http_access deny all\n\
         cache deny all\n\
         cache_mem 1 MB\n\
         access_log stdio:{d}/access.log\n\
         cache_log {d}/cache.log\n\
         cache_store_log none\n\
         pid_filename {d}/squid.pid\n\
         coredump_dir {d}\n\
         netdb_filename none\n\
         pinger_enable off\n\
         visible_hostname clusterproxy-test-squid\n\
         shutdown_lifetime 0 seconds\n"
    );
    std::fs::write(dir.join("squid.conf"), config).unwrap();
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

/// Parses a line of squid's native format: time, elapsed, client,
/// `code/status`, bytes, method, URL, user, hierarchy, type.
fn parse_access(line: &str) -> Access {
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert!(fields.len() >= 8, "unexpected access log line {line:?}");
    let status = fields[3]
        .rsplit('/')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in access log line {line:?}"));
    let user = match fields[7] {
        "-" => None,
        name => Some(
            percent_encoding::percent_decode_str(name)
                .decode_utf8_lossy()
                .into_owned(),
        ),
    };
    Access {
        user,
        method: fields[5].to_owned(),
        url: fields[6].to_owned(),
        status,
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
/// [`ORIGIN_BODY`], listening on 127.0.0.1 and `[::1]` on one port number.
pub struct Origin {
    port: u16,
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
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let threads = [v4, v6]
            .into_iter()
            .map(|listener| {
                let (arrivals, stop) = (arrivals.clone(), stop.clone());
                std::thread::spawn(move || serve(&listener, &arrivals, &stop))
            })
            .collect();
        Origin {
            port,
            arrivals,
            stop,
            threads,
        }
    }

    /// The port, the same on 127.0.0.1 and `[::1]`.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://HOST:PORT/PATH` for a loopback `host` (`127.0.0.1`, `[::1]`, `localhost`).
    pub fn url(&self, host: &str, path: &str) -> String {
        format!(
            "http://{host}:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }

    /// The requests received so far.
    pub fn arrivals(&self) -> Vec<Arrival> {
        self.arrivals.lock().unwrap().clone()
    }
}

impl Drop for Origin {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake both accept loops.
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port));
        let _ = TcpStream::connect((Ipv6Addr::LOCALHOST, self.port));
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn serve(listener: &TcpListener, arrivals: &Mutex<Vec<Arrival>>, stop: &AtomicBool) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if let Some(arrival) = answer(stream) {
            arrivals.lock().unwrap().push(arrival);
        }
    }
}

/// Reads one request head (bounded) and answers 200 with [`ORIGIN_BODY`].
fn answer(mut stream: TcpStream) -> Option<Arrival> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?.take(64 * 1024));
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
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ORIGIN_BODY}",
        ORIGIN_BODY.len()
    );
    stream.write_all(response.as_bytes()).ok()?;
    Some(Arrival { target, via_proxy })
}
