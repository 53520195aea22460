//! The proxy check's one request, the only network I/O of the provider: a
//! `GET` for the URL through the proxy with the credentials, with bounded
//! time, no redirects, no proxy from the environment and no NO_PROXY, on a
//! thread of its own. What happened is an [`Outcome`] that holds nothing the
//! proxy sent but its status code, and never the credentials: a TLS or
//! connection failure is one of fixed categories ([`TlsFailure`], an I/O
//! error's kind), never the text of an error, which may quote what the peer
//! sent (rustls names the peer certificate's names, and a proxy that
//! re-signs TLS chooses them, even from the `Proxy-Authorization` it read).
//!
//! The proxy's name is resolved here, before the request and within its
//! timeout, and the client is given the addresses: a name that does not
//! resolve is [`Outcome::Unresolved`]. A name under `invalid` never
//! resolves and is not looked up (RFC 6761, section 6.4).

use std::error::Error as StdError;
use std::net::SocketAddr;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::CertificateDer;

use crate::domain::proxy_url::{ProxyHost, ProxyUrl};

/// The error of a `CONNECT` tunnel, which reqwest's errors chain: hyper-util
/// names it only as its tunnel's error type.
type TunnelError = <Tunnel<HttpConnector> as tower_service::Service<http::Uri>>::Error;

/// One check to run.
#[derive(Debug, Clone)]
pub struct Probe<'a> {
    /// The destination (http or https, no userinfo).
    pub url: &'a reqwest::Url,
    /// The proxy, with the credentials to send.
    pub proxy: &'a ProxyUrl,
    /// PEM bundle trusted besides Mozilla's roots.
    pub trusted_ca: Option<&'a str>,
    /// Bound of the connection and of the whole request.
    pub timeout: Duration,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// An HTTP answer with this status (the proxy's 407 included).
    Answered(u16),
    /// The proxy answered the tunnel request (CONNECT) with 407.
    TunnelAuthRequired,
    /// The proxy answered the tunnel request with another failure.
    TunnelRefused,
    /// No answer within the timeout.
    TimedOut,
    /// The proxy's name did not resolve to an address.
    Unresolved,
    /// No connection to the proxy; the I/O error's kind when there is one.
    Unreachable(Option<std::io::ErrorKind>),
    /// A TLS handshake failed: with the proxy (`proxy`) or the destination.
    Tls {
        /// Whether it was the handshake with the proxy.
        proxy: bool,
        /// Why, in a fixed category.
        reason: TlsFailure,
    },
    /// The trusted CA bundle holds no certificate rustls accepts.
    BadTrustedCa,
    /// The request failed in another way.
    Failed,
    /// The provider was asked to stop while waiting.
    Cancelled,
}

/// Why a TLS handshake failed, in fixed categories: never the text of the
/// error, which may quote the peer's certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsFailure {
    /// The certificate chains to no trusted CA.
    UntrustedIssuer,
    /// The certificate has expired or is not valid yet.
    Expired,
    /// The certificate is not valid for the name (or address) connected to.
    WrongName,
    /// The certificate is revoked.
    Revoked,
    /// The certificate is unusable in another way (encoding, signature,
    /// purpose, extension) or missing.
    BadCertificate,
    /// The peer ended the handshake with an alert.
    Alert,
    /// The peer offers no protocol version, cipher suite or signature
    /// scheme in common.
    Incompatible,
    /// The peer broke the protocol.
    Protocol,
    /// The connection ended during the handshake.
    Interrupted,
    /// Another failure.
    Other,
}

impl TlsFailure {
    /// The category of a rustls error (from its variant, never its text).
    fn of(error: &rustls::Error) -> Self {
        use rustls::CertificateError as C;
        match error {
            rustls::Error::InvalidCertificate(certificate) => match certificate {
                C::UnknownIssuer => Self::UntrustedIssuer,
                C::Expired
                | C::ExpiredContext { .. }
                | C::NotValidYet
                | C::NotValidYetContext { .. } => Self::Expired,
                C::NotValidForName | C::NotValidForNameContext { .. } => Self::WrongName,
                C::Revoked => Self::Revoked,
                _ => Self::BadCertificate,
            },
            rustls::Error::NoCertificatesPresented => Self::BadCertificate,
            rustls::Error::AlertReceived(_) => Self::Alert,
            rustls::Error::PeerIncompatible(_) => Self::Incompatible,
            rustls::Error::PeerMisbehaved(_)
            | rustls::Error::InvalidMessage(_)
            | rustls::Error::InappropriateMessage { .. }
            | rustls::Error::InappropriateHandshakeMessage { .. }
            | rustls::Error::DecryptError
            | rustls::Error::PeerSentOversizedRecord => Self::Protocol,
            _ => Self::Other,
        }
    }

    /// What happened, in our words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::UntrustedIssuer => "its certificate is not signed by a trusted CA",
            Self::Expired => "its certificate has expired or is not valid yet",
            Self::WrongName => "its certificate is not valid for the name connected to",
            Self::Revoked => "its certificate is revoked",
            Self::BadCertificate => "its certificate is missing or unusable",
            Self::Alert => "the peer ended the handshake with a TLS alert",
            Self::Incompatible => {
                "the peer offers no TLS version, cipher suite or signature scheme the provider accepts"
            }
            Self::Protocol => "the peer broke the TLS protocol",
            Self::Interrupted => "the connection ended during the handshake",
            Self::Other => "the handshake failed",
        }
    }
}

/// How often a waiting check looks at the cancellation flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Sends the probe on a thread of its own (with a current-thread runtime,
/// so that it works from any caller, inside a runtime or not) and waits for
/// it, stopping early when the request is cancelled (StopProvider).
pub fn run(probe: &Probe<'_>) -> Outcome {
    let client = match client(probe) {
        Ok(client) => client,
        Err(outcome) => return outcome,
    };
    let url = probe.url.clone();
    let (proxy, timeout) = (probe.proxy.clone(), probe.timeout);
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_or(Outcome::Failed, |runtime| {
                runtime.block_on(async move {
                    let client = match resolved(client, &proxy, timeout).await {
                        Ok(client) => client,
                        Err(outcome) => return outcome,
                    };
                    match client.build() {
                        Ok(client) => match client.get(url).send().await {
                            Ok(response) => Outcome::Answered(response.status().as_u16()),
                            Err(error) => classify(&error),
                        },
                        Err(_) => Outcome::Failed,
                    }
                })
            });
        // The waiting side may be gone after a cancellation.
        let _ = send.send(outcome);
    });
    loop {
        match receive.recv_timeout(CANCEL_POLL) {
            Ok(outcome) => return outcome,
            Err(mpsc::RecvTimeoutError::Timeout) if !clusterproxy_cancel::requested() => {}
            Err(mpsc::RecvTimeoutError::Timeout) => return Outcome::Cancelled,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Outcome::Failed,
        }
    }
}

/// `client` with the addresses of the proxy's name, resolved within
/// `timeout` (an IP literal needs none): [`Outcome::Unresolved`] when the
/// name has none, [`Outcome::TimedOut`] when the answer takes too long.
async fn resolved(
    client: reqwest::ClientBuilder,
    proxy: &ProxyUrl,
    timeout: Duration,
) -> Result<reqwest::ClientBuilder, Outcome> {
    let ProxyHost::Name(name) = proxy.host() else {
        return Ok(client);
    };
    if name == "invalid" || name.ends_with(".invalid") {
        return Err(Outcome::Unresolved);
    }
    let lookup = tokio::net::lookup_host((name.as_str(), proxy.port()));
    let addresses: Vec<SocketAddr> = match tokio::time::timeout(timeout, lookup).await {
        Ok(Ok(addresses)) => addresses.collect(),
        Ok(Err(_)) => Vec::new(),
        Err(_) => return Err(Outcome::TimedOut),
    };
    if addresses.is_empty() {
        return Err(Outcome::Unresolved);
    }
    Ok(client.resolve_to_addrs(name, &addresses))
}

/// The client: only this proxy (for every scheme, whatever the environment
/// says), its credentials, the TLS trust, the timeouts, no redirects.
fn client(probe: &Probe<'_>) -> Result<reqwest::ClientBuilder, Outcome> {
    let proxy = probe.proxy;
    let mut route = reqwest::Proxy::all(proxy.to_plain_string()).map_err(|_| Outcome::Failed)?;
    if let Some(credentials) = proxy.credentials() {
        route = route.basic_auth(
            credentials.username(),
            credentials.password().unwrap_or_default(),
        );
    }
    Ok(reqwest::Client::builder()
        .use_preconfigured_tls(tls(probe.trusted_ca)?)
        .proxy(route)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(probe.timeout)
        .timeout(probe.timeout)
        .pool_max_idle_per_host(0)
        .user_agent(concat!(
            "terraform-provider-clusterproxy/",
            env!("CARGO_PKG_VERSION"),
            " proxy-check"
        )))
}

/// TLS with the aws-lc-rs provider the plugin uses, trusting Mozilla's
/// roots (compiled in) and `trusted_ca`.
fn tls(trusted_ca: Option<&str>) -> Result<rustls::ClientConfig, Outcome> {
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(pem) = trusted_ca {
        for certificate in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            let certificate = certificate.map_err(|_| Outcome::BadTrustedCa)?;
            roots.add(certificate).map_err(|_| Outcome::BadTrustedCa)?;
        }
    }
    rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map(|builder| builder.with_root_certificates(roots).with_no_client_auth())
    .map_err(|_| Outcome::Failed)
}

/// The outcome of a failed request, from the errors it chains (never from
/// their text, which may quote the proxy).
fn classify(error: &reqwest::Error) -> Outcome {
    if error.is_timeout() {
        return Outcome::TimedOut;
    }
    let mut tunnel = false;
    let mut io = None;
    let mut source: Option<&(dyn StdError + 'static)> = error.source();
    while let Some(cause) = source {
        if let Some(tunnel_error) = cause.downcast_ref::<TunnelError>() {
            match tunnel_error {
                TunnelError::ProxyAuthRequired => return Outcome::TunnelAuthRequired,
                TunnelError::TunnelUnsuccessful
                | TunnelError::ProxyHeadersTooLong
                | TunnelError::TunnelUnexpectedEof => return Outcome::TunnelRefused,
                _ => tunnel = true,
            }
        }
        if let Some(tls) = cause.downcast_ref::<rustls::Error>() {
            return Outcome::Tls {
                // Inside a tunnel request the TLS is the proxy's; outside,
                // on an https destination through an http proxy, it is the
                // destination's, and with an https proxy and an http
                // destination the proxy's.
                proxy: tunnel || error.url().is_none_or(|u| u.scheme() == "http"),
                reason: TlsFailure::of(tls),
            };
        }
        if let Some(e) = cause.downcast_ref::<std::io::Error>() {
            io = io.or(Some(e.kind()));
            // An I/O error's source is its inner error's source: walk the
            // inner error itself (rustls reports through I/O errors).
            if let Some(inner) = e.get_ref() {
                source = Some(inner as &(dyn StdError + 'static));
                continue;
            }
        }
        source = cause.source();
    }
    let https = error.url().is_some_and(|u| u.scheme() == "https");
    match error.is_connect() {
        // For an https destination the connection to the proxy is the
        // tunnel's (its failures chain a tunnel error): a connection error
        // without one came after the tunnel, in the destination's handshake.
        true if https && !tunnel => Outcome::Tls {
            proxy: false,
            reason: TlsFailure::Interrupted,
        },
        true => Outcome::Unreachable(io),
        false => Outcome::Failed,
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::net::TcpListener;

    use super::*;
    use crate::domain::proxy_url::ProxyCredentials;
    use crate::domain::InputField;

    /// A loopback stand-in for a proxy that answers every request with
    /// `answer` and keeps the request heads it read.
    fn answering(answer: &'static str) -> (u16, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(false).unwrap();
        let server = std::thread::spawn(move || {
            let mut heads = Vec::new();
            // One connection per request (the client keeps none idle); a
            // followed redirect would be a second one.
            for _ in 0..2 {
                listener.set_nonblocking(!heads.is_empty()).unwrap();
                if !heads.is_empty() {
                    std::thread::sleep(Duration::from_millis(300));
                }
                let Ok((stream, _)) = listener.accept() else {
                    break;
                };
                stream.set_nonblocking(false).unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    head.push_str(&line);
                }
                heads.push(head);
                (&stream).write_all(answer.as_bytes()).unwrap();
            }
            heads
        });
        (port, server)
    }

    fn probe(port: u16, password: &str) -> Outcome {
        let credentials = ProxyCredentials::new("svc", password).unwrap();
        let proxy = ProxyUrl::parse(InputField::HttpProxy, &format!("http://127.0.0.1:{port}"))
            .unwrap()
            .with_credentials(credentials);
        let url = reqwest::Url::parse("http://origin.example/v2/").unwrap();
        run(&Probe {
            url: &url,
            proxy: &proxy,
            trusted_ca: None,
            timeout: Duration::from_secs(5),
        })
    }

    /// One GET in absolute form to the proxy, the credentials in
    /// `Proxy-Authorization` (a hostile password encoded as basic
    /// authentication encodes it), and a redirect reported, not followed.
    #[test]
    fn one_request_with_the_credentials_and_no_redirect_followed() {
        use base64::Engine as _;
        let password = "p@ss w/rd#%:é";
        let (port, server) = answering(
            "HTTP/1.1 302 Found\r\nLocation: http://origin.example/elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(probe(port, password), Outcome::Answered(302));
        let heads = server.join().unwrap();
        assert_eq!(heads.len(), 1, "{heads:?}");
        assert!(heads[0].starts_with("GET http://origin.example/v2/ HTTP/1.1\r\n"));
        let expected = base64::engine::general_purpose::STANDARD.encode(format!("svc:{password}"));
        assert!(
            heads[0]
                .lines()
                .any(|l| l.eq_ignore_ascii_case(&format!("proxy-authorization: Basic {expected}"))),
            "{heads:?}"
        );
    }

    /// A check waiting on a silent proxy stops when its request is
    /// cancelled (StopProvider), long before its timeout.
    #[test]
    fn a_cancelled_check_stops_waiting() {
        let silent = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = silent.local_addr().unwrap().port();
        let flag = clusterproxy_cancel::Flag::new();
        let canceller = {
            let flag = flag.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                flag.cancel();
            })
        };
        let proxy =
            ProxyUrl::parse(InputField::HttpProxy, &format!("http://127.0.0.1:{port}")).unwrap();
        let url = reqwest::Url::parse("http://origin.example/").unwrap();
        let outcome = clusterproxy_cancel::scope(&flag, || {
            run(&Probe {
                url: &url,
                proxy: &proxy,
                trusted_ca: None,
                timeout: Duration::from_secs(600),
            })
        });
        assert_eq!(outcome, Outcome::Cancelled);
        canceller.join().unwrap();
    }

    /// What a re-signing proxy controls: the names of its certificate.
    const MARKER: &str = "marker-p4ssw0rd";

    /// A TLS "proxy" on loopback whose certificate names only
    /// `MARKER.example`, signed by a CA of its own; it serves one
    /// handshake. Returns its port and the CA (PEM).
    fn tls_proxy() -> (u16, String, std::thread::JoinHandle<()>) {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("{MARKER} CA"));
        let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec![format!("{MARKER}.example")]).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("{MARKER}.example"));
        let certificate = params.signed_by(&key, &ca).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![certificate.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut connection = rustls::ServerConnection::new(Arc::new(config)).unwrap();
            while connection.is_handshaking() {
                if connection.complete_io(&mut stream).is_err() {
                    break;
                }
            }
        });
        (port, ca.pem(), server)
    }

    fn probe_proxy(proxy: &str, trusted_ca: Option<&str>) -> Outcome {
        let credentials = ProxyCredentials::new("svc", "pw").unwrap();
        let proxy = ProxyUrl::parse(InputField::HttpsProxy, proxy)
            .unwrap()
            .with_credentials(credentials);
        let url = reqwest::Url::parse("http://origin.example/").unwrap();
        run(&Probe {
            url: &url,
            proxy: &proxy,
            trusted_ca,
            timeout: Duration::from_secs(5),
        })
    }

    /// A TLS failure is a fixed category: the names a re-signing proxy
    /// puts into its certificate (here a marker; it could be the password
    /// it read) appear nowhere in the outcome.
    #[test]
    fn tls_failures_never_quote_the_peer_certificate() {
        for (trusted, expected) in [
            (true, TlsFailure::WrongName),
            (false, TlsFailure::UntrustedIssuer),
        ] {
            let (port, ca, server) = tls_proxy();
            let outcome = probe_proxy(
                &format!("https://127.0.0.1:{port}"),
                trusted.then_some(ca.as_str()),
            );
            server.join().unwrap();
            let shown = format!("{outcome:?}");
            assert!(!shown.contains(MARKER), "{shown}");
            assert_eq!(
                shown,
                format!(
                    "{:?}",
                    Outcome::Tls {
                        proxy: true,
                        reason: expected
                    }
                ),
            );
        }
    }

    /// A proxy name that does not resolve is said so; a name under
    /// `.invalid` is not even looked up (no query leaves the machine).
    #[test]
    fn an_unresolvable_proxy_name_is_said_so() {
        for proxy in ["http://proxy.invalid:3128", "https://invalid"] {
            assert_eq!(probe_proxy(proxy, None), Outcome::Unresolved, "{proxy}");
        }
    }

    /// The proxy's 407 to a plain request is its status.
    #[test]
    fn a_407_is_an_answer() {
        let (port, server) = answering(
            "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(probe(port, "wrong"), Outcome::Answered(407));
        server.join().unwrap();
    }
}
