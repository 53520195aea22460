//! Protocol tests of the go-plugin host, against the real binary: cookie
//! check, protocol negotiation, the handshake line as go-plugin parses it,
//! and AutoMTLS accepting only the pinned client certificate, on the unix
//! socket and on loopback TCP (go-plugin's `serverListener_tcp` port rules).

use crate::support;

use std::process::{Command, Stdio};
use std::time::Duration;

use clusterproxy::framework::plugin::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use rustls::pki_types::ServerName;
use support::{
    dial, spawn, spawn_with, terminate, terraform_like_client_cert, tls_client, Handshake, BINARY,
};

#[test]
fn refuses_to_run_without_the_magic_cookie() {
    let out = Command::new(BINARY)
        .env_remove(MAGIC_COOKIE_KEY)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Terraform provider plugin"));
    assert!(out.stdout.is_empty());
}

#[test]
fn refuses_protocols_other_than_6() {
    let out = Command::new(BINARY)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "4,5")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

/// Connects and completes the handshake, then reads: a refused client
/// certificate surfaces as an error at the latest on the first read (TLS 1.3
/// sends the alert after the client's Finished). False when no answer came
/// within 30 s.
async fn connects(network: &str, socket: &str, connector: tokio_rustls::TlsConnector) -> bool {
    let attempt = connects_now(network, socket, connector);
    tokio::time::timeout(std::time::Duration::from_secs(30), attempt)
        .await
        .unwrap_or(false)
}

async fn connects_now(network: &str, socket: &str, connector: tokio_rustls::TlsConnector) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(stream) = dial(network, socket).await else {
        return false;
    };
    let Ok(mut tls) = connector
        .connect(ServerName::try_from("localhost").unwrap(), stream)
        .await
    else {
        return false;
    };
    // HTTP/2 client preface and an empty SETTINGS frame; the server answers
    // with its SETTINGS when (and only when) it accepted us.
    let mut hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    hello.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    if tls.write_all(&hello).await.is_err() {
        return false;
    }
    let mut buf = [0u8; 9];
    matches!(
        tokio::time::timeout(std::time::Duration::from_secs(5), tls.read_exact(&mut buf)).await,
        Ok(Ok(_))
    )
}

/// The handshake line's certificate and fields, and AutoMTLS over what it
/// names: only the pinned client certificate gets in.
fn assert_handshake_and_pinned_mtls(handshake: &Handshake, der: Vec<u8>, key: Vec<u8>) {
    assert_eq!(handshake.versions_and_network[..2], ["1", "6"]);
    assert_eq!(handshake.protocol, "grpc");
    assert!(handshake.certificate.len() > 50 && !handshake.certificate.ends_with('='));
    let server_der = handshake.server_der();
    let (_, cert) = x509_parser::parse_x509_certificate(&server_der).unwrap();
    let san = cert.subject_alternative_name().unwrap().unwrap();
    assert!(format!("{:?}", san.value.general_names).contains("localhost"));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (network, socket) = (&handshake.versions_and_network[2], &handshake.address);
    let (_, other_der, other_key) = terraform_like_client_cert();
    runtime.block_on(async {
        assert!(
            connects(network, socket, tls_client(&server_der, Some((der, key)))).await,
            "pinned certificate refused"
        );
        assert!(
            !connects(network, socket, tls_client(&server_der, None)).await,
            "client without certificate accepted"
        );
        assert!(
            !connects(
                network,
                socket,
                tls_client(&server_der, Some((other_der, other_key)))
            )
            .await,
            "other certificate accepted"
        );
    });
}

#[test]
fn handshake_line_and_pinned_mtls() {
    let dir = tempfile::tempdir().unwrap();
    let (pem, der, key) = terraform_like_client_cert();
    let (mut child, line) = spawn(&pem, dir.path());
    let handshake = Handshake::parse(&line);
    assert_eq!(handshake.versions_and_network[2], "unix");
    assert!(handshake.address.starts_with(dir.path().to_str().unwrap()));
    assert_handshake_and_pinned_mtls(&handshake, der, key);
    terminate(&mut child);
    assert!(
        !std::path::Path::new(&handshake.address).exists(),
        "socket left behind"
    );
}

/// Over TCP the plugin listens on 127.0.0.1 at the first free port of
/// PLUGIN_MIN_PORT..=PLUGIN_MAX_PORT (here the first is taken), with the same
/// pinned mTLS, and closes the port when it stops.
#[test]
fn tcp_handshake_line_port_range_and_pinned_mtls() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let min = taken.local_addr().unwrap().port();
    let max = min + 20;
    let dir = tempfile::tempdir().unwrap();
    let (pem, der, key) = terraform_like_client_cert();
    let (mut child, line) = spawn_with(
        &pem,
        dir.path(),
        &[
            ("CLUSTERPROXY_PLUGIN_TRANSPORT", "tcp"),
            ("PLUGIN_MIN_PORT", &min.to_string()),
            ("PLUGIN_MAX_PORT", &max.to_string()),
        ],
        Stdio::null(),
    );
    let handshake = Handshake::parse(&line);
    assert_eq!(handshake.versions_and_network, ["1", "6", "tcp"]);
    let address: std::net::SocketAddr = handshake.address.parse().unwrap();
    assert_eq!(address.ip(), std::net::Ipv4Addr::LOCALHOST);
    assert!(
        (min + 1..=max).contains(&address.port()),
        "port {} outside {}..={max} or the taken one",
        address.port(),
        min + 1
    );
    assert_handshake_and_pinned_mtls(&handshake, der, key);
    terminate(&mut child);
    assert!(
        std::net::TcpStream::connect(address).is_err(),
        "port still open"
    );
    drop(taken);
}

/// Settings the TCP listener cannot use end the plugin with a message on
/// stderr and nothing on stdout: a range with its minimum above its maximum,
/// a port bound that is not a number, a range with no free port, and a
/// transport name that does not exist.
#[test]
fn bad_transport_settings_are_refused() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let cases: [(&[(&str, &str)], &str); 4] = [
        (
            &[("PLUGIN_MIN_PORT", "20001"), ("PLUGIN_MAX_PORT", "20000")],
            "PLUGIN_MIN_PORT value of 20001 is greater than PLUGIN_MAX_PORT value of 20000",
        ),
        (
            &[("PLUGIN_MIN_PORT", "ten"), ("PLUGIN_MAX_PORT", "20000")],
            "cannot get value from PLUGIN_MIN_PORT",
        ),
        (
            &[("PLUGIN_MIN_PORT", &port), ("PLUGIN_MAX_PORT", &port)],
            "cannot bind a plugin TCP listener",
        ),
        (
            &[("CLUSTERPROXY_PLUGIN_TRANSPORT", "pipe")],
            "CLUSTERPROXY_PLUGIN_TRANSPORT=\"pipe\" is not a transport",
        ),
    ];
    for (env, message) in cases {
        let out = Command::new(BINARY)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "6")
            .env("CLUSTERPROXY_PLUGIN_TRANSPORT", "tcp")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{env:?}: {stderr}");
        assert!(stderr.contains(message), "{env:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{env:?}");
    }
    drop(taken);
}

/// SIGTERM sent the moment the handshake line is read (as a host may do)
/// still ends the plugin cleanly: the handlers are in place before the line.
#[test]
fn sigterm_right_after_the_handshake_exits_cleanly() {
    for _ in 0..20 {
        let mut plugin = support::Plugin::start();
        terminate(&mut plugin.child);
        assert!(
            !std::path::Path::new(&plugin.socket).exists(),
            "socket left behind"
        );
    }
}

/// Starts the plugin as Terraform does, with `setup` run in the child before
/// exec (an fd limit, a umask); returns it with its handshake.
fn spawn_prepared(
    pem: &str,
    dir: &std::path::Path,
    transport: &str,
    setup: fn() -> std::io::Result<()>,
) -> (std::process::Child, Handshake) {
    use std::io::BufRead as _;
    use std::os::unix::process::CommandExt as _;
    let mut command = Command::new(BINARY);
    command
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_CLIENT_CERT", pem)
        .env("PLUGIN_UNIX_SOCKET_DIR", dir)
        .env("CLUSTERPROXY_PLUGIN_TRANSPORT", transport)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: `setup` makes one async-signal-safe system call.
    unsafe { command.pre_exec(setup) };
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    // Kept open, as Terraform keeps it: the plugin leaves when it closes.
    child.stdout = Some(stdout.into_inner());
    (child, Handshake::parse(&line))
}

/// A low fd limit, as `ulimit -n 48`.
fn low_fd_limit() -> std::io::Result<()> {
    fd_limit(48)
}

/// The common default fd limit, as `ulimit -n 1024`.
fn fd_limit_1024() -> std::io::Result<()> {
    fd_limit(1024)
}

/// `ulimit -n limit`, soft and hard.
fn fd_limit(limit: libc::rlim_t) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: plain system call on a valid struct.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A started plugin and the client certificate Terraform gave it.
struct Host {
    child: std::process::Child,
    handshake: Handshake,
    der: Vec<u8>,
    key: Vec<u8>,
    _dir: tempfile::TempDir,
}

impl Host {
    fn start(transport: &str, setup: fn() -> std::io::Result<()>) -> Host {
        let dir = tempfile::tempdir().unwrap();
        let (pem, der, key) = terraform_like_client_cert();
        let (child, handshake) = spawn_prepared(&pem, dir.path(), transport, setup);
        Host {
            child,
            handshake,
            der,
            key,
            _dir: dir,
        }
    }

    fn network(&self) -> &str {
        &self.handshake.versions_and_network[2]
    }

    /// A connector with Terraform's certificate, or with none.
    fn connector(&self, authenticated: bool) -> tokio_rustls::TlsConnector {
        let client = authenticated.then(|| (self.der.clone(), self.key.clone()));
        tls_client(&self.handshake.server_der(), client)
    }

    /// Whether an authenticated client gets an HTTP/2 answer now.
    async fn serves(&self) -> bool {
        connects(
            self.network(),
            &self.handshake.address,
            self.connector(true),
        )
        .await
    }

    /// An authenticated TLS connection held open, as Terraform's.
    async fn host_connection(&self) -> impl Send + use<> {
        let stream = dial(self.network(), &self.handshake.address).await.unwrap();
        self.connector(true)
            .connect(ServerName::try_from("localhost").unwrap(), stream)
            .await
            .expect("authenticated host")
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits (60 s at most) for the plugin to exit successfully.
    fn exits(&mut self) {
        let started = std::time::Instant::now();
        while self.running() {
            assert!(started.elapsed() < Duration::from_secs(60), "still running");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(self.child.wait().unwrap().success());
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs each transport test, a function of the transport, once per transport.
macro_rules! on_both_transports {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn unix() {
                super::$name("unix");
            }

            #[test]
            fn tcp() {
                super::$name("tcp");
            }
        }
    )*};
}

on_both_transports!(
    idle_and_garbage_connections_under_a_low_fd_limit_leave_it_serving,
    a_failed_handshake_before_the_host_does_not_become_the_host,
    an_idle_connection_does_not_keep_the_plugin_alive_after_the_host_left,
    terraform_is_served_at_once_behind_idle_and_slow_connections,
    a_slow_password_verifier_leaves_the_plugin_serving_and_stops_at_stop_provider,
    sigint_and_sigusr1_are_ignored_sighup_and_sigquit_stop_it,
    a_host_that_dies_early_leaves_no_plugin_behind,
);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// With `ulimit -n 48`, 80 idle connections (no TLS hello) and 20 sending
/// garbage, while Terraform's connection is open, neither end the plugin nor
/// keep a new authenticated client out, while they are open or after they
/// closed.
fn idle_and_garbage_connections_under_a_low_fd_limit_leave_it_serving(transport: &str) {
    use tokio::io::AsyncWriteExt as _;
    let mut plugin = Host::start(transport, low_fd_limit);
    runtime().block_on(async {
        let host = plugin.host_connection().await;
        let mut flood = Vec::new();
        for i in 0..100 {
            let dialled = tokio::time::timeout(
                Duration::from_secs(2),
                dial(plugin.network(), &plugin.handshake.address),
            )
            .await;
            if let Ok(Ok(mut socket)) = dialled {
                if i >= 80 {
                    let _ = socket.write_all(&[0x16, 3, 1, 0xff, 0xff, 0, 1, 2]).await;
                }
                flood.push(socket);
            }
        }
        assert!(plugin.serves().await, "refused while the flood is open");
        drop(flood);
        assert!(plugin.serves().await, "refused after the flood closed");
        drop(host);
    });
    assert!(plugin.running(), "the flood ended the plugin");
    terminate(&mut plugin.child);
}

/// Any local user can connect to the TCP port (the socket's owner to the
/// unix socket) and leave connections idle, or send a TLS handshake a byte at
/// a time. 128 and then 1,000 such connections opened ahead of Terraform's
/// neither delay it past 1 s nor keep it out (the plugin once let 16 finish
/// their 5 s handshake time first: 40 delayed Terraform 9.7 s, 128 made it
/// give up). Under a 1024 fd limit, the common default, so that the 1,000
/// are more than the plugin keeps in their handshake.
fn terraform_is_served_at_once_behind_idle_and_slow_connections(transport: &str) {
    use tokio::io::AsyncWriteExt as _;
    for ahead in [128, 1000] {
        let mut plugin = Host::start(transport, fd_limit_1024);
        runtime().block_on(async {
            let mut queued = Vec::new();
            for i in 0..ahead {
                let dialled = tokio::time::timeout(
                    Duration::from_secs(2),
                    dial(plugin.network(), &plugin.handshake.address),
                )
                .await;
                let Ok(Ok(mut socket)) = dialled else {
                    continue;
                };
                // Every other one starts a TLS record and stalls in it.
                if i % 2 == 1 {
                    let _ = socket.write_all(&[0x16, 3, 1, 0x02]).await;
                }
                queued.push(socket);
            }
            assert!(
                queued.len() * 10 >= ahead * 9,
                "only {} of {ahead} connections opened",
                queued.len()
            );
            let since = std::time::Instant::now();
            assert!(plugin.serves().await, "Terraform's connection was refused");
            let waited = since.elapsed();
            assert!(
                waited < Duration::from_secs(1),
                "{ahead} connections ahead delayed Terraform's by {waited:?}"
            );
            drop(queued);
        });
        assert!(plugin.running());
        terminate(&mut plugin.child);
    }
}

/// The first plan after an import checks the configured password against
/// the imported one's salted verifier, deliberately slow: here one with the
/// most iterations a stored verifier may ask for (seconds of CPU). While it
/// runs, GetMetadata is answered; StopProvider is answered and stops it, the
/// plan ending with "Provider stopped" after less than 1 s of the plugin's
/// CPU time (it ran to the end on the plugin's only worker, so StopProvider,
/// GetMetadata and SIGTERM waited for it).
fn a_slow_password_verifier_leaves_the_plugin_serving_and_stops_at_stop_provider(transport: &str) {
    use clusterproxy::framework::proto::{
        get_metadata, import_resource_state, plan_resource_change, stop_provider, DynamicValue,
    };
    use clusterproxy::framework::server::Server;
    use clusterproxy::framework::value::{msgpack, Value};
    use clusterproxy::provider::ClusterProxy;

    let dropin = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        dropin.path(),
        "[Service]\nEnvironment=\"HTTP_PROXY=http://build:imp0rted@proxy.corp.example:3128\"\n\
         Environment=\"HTTPS_PROXY=http://build:imp0rted@proxy.corp.example:3128\"\n",
    )
    .unwrap();
    let server = Server::new(&ClusterProxy);
    let ty = server.registry().resources()["clusterproxy_profile"]
        .schema
        .object_type();
    let mut plugin = support::Plugin::start_on(transport);
    let runtime = runtime();
    let mut client = runtime.block_on(plugin.provider());
    let mut imported = runtime
        .block_on(
            client.import_resource_state(import_resource_state::Request {
                type_name: "clusterproxy_profile".into(),
                id: format!("corp=systemd:file:{}", dropin.path().display()),
                ..Default::default()
            }),
        )
        .unwrap()
        .into_inner();
    assert!(
        imported.imported_resources.len() == 1,
        "{:?}",
        imported.diagnostics
    );
    let imported = imported.imported_resources.remove(0);
    let prior = imported.state.unwrap();
    let private = String::from_utf8(imported.private).unwrap();
    let slowest = private.replace("$600000$", "$6000000$");
    assert_ne!(private, slowest, "{private}");
    let mut config = msgpack::decode(&prior.msgpack, &ty).unwrap();
    config.set_attr("password", Value::string("an0ther"));
    let config = DynamicValue {
        msgpack: msgpack::encode(&config, &ty).unwrap(),
        json: Vec::new(),
    };
    let request = plan_resource_change::Request {
        type_name: "clusterproxy_profile".into(),
        prior_state: Some(prior),
        proposed_new_state: Some(config.clone()),
        config: Some(config),
        prior_private: slowest.into_bytes(),
        ..Default::default()
    };
    let mut planner = client.clone();
    let plan = runtime.spawn(async move { planner.plan_resource_change(request).await });
    // Busy in the plan's verifier: 300 ms of CPU beyond what the start and
    // the import's own verification took (under load, those alone can pass
    // 300 ms, and a stop sent before the plan's verifier runs stops nothing).
    let before = support::cpu_time(plugin.child.id());
    let busy = before + Duration::from_millis(300);
    let started = std::time::Instant::now();
    while support::cpu_time(plugin.child.id()) < busy {
        assert!(started.elapsed() < Duration::from_secs(60), "never busy");
        std::thread::sleep(Duration::from_millis(10));
    }
    runtime.block_on(async {
        client
            .get_metadata(get_metadata::Request {})
            .await
            .expect("GetMetadata during the verifier");
        assert!(
            !plan.is_finished(),
            "the verifier ended before GetMetadata was answered"
        );
        let stopped_at = support::cpu_time(plugin.child.id());
        let stop = client
            .stop_provider(stop_provider::Request {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!(stop.error, "");
        let planned = plan.await.unwrap().unwrap().into_inner();
        let spent = support::cpu_time(plugin.child.id()).saturating_sub(stopped_at);
        assert!(
            spent < Duration::from_secs(1),
            "{spent:?} of CPU after the stop"
        );
        assert!(planned.planned_state.is_none());
        assert_eq!(planned.diagnostics[0].summary, "Provider stopped");
    });
    terminate(&mut plugin.child);
}

/// A client refused by mTLS before Terraform connects is not taken for the
/// host: its close does not end the plugin, which then serves Terraform.
fn a_failed_handshake_before_the_host_does_not_become_the_host(transport: &str) {
    let mut plugin = Host::start(transport, || Ok(()));
    runtime().block_on(async {
        let network = plugin.network().to_owned();
        assert!(!connects(&network, &plugin.handshake.address, plugin.connector(false)).await);
        // Longer than the plugin waits for a new connection when its host left.
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert!(plugin.serves().await, "the plugin stopped");
    });
    assert!(plugin.running());
    terminate(&mut plugin.child);
}

/// An idle connection without TLS does not keep the plugin alive once
/// Terraform's connection closed: it exits before that connection's
/// handshake would time out. The host closes right after its handshake, which
/// races with the plugin's own start: with TLS 1.3 session tickets the
/// handshake failed (EPIPE) in about one run in four, and the host's
/// connection could be served and closed before the plugin began waiting for
/// its host to leave (about one run in 200). It runs 32 times.
fn an_idle_connection_does_not_keep_the_plugin_alive_after_the_host_left(transport: &str) {
    for _ in 0..32 {
        the_plugin_exits_once_the_host_left_an_idle_connection_open(transport);
    }
}

/// One run of [`an_idle_connection_does_not_keep_the_plugin_alive_after_the_host_left`].
fn the_plugin_exits_once_the_host_left_an_idle_connection_open(transport: &str) {
    let mut plugin = Host::start(transport, || Ok(()));
    let runtime = runtime();
    let idle = runtime.block_on(async {
        let host = plugin.host_connection().await;
        let idle = dial(plugin.network(), &plugin.handshake.address)
            .await
            .unwrap();
        drop(host);
        idle
    });
    let since = std::time::Instant::now();
    plugin.exits();
    assert!(
        since.elapsed() < clusterproxy::framework::plugin::HANDSHAKE_TIMEOUT,
        "the idle connection kept the plugin alive for {:?}",
        since.elapsed()
    );
    drop(idle);
}

/// Sends `signal` to the plugin.
fn kill(child: &std::process::Child, signal: &str) {
    Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
}

/// As go-plugin's server (and the Go runtime under it): SIGINT (a terminal's
/// Ctrl-C reaches the whole process group; Terraform stops its plugins over
/// gRPC) and SIGUSR1 leave the plugin serving; SIGHUP and SIGQUIT end it,
/// here cleanly, without leaving the socket file.
fn sigint_and_sigusr1_are_ignored_sighup_and_sigquit_stop_it(transport: &str) {
    let runtime = runtime();
    let mut plugin = Host::start(transport, || Ok(()));
    for signal in ["INT", "USR1", "INT"] {
        kill(&plugin.child, signal);
        assert!(
            runtime.block_on(plugin.serves()),
            "SIG{signal} ended the plugin"
        );
    }
    assert!(plugin.running());
    terminate(&mut plugin.child);
    for signal in ["HUP", "QUIT"] {
        let mut plugin = Host::start(transport, || Ok(()));
        assert!(runtime.block_on(plugin.serves()));
        kill(&plugin.child, signal);
        plugin.exits();
        if transport == "unix" {
            assert!(
                !std::path::Path::new(&plugin.handshake.address).exists(),
                "socket left behind after SIG{signal}"
            );
        }
    }
}

/// The unix socket is the owner's only (0600), whatever the umask.
#[test]
fn unix_socket_is_owner_only_under_umask_000() {
    use std::os::unix::fs::PermissionsExt as _;
    let mut plugin = Host::start("unix", || {
        // SAFETY: umask cannot fail.
        unsafe { libc::umask(0) };
        Ok(())
    });
    let mode = std::fs::metadata(&plugin.handshake.address)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    terminate(&mut plugin.child);
}

/// GRPCController.Shutdown during a long call ends the plugin and removes
/// its socket file.
#[test]
fn shutdown_during_long_work_removes_the_socket() {
    use clusterproxy::framework::plugin::services::Empty;
    for _ in 0..3 {
        let mut plugin = support::Plugin::start();
        let runtime = runtime();
        let mut client = runtime.block_on(plugin.provider());
        let destinations: Vec<String> = (0..500)
            .map(|i| format!("https://d-{i}.outside.example/"))
            .collect();
        let request =
            support::read_report_request_with(&support::mixed_entries(20_000), &destinations);
        runtime.spawn(async move { client.read_data_source(request).await });
        let started = std::time::Instant::now();
        while support::cpu_time(plugin.child.id()) < Duration::from_millis(600) {
            assert!(started.elapsed() < Duration::from_secs(60), "never busy");
            std::thread::sleep(Duration::from_millis(20));
        }
        runtime.block_on(async {
            let _ = plugin.controller().await.shutdown(Empty {}).await;
        });
        let status = plugin.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
        assert!(
            !std::path::Path::new(&plugin.socket).exists(),
            "socket left behind"
        );
    }
}

/// A `CERTIFICATE` PEM block that holds no certificate is refused up front,
/// like text that is not PEM.
#[test]
fn a_certificate_block_without_a_certificate_is_refused() {
    let pem = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n";
    let out = refused_start(pem);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("PLUGIN_CLIENT_CERT does not hold an X.509 certificate"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// How many hosts each early death runs: 20, and 300 in the soak tier
/// (`tier::repetitions`).
fn early_deaths() -> usize {
    crate::tier::repetitions(20, 300)
}

/// When a host dies, as far as its plugin can tell.
#[derive(Debug, Clone, Copy)]
enum Death {
    /// At once, before it read the handshake line.
    AtOnce,
    /// Right after reading the handshake line, before it connected.
    AfterTheLine,
    /// After sending half of its TLS ClientHello, the connection left open
    /// (the handshake would time out only after 5 s).
    MidTls,
}

/// A host that dies early (when go-plugin's client dies, the kernel closes
/// its ends of the plugin's stdout and stderr pipes, and its sockets) leaves
/// no plugin behind: for every [`Death`], each of [`early_deaths`] plugins
/// exits within 10 s of its host's death, and removes its socket file. (20 of
/// 20 once kept running after a death right after the line or mid-TLS: the
/// plugin waited for a first connection that completed TLS.) The plugins of
/// a case run 20 at a time.
fn a_host_that_dies_early_leaves_no_plugin_behind(transport: &str) {
    for death in [Death::AtOnce, Death::AfterTheLine, Death::MidTls] {
        let mut survivors = 0;
        let mut left = early_deaths();
        while left > 0 {
            let batch = left.min(20);
            survivors += plugins_outliving_their_host(transport, death, batch);
            left -= batch;
        }
        assert_eq!(
            survivors,
            0,
            "{death:?} on {transport}: {survivors} of {} plugins outlived their host by 10 s",
            early_deaths()
        );
    }
}

/// Starts `count` plugins, each with a host that dies as `death` says;
/// returns how many still ran 10 s after their host's death (killed then).
fn plugins_outliving_their_host(transport: &str, death: Death, count: usize) -> usize {
    use std::io::{BufRead as _, Write as _};
    const WITHIN: Duration = Duration::from_secs(10);
    let dir = tempfile::tempdir().unwrap();
    let (pem, ..) = terraform_like_client_cert();
    let mut plugins = Vec::new();
    let mut connections = Vec::new();
    for _ in 0..count {
        let mut child = Command::new(BINARY)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
            .env("PLUGIN_CLIENT_CERT", &pem)
            .env("PLUGIN_UNIX_SOCKET_DIR", dir.path())
            .env("CLUSTERPROXY_PLUGIN_TRANSPORT", transport)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let mut stdout = std::io::BufReader::new(stdout);
        if !matches!(death, Death::AtOnce) {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            if let Death::MidTls = death {
                let handshake = Handshake::parse(&line);
                let mut hello = Vec::new();
                let config = tls_client(&handshake.server_der(), None).config().clone();
                rustls::ClientConnection::new(config, ServerName::try_from("localhost").unwrap())
                    .unwrap()
                    .write_tls(&mut hello)
                    .unwrap();
                let half = &hello[..hello.len() / 2];
                let mut socket: Box<dyn std::io::Write> = match transport {
                    "unix" => Box::new(
                        std::os::unix::net::UnixStream::connect(&handshake.address).unwrap(),
                    ),
                    _ => Box::new(std::net::TcpStream::connect(&handshake.address).unwrap()),
                };
                socket.write_all(half).unwrap();
                connections.push(socket);
            }
        }
        drop((stdout, stderr));
        plugins.push((child, std::time::Instant::now()));
    }
    let mut survivors = 0;
    for (mut child, died) in plugins {
        while child.try_wait().unwrap().is_none() && died.elapsed() < WITHIN {
            std::thread::sleep(Duration::from_millis(10));
        }
        if child.try_wait().unwrap().is_none() {
            survivors += 1;
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    drop(connections);
    if survivors == 0 {
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(
            left.is_empty(),
            "{death:?}: socket files left behind: {left:?}"
        );
    }
    survivors
}

/// A plugin whose stdout and stderr are no pipes (a file, /dev/null: run
/// by hand, or under a supervisor) has no host's pipes to watch, and serves
/// as before.
#[test]
fn a_plugin_whose_output_is_no_pipe_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let (pem, der, key) = terraform_like_client_cert();
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(BINARY)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("PLUGIN_CLIENT_CERT", &pem)
        .env("PLUGIN_UNIX_SOCKET_DIR", dir.path())
        .stdin(Stdio::null())
        .stdout(out.reopen().unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let line = loop {
        let text = std::fs::read_to_string(out.path()).unwrap();
        if text.ends_with('\n') {
            break text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no handshake line"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let handshake = Handshake::parse(&line);
    let connector = tls_client(&handshake.server_der(), Some((der, key)));
    assert!(runtime().block_on(connects("unix", &handshake.address, connector)));
    assert!(child.try_wait().unwrap().is_none(), "the plugin left");
    terminate(&mut child);
}

/// A client certificate whose validity period is over, or has not begun,
/// is no credential: the plugin refuses to start with it, saying which and
/// what the period is, and writes no handshake line (it once served a
/// client presenting an expired one). The valid certificates of the other
/// tests are taken.
#[test]
fn a_client_certificate_outside_its_validity_is_refused() {
    let now = time::OffsetDateTime::now_utc();
    let day = time::Duration::days(1);
    let cases = [
        (
            now - 30 * day,
            now - day,
            "PLUGIN_CLIENT_CERT has expired: it is valid from ",
        ),
        (
            now + day,
            now + 30 * day,
            "PLUGIN_CLIENT_CERT is not valid yet: it is valid from ",
        ),
    ];
    for (not_before, not_after, message) in cases {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.not_before = not_before;
        params.not_after = not_after;
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let pem = params.self_signed(&key).unwrap().pem();
        let out = refused_start(&pem);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// Starts the plugin with `pem` as PLUGIN_CLIENT_CERT and waits for it to
/// give up: a plugin that took the certificate would serve until killed
/// (killed after 30 s, and the test fails).
fn refused_start(pem: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BINARY)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("PLUGIN_CLIENT_CERT", pem)
        .env("PLUGIN_UNIX_SOCKET_DIR", dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A plugin that accepted it would serve until killed.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the plugin took the certificate and kept serving");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}
