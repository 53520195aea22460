//! Shared by the protocol tests and the runtime benchmark: the real plugin
//! binary started as Terraform starts it (magic cookie, a Terraform-like
//! P-521 client certificate), the handshake line, and gRPC clients over the
//! mutually authenticated unix socket or loopback TCP. The ReadDataSource requests and the
//! CPU-time reader are in `requests.rs` (the NO_PROXY benchmark includes only that).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use base64::Engine as _;
use clusterproxy::framework::plugin::services::grpc_controller_client::GrpcControllerClient;
use clusterproxy::framework::plugin::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use clusterproxy::framework::proto::provider_client::ProviderClient;
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use tonic::transport::{Channel, Endpoint, Uri};

mod requests;
#[allow(unused_imports, reason = "each benchmark uses some of the support")]
pub use requests::*;

/// The provider binary cargo built for this test or bench target.
pub const BINARY: &str = env!("CARGO_BIN_EXE_terraform-provider-clusterproxy");

/// The transports the plugin serves on, as CLUSTERPROXY_PLUGIN_TRANSPORT names them.
#[allow(dead_code, reason = "each benchmark uses some of the support")]
pub const TRANSPORTS: [&str; 2] = ["unix", "tcp"];

/// A byte stream in both directions.
pub trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}

impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> Stream for T {}

/// A connected socket of either transport.
pub type Socket = Box<dyn Stream>;

/// Connects to the address of a handshake line (`unix` path or `tcp` host:port).
#[allow(dead_code, reason = "each benchmark uses some of the support")]
pub async fn dial(network: &str, address: &str) -> std::io::Result<Socket> {
    match network {
        "unix" => Ok(Box::new(tokio::net::UnixStream::connect(address).await?)),
        "tcp" => Ok(Box::new(tokio::net::TcpStream::connect(address).await?)),
        other => panic!("unknown network {other:?}"),
    }
}

/// A client certificate made the way Terraform makes it: ECDSA P-521 with
/// SHA-512, self-signed, CA, CN/DNS localhost, client and server auth.
pub fn terraform_like_client_cert() -> (String, Vec<u8>, Vec<u8>) {
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

/// Starts the binary with Terraform's plugin environment (magic cookie,
/// protocols 5 and 6 offered, the client certificate, the socket directory)
/// and reads the first line of its stdout.
#[allow(dead_code, reason = "each benchmark uses some of the support")]
pub fn spawn(cert_pem: &str, socket_dir: &std::path::Path) -> (Child, String) {
    spawn_with(cert_pem, socket_dir, &[], Stdio::null())
}

/// [`spawn`] with extra environment variables and `stderr` for the plugin's logs.
pub fn spawn_with(
    cert_pem: &str,
    socket_dir: &std::path::Path,
    env: &[(&str, &str)],
    stderr: Stdio,
) -> (Child, String) {
    let mut child = Command::new(BINARY)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_CLIENT_CERT", cert_pem)
        .env("PLUGIN_UNIX_SOCKET_DIR", socket_dir)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    // Kept open, as Terraform keeps it: the plugin leaves when it closes.
    child.stdout = Some(stdout.into_inner());
    (child, line)
}

/// The go-plugin handshake line, split as go-plugin's client splits it:
/// `core|protocol|network|address|wire protocol|certificate`.
#[derive(Debug, Clone)]
pub struct Handshake {
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    /// The first three fields: core version, protocol version, network.
    pub versions_and_network: [String; 3],
    /// The socket path or `127.0.0.1:PORT`.
    pub address: String,
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    /// The wire protocol.
    pub protocol: String,
    /// The server certificate, unpadded standard base64 of its DER.
    pub certificate: String,
}

impl Handshake {
    /// Parses one newline-terminated handshake line; panics on any other form.
    pub fn parse(line: &str) -> Handshake {
        let line = line.strip_suffix('\n').expect("newline-terminated");
        let fields: Vec<&str> = line.split('|').collect();
        let [core, version, network, address, protocol, certificate] = fields.as_slice() else {
            panic!("handshake line without six fields: {line:?}");
        };
        Handshake {
            versions_and_network: [(*core).into(), (*version).into(), (*network).into()],
            address: (*address).to_owned(),
            protocol: (*protocol).to_owned(),
            certificate: (*certificate).to_owned(),
        }
    }

    /// The server certificate DER.
    pub fn server_der(&self) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(&self.certificate)
            .expect("unpadded standard base64")
    }
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

/// A TLS client that trusts only `server_der`, offers ALPN h2 and presents
/// `client` (certificate DER, PKCS#8 key DER), if any.
pub fn tls_client(
    server_der: &[u8],
    client: Option<(Vec<u8>, Vec<u8>)>,
) -> tokio_rustls::TlsConnector {
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

/// Sends SIGTERM and waits: the plugin exits and removes its socket.
pub fn terminate(child: &mut Child) {
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// A running plugin with mTLS, as Terraform starts it.
pub struct Plugin {
    /// The process.
    pub child: Child,
    /// The network from the handshake line: `unix` or `tcp`.
    pub network: String,
    /// The unix socket path or TCP address from the handshake line.
    pub socket: String,
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    /// The server certificate (DER) from the handshake line.
    pub server_der: Vec<u8>,
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    client_der: Vec<u8>,
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    client_key: Vec<u8>,
    _dir: tempfile::TempDir,
}

impl Plugin {
    /// Starts the plugin with a fresh client certificate and reads its handshake line.
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    pub fn start() -> Plugin {
        Plugin::start_with(&terraform_like_client_cert())
    }

    /// Starts the plugin on `transport` (one of [`TRANSPORTS`]).
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    pub fn start_on(transport: &str) -> Plugin {
        Plugin::start_logging(
            &terraform_like_client_cert(),
            &[("CLUSTERPROXY_PLUGIN_TRANSPORT", transport)],
            Stdio::null(),
        )
    }

    /// Starts the plugin with the client certificate (PEM, DER, key DER), as
    /// Terraform does with the one certificate it makes per run.
    #[allow(dead_code, reason = "each benchmark uses some of the support")]
    pub fn start_with(client: &(String, Vec<u8>, Vec<u8>)) -> Plugin {
        Plugin::start_logging(client, &[], Stdio::null())
    }

    /// Starts the plugin with extra environment variables (e.g. TF_LOG) and
    /// `stderr` receiving its log lines.
    pub fn start_logging(
        client: &(String, Vec<u8>, Vec<u8>),
        env: &[(&str, &str)],
        stderr: Stdio,
    ) -> Plugin {
        let (pem, client_der, client_key) = client.clone();
        let dir = tempfile::tempdir().unwrap();
        let (child, line) = spawn_with(&pem, dir.path(), env, stderr);
        let handshake = Handshake::parse(&line);
        Plugin {
            child,
            network: handshake.versions_and_network[2].clone(),
            server_der: handshake.server_der(),
            socket: handshake.address,
            client_der,
            client_key,
            _dir: dir,
        }
    }
}

#[allow(dead_code, reason = "each benchmark uses some of the support")]
impl Plugin {
    /// A gRPC channel over the socket, authenticated with the pinned client certificate.
    pub async fn channel(&self) -> Channel {
        self.channel_over(|stream| stream).await
    }

    /// A gRPC channel over `wrap` applied to the socket (below TLS), authenticated
    /// with the pinned client certificate.
    pub async fn channel_over<S>(
        &self,
        wrap: impl Fn(Socket) -> S + Clone + Send + Sync + 'static,
    ) -> Channel
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let connector = tls_client(
            &self.server_der,
            Some((self.client_der.clone(), self.client_key.clone())),
        );
        let (network, socket) = (self.network.clone(), self.socket.clone());
        Endpoint::from_static("http://localhost")
            .connect_with_connector(tower::service_fn(move |_: Uri| {
                let (connector, network, socket, wrap) = (
                    connector.clone(),
                    network.clone(),
                    socket.clone(),
                    wrap.clone(),
                );
                async move {
                    let stream = wrap(dial(&network, &socket).await?);
                    let tls = connector
                        .connect(ServerName::try_from("localhost").unwrap(), stream)
                        .await?;
                    Ok::<_, std::io::Error>(TokioIo::new(tls))
                }
            }))
            .await
            .expect("gRPC connection over mTLS")
    }

    /// The tfplugin6 Provider client.
    pub async fn provider(&self) -> ProviderClient<Channel> {
        ProviderClient::new(self.channel().await)
    }

    /// The go-plugin controller client.
    pub async fn controller(&self) -> GrpcControllerClient<Channel> {
        GrpcControllerClient::new(self.channel().await)
    }
}

/// A plain-text gRPC channel to `network` `socket` (`--debug` mode).
#[allow(dead_code, reason = "each benchmark uses some of the support")]
pub async fn plain_channel(network: &str, socket: &str) -> Channel {
    let (network, socket) = (network.to_owned(), socket.to_owned());
    Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let (network, socket) = (network.clone(), socket.clone());
            async move {
                let stream = dial(&network, &socket).await?;
                Ok::<_, std::io::Error>(TokioIo::new(stream))
            }
        }))
        .await
        .expect("plain gRPC connection")
}
