//! Protocol tests of the go-plugin host, against the real binary: cookie
//! check, protocol negotiation, the handshake line as go-plugin parses it,
//! and AutoMTLS accepting only the pinned client certificate, on the unix
//! socket and on loopback TCP (go-plugin's `serverListener_tcp` port rules).

mod support;

use std::process::{Command, Stdio};

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
/// sends the alert after the client's Finished).
async fn connects(network: &str, socket: &str, connector: tokio_rustls::TlsConnector) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = dial(network, socket).await.unwrap();
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
