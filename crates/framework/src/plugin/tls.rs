//! AutoMTLS: a fresh server certificate per start, and a client-certificate
//! check that accepts only the exact certificate Terraform passed in
//! PLUGIN_CLIENT_CERT (while still verifying the handshake signature).

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, Error, ServerConfig, SignatureScheme};

/// Accepts exactly one client certificate (byte-for-byte).
#[derive(Debug)]
struct PinnedClientCert {
    pinned: CertificateDer<'static>,
    provider: Arc<CryptoProvider>,
}

impl ClientCertVerifier for PinnedClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        if end_entity.as_ref() == self.pinned.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(
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
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The server side of AutoMTLS: TLS config and the DER of our certificate
/// (published in the handshake line).
pub struct ServerTls {
    /// rustls server configuration (ALPN h2, client cert required).
    pub config: Arc<ServerConfig>,
    /// DER of the freshly generated server certificate.
    pub certificate_der: Vec<u8>,
}

/// Builds the TLS server for a client certificate given as PEM.
pub fn server_tls(client_cert_pem: &str) -> Result<ServerTls, String> {
    use rustls::pki_types::pem::PemObject as _;
    let pinned = CertificateDer::pem_slice_iter(client_cert_pem.as_bytes())
        .next()
        .ok_or("PLUGIN_CLIENT_CERT holds no certificate")?
        .map_err(|e| format!("PLUGIN_CLIENT_CERT is not valid PEM: {e}"))?;
    // Refused now, not at the first connection: a CERTIFICATE block must hold
    // a certificate (go-plugin's server parses it the same way).
    webpki::EndEntityCert::try_from(&pinned)
        .map_err(|e| format!("PLUGIN_CLIENT_CERT does not hold an X.509 certificate: {e}"))?;
    let key =
        rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(|e| e.to_string())?;
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_owned()]).map_err(|e| e.to_string())?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    params.extended_key_usages = vec![
        rcgen::ExtendedKeyUsagePurpose::ServerAuth,
        rcgen::ExtendedKeyUsagePurpose::ClientAuth,
    ];
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::DigitalSignature,
        rcgen::KeyUsagePurpose::KeyEncipherment,
        rcgen::KeyUsagePurpose::KeyCertSign,
    ];
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let certificate = params.self_signed(&key).map_err(|e| e.to_string())?;
    let certificate_der = certificate.der().to_vec();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = Arc::new(PinnedClientCert {
        pinned: pinned.into_owned(),
        provider: provider.clone(),
    });
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| e.to_string())?
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![CertificateDer::from(certificate_der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(|e| e.to_string())?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    // No TLS 1.3 session tickets: nothing resumes a session here, and a
    // ticket written after the client's Finished fails (EPIPE) when the host
    // has already closed, so its connection would never count as the host's
    // and the plugin would outlive it.
    config.send_tls13_tickets = 0;
    Ok(ServerTls {
        config: Arc::new(config),
        certificate_der,
    })
}
