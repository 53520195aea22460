//! AutoMTLS: a fresh server certificate per start, and a client-certificate
//! check that accepts only the exact certificate Terraform passed in
//! PLUGIN_CLIENT_CERT (while still verifying the handshake signature).

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, Error, ServerConfig, SignatureScheme};

/// Accepts exactly one client certificate (byte-for-byte), while it is
/// valid.
#[derive(Debug)]
struct PinnedClientCert {
    pinned: CertificateDer<'static>,
    validity: Validity,
    provider: Arc<CryptoProvider>,
}

/// A certificate's validity period, in seconds since the Unix epoch, both
/// ends included (RFC 5280, 4.1.2.5).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Validity {
    not_before: i64,
    not_after: i64,
}

/// Why a certificate is not valid at some instant.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Invalid {
    /// Its period has not begun.
    NotYetValid,
    /// Its period is over.
    Expired,
}

impl Validity {
    /// The validity period of the certificate `der`.
    fn of(der: &[u8]) -> Result<Self, String> {
        let (_, certificate) = x509_parser::parse_x509_certificate(der)
            .map_err(|e| format!("PLUGIN_CLIENT_CERT does not hold an X.509 certificate: {e}"))?;
        let validity = certificate.validity();
        Ok(Self {
            not_before: validity.not_before.timestamp(),
            not_after: validity.not_after.timestamp(),
        })
    }

    /// Whether the period holds `now` (seconds since the Unix epoch).
    fn check(self, now: i64) -> Result<(), Invalid> {
        if now < self.not_before {
            Err(Invalid::NotYetValid)
        } else if now > self.not_after {
            Err(Invalid::Expired)
        } else {
            Ok(())
        }
    }

    /// Why the plugin refuses to start with this certificate at `now`.
    fn refusal(self, now: i64) -> Option<String> {
        let when = |at: i64| {
            time::OffsetDateTime::from_unix_timestamp(at)
                .ok()
                .and_then(|t| {
                    t.format(&time::format_description::well_known::Rfc3339)
                        .ok()
                })
                .unwrap_or_else(|| format!("{at} s after 1970"))
        };
        let period = format!(
            "it is valid from {} to {}, and the time is {}",
            when(self.not_before),
            when(self.not_after),
            when(now)
        );
        match self.check(now).err()? {
            Invalid::NotYetValid => Some(format!(
                "PLUGIN_CLIENT_CERT is not valid yet: {period}. Check the system clock, or let Terraform make a new certificate."
            )),
            Invalid::Expired => Some(format!(
                "PLUGIN_CLIENT_CERT has expired: {period}. Let Terraform make a new certificate."
            )),
        }
    }
}

/// Now, in seconds since the Unix epoch.
fn now() -> i64 {
    unix_seconds(UnixTime::now())
}

fn unix_seconds(time: UnixTime) -> i64 {
    i64::try_from(time.as_secs()).unwrap_or(i64::MAX)
}

impl ClientCertVerifier for PinnedClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        if end_entity.as_ref() == self.pinned.as_ref() {
            // Checked at each handshake too: it may expire while we serve.
            match self.validity.check(unix_seconds(now)) {
                Ok(()) => Ok(ClientCertVerified::assertion()),
                Err(Invalid::NotYetValid) => Err(Error::InvalidCertificate(
                    rustls::CertificateError::NotValidYet,
                )),
                Err(Invalid::Expired) => {
                    Err(Error::InvalidCertificate(rustls::CertificateError::Expired))
                }
            }
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
    // And it must be valid now: an expired certificate is no credential.
    let validity = Validity::of(&pinned)?;
    if let Some(refusal) = validity.refusal(now()) {
        return Err(refusal);
    }
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
        validity,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate valid from `not_before` to `not_after`
    /// (seconds since the Unix epoch), as PEM.
    fn certificate(not_before: i64, not_after: i64) -> String {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.not_before = time::OffsetDateTime::from_unix_timestamp(not_before).unwrap();
        params.not_after = time::OffsetDateTime::from_unix_timestamp(not_after).unwrap();
        params.self_signed(&key).unwrap().pem()
    }

    const DAY: i64 = 86_400;

    /// A certificate whose period is over, or has not begun, is refused
    /// with what its period is; one valid now is taken.
    #[test]
    fn only_a_certificate_valid_now_is_taken() {
        let now = now();
        let expired = server_tls(&certificate(now - 30 * DAY, now - DAY)).err();
        let expired = expired.expect("an expired certificate was taken");
        assert!(
            expired.starts_with("PLUGIN_CLIENT_CERT has expired: it is valid from "),
            "{expired}"
        );
        let future = server_tls(&certificate(now + DAY, now + 30 * DAY)).err();
        let future = future.expect("a certificate not valid yet was taken");
        assert!(
            future.starts_with("PLUGIN_CLIENT_CERT is not valid yet: "),
            "{future}"
        );
        assert!(server_tls(&certificate(now - 30, now + DAY)).is_ok());
    }

    /// Both ends of the period belong to it (RFC 5280).
    #[test]
    fn the_period_includes_both_ends() {
        let validity = Validity {
            not_before: 100,
            not_after: 200,
        };
        assert_eq!(validity.check(99), Err(Invalid::NotYetValid));
        assert_eq!(validity.check(100), Ok(()));
        assert_eq!(validity.check(200), Ok(()));
        assert_eq!(validity.check(201), Err(Invalid::Expired));
    }
}
