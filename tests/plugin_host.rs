//! Protocol tests of the go-plugin host, against the real binary: cookie
//! check, protocol negotiation, the handshake line as go-plugin parses it,
//! and AutoMTLS accepting only the pinned client certificate.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use base64::Engine as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};

const BINARY: &str = env!("CARGO_BIN_EXE_terraform-provider-clusterproxy");
const COOKIE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// A client certificate made the way Terraform makes it: ECDSA P-521 with
/// SHA-512, self-signed, CA, CN/DNS localhost, client and server auth.
fn terraform_like_client_cert() -> (String, Vec<u8>, Vec<u8>) {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.extended_key_usages = vec![
        rcgen::ExtendedKeyUsagePurpose::ClientAuth,
        rcgen::ExtendedKeyUsagePurpose::ServerAuth,
    ];
    let cert = params.self_signed(&key).unwrap();
    (cert.pem(), cert.der().to_vec(), key.serialize_der())
}

fn spawn(cert_pem: &str, socket_dir: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(BINARY)
        .env(COOKIE_KEY, COOKIE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_CLIENT_CERT", cert_pem)
        .env("PLUGIN_UNIX_SOCKET_DIR", socket_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line)
}

const COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";

#[test]
fn refuses_to_run_without_the_magic_cookie() {
    let out = Command::new(BINARY)
        .env_remove(COOKIE_KEY)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Terraform provider plugin"));
    assert!(out.stdout.is_empty());
}

#[test]
fn refuses_protocols_other_than_6() {
    let out = Command::new(BINARY)
        .env(COOKIE_KEY, COOKIE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "4,5")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

/// Trusts exactly the server certificate from the handshake line, as
/// go-plugin's client does (it is self-signed and marked CA, which webpki
/// would refuse as an end entity).
#[derive(Debug)]
struct PinnedServer {
    der: Vec<u8>,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl rustls::client::danger::ServerCertVerifier for PinnedServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.der.as_slice() {
            Ok(rustls::client::danger::ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

fn tls_client(server_der: &[u8], client: Option<(Vec<u8>, Vec<u8>)>) -> tokio_rustls::TlsConnector {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(PinnedServer {
            der: server_der.to_vec(),
            provider,
        }));
    let mut config = match client {
        Some((cert, key)) => builder
            .with_client_auth_cert(
                vec![CertificateDer::from(cert)],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key)),
            )
            .unwrap(),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    tokio_rustls::TlsConnector::from(Arc::new(config))
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
    let line = line.strip_suffix('\n').expect("newline-terminated");
    let fields: Vec<&str> = line.split('|').collect();
    assert_eq!(fields.len(), 6, "{line}");
    assert_eq!(&fields[..3], &["1", "6", "unix"]);
    assert!(fields[3].starts_with(dir.path().to_str().unwrap()));
    assert_eq!(fields[4], "grpc");
    assert!(fields[5].len() > 50 && !fields[5].ends_with('='));
    let server_der = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(fields[5])
        .unwrap();
    let (_, cert) = x509_parser::parse_x509_certificate(&server_der).unwrap();
    let san = cert.subject_alternative_name().unwrap().unwrap();
    assert!(format!("{:?}", san.value.general_names).contains("localhost"));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let socket = fields[3].to_owned();
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

/// Sends SIGTERM and waits: the plugin exits and removes its socket.
fn terminate(child: &mut Child) {
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
