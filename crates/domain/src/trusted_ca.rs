//! Trusted CA bundles: PEM certificates the proxy's TLS chains to. Parsed,
//! validated and re-encoded canonically so the same certificates always
//! render the same bytes.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use x509_parser::extensions::GeneralName;
use x509_parser::pem::Pem;

use super::{Finding, InputField};

/// One certificate of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certificate {
    /// The subject, as text.
    pub subject: String,
    /// Whether it carries a subjectAltName extension.
    pub has_san: bool,
    der: Vec<u8>,
}

/// A parsed, non-empty bundle of distinct certificates, in one canonical
/// order (by DER encoding): a bundle is a set of trust anchors, so any order
/// of the same certificates renders the same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedCa {
    certificates: Vec<Certificate>,
}

impl TrustedCa {
    /// Parses a PEM bundle (findings are on [`InputField::TrustedCa`]; blanks around
    /// lines and CRLF endings are tolerated). Anything but
    /// `CERTIFICATE` blocks, an empty bundle or an unparseable certificate is an error.
    /// A certificate repeated in the bundle is kept once, so that it is not
    /// counted twice against platform limits.
    pub fn parse(pem: &str) -> Result<Self, Finding> {
        let fail =
            |summary: &str, detail: String| Finding::error(InputField::TrustedCa, summary, detail);
        let cleaned: String = pem
            .lines()
            .map(|line| format!("{}\n", line.trim()))
            .collect();
        let mut certificates = Vec::new();
        for (index, block) in Pem::iter_from_buffer(cleaned.as_bytes()).enumerate() {
            let block = block.map_err(|e| {
                fail(
                    "Invalid PEM",
                    format!("Block {index} of the CA bundle is not valid PEM: {e}."),
                )
            })?;
            if block.label != "CERTIFICATE" {
                return Err(fail(
                    "Not a certificate",
                    format!("Block {index} of the CA bundle is a {:?}, not a CERTIFICATE; never put private keys here.", block.label),
                ));
            }
            let cert = block.parse_x509().map_err(|e| {
                fail(
                    "Invalid certificate",
                    format!("Certificate {index} of the CA bundle cannot be parsed: {e}."),
                )
            })?;
            let has_san = cert
                .subject_alternative_name()
                .ok()
                .flatten()
                .is_some_and(|san| {
                    san.value
                        .general_names
                        .iter()
                        .any(|n| !matches!(n, GeneralName::Invalid(..)))
                });
            certificates.push(Certificate {
                subject: cert.subject().to_string(),
                has_san,
                der: block.contents.clone(),
            });
        }
        certificates.sort_by(|a, b| a.der.cmp(&b.der));
        certificates.dedup_by(|a, b| a.der == b.der);
        if certificates.is_empty() {
            return Err(fail(
                "Empty CA bundle",
                "The CA bundle holds no `-----BEGIN CERTIFICATE-----` block.".to_owned(),
            ));
        }
        Ok(Self { certificates })
    }

    /// The certificates, in canonical order.
    pub fn certificates(&self) -> &[Certificate] {
        &self.certificates
    }

    /// The canonical PEM text: each certificate base64 in 64-column lines, `\n` endings.
    pub fn to_pem(&self) -> String {
        let mut out = String::new();
        for cert in &self.certificates {
            out.push_str("-----BEGIN CERTIFICATE-----\n");
            let body = STANDARD.encode(&cert.der);
            for chunk in body.as_bytes().chunks(64) {
                out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
                out.push('\n');
            }
            out.push_str("-----END CERTIFICATE-----\n");
        }
        out
    }

    /// Base64 of the canonical PEM (AKS `trustedCa`, TKG `TKG_PROXY_CA_CERT`).
    pub fn to_base64_pem(&self) -> String {
        STANDARD.encode(self.to_pem())
    }
}

/// Certificates for tests, here and in the crates above (feature
/// `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod testing {
    /// A self-signed CA certificate with a SAN, and one without.
    pub fn bundle(with_san: bool) -> String {
        let mut params = rcgen::CertificateParams::new(if with_san {
            vec!["proxy-ca.corp.example".to_owned()]
        } else {
            Vec::new()
        })
        .unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Corp Proxy CA");
        let key = rcgen::KeyPair::generate().unwrap();
        params.self_signed(&key).unwrap().pem()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    pub(crate) use super::testing::bundle;
    use super::*;

    #[test]
    fn parses_and_canonicalises() {
        let pem = bundle(true);
        let messy = format!("\r\n  {}\r\n", pem.replace('\n', "\r\n"));
        let ca = TrustedCa::parse(&messy).unwrap();
        assert_eq!(ca.certificates().len(), 1);
        assert!(ca.certificates()[0].has_san);
        assert!(ca.certificates()[0].subject.contains("Corp Proxy CA"));
        assert_eq!(TrustedCa::parse(&pem).unwrap().to_pem(), ca.to_pem());
        assert_eq!(
            STANDARD.decode(ca.to_base64_pem()).unwrap(),
            ca.to_pem().as_bytes()
        );
        let two = TrustedCa::parse(&format!("{pem}{}", bundle(false))).unwrap();
        assert_eq!(two.certificates().len(), 2);
        assert_eq!(two.certificates().iter().filter(|c| c.has_san).count(), 1);
        let repeated = TrustedCa::parse(&format!("{pem}{messy}{pem}")).unwrap();
        assert_eq!(repeated.to_pem(), ca.to_pem());
    }

    /// A bundle is a set of trust anchors: any order of its certificates
    /// gives the same canonical PEM, so reordering renders the same bytes.
    #[test]
    fn certificate_order_does_not_count() {
        let certificates = [bundle(true), bundle(false), bundle(true)];
        let canonical = TrustedCa::parse(&certificates.concat()).unwrap().to_pem();
        for order in [&[2, 1, 0][..], &[1, 0, 2], &[0, 2, 1], &[1, 2, 0, 1]] {
            let text: String = order.iter().map(|&i| certificates[i].as_str()).collect();
            assert_eq!(
                TrustedCa::parse(&text).unwrap().to_pem(),
                canonical,
                "{order:?}"
            );
        }
    }

    #[test]
    fn rejects_garbage_keys_and_empty_bundles() {
        let cases = [
            ("", "Empty CA bundle"),
            ("hello", "Empty CA bundle"),
            (
                "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                "Invalid certificate",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                "Not a certificate",
            ),
            (
                "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
                "Invalid PEM",
            ),
        ];
        for (pem, want) in cases {
            let err = TrustedCa::parse(pem).unwrap_err();
            assert_eq!(err.summary, want, "{pem:?}");
            assert_eq!(err.location, Some(InputField::TrustedCa.into()));
        }
    }
}
