//! Protocol tests of the go-plugin host, against the real binary: cookie
//! check, protocol negotiation, the handshake line as go-plugin parses it,
//! and AutoMTLS accepting only the pinned client certificate.

mod support;

use std::process::Command;

use clusterproxy::framework::plugin::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use rustls::pki_types::ServerName;
use support::{spawn, terminate, terraform_like_client_cert, tls_client, Handshake, BINARY};

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
async fn connects(socket: &str, connector: tokio_rustls::TlsConnector) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::UnixStream::connect(socket).await.unwrap();
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

#[test]
fn handshake_line_and_pinned_mtls() {
    let dir = tempfile::tempdir().unwrap();
    let (pem, der, key) = terraform_like_client_cert();
    let (mut child, line) = spawn(&pem, dir.path());
    let handshake = Handshake::parse(&line);
    assert_eq!(handshake.versions_and_network, ["1", "6", "unix"]);
    assert!(handshake.address.starts_with(dir.path().to_str().unwrap()));
    assert_eq!(handshake.protocol, "grpc");
    assert!(handshake.certificate.len() > 50 && !handshake.certificate.ends_with('='));
    let server_der = handshake.server_der();
    let (_, cert) = x509_parser::parse_x509_certificate(&server_der).unwrap();
    let san = cert.subject_alternative_name().unwrap().unwrap();
    assert!(format!("{:?}", san.value.general_names).contains("localhost"));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let socket = handshake.address.clone();
    let (_, other_der, other_key) = terraform_like_client_cert();
    runtime.block_on(async {
        assert!(
            connects(&socket, tls_client(&server_der, Some((der, key)))).await,
            "pinned certificate refused"
        );
        assert!(
            !connects(&socket, tls_client(&server_der, None)).await,
            "client without certificate accepted"
        );
        assert!(
            !connects(
                &socket,
                tls_client(&server_der, Some((other_der, other_key)))
            )
            .await,
            "other certificate accepted"
        );
    });
    terminate(&mut child);
    assert!(
        !std::path::Path::new(&socket).exists(),
        "socket left behind"
    );
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
