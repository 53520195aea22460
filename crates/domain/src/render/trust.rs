//! Making a node's operating system trust the proxy's CA: where the bundle
//! goes and which command rebuilds the system trust store, per OS family.
//!
//! - Debian and Ubuntu: `/usr/local/share/ca-certificates/*.crt`, then
//!   `update-ca-certificates` (Debian's ca-certificates package).
//! - RHEL-like and Amazon Linux: `/etc/pki/ca-trust/source/anchors/`, then
//!   `update-ca-trust extract` (p11-kit's ca-certificates on Fedora/RHEL).
//! - Flatcar: `/etc/ssl/certs/*.pem`, then `update-ca-certificates`
//!   (Flatcar's own script, which rehashes `/etc/ssl/certs`; flatcar.org docs,
//!   "Adding custom certificate authorities").
//! - Photon: `/etc/ssl/certs/*.pem`, then `rehash_ca_certificates.sh`, as
//!   TKG does for its proxy CA on Photon nodes (vmware-tanzu/tanzu-framework
//!   932fd7cf0aee269a73f446669815e17a53dd06ad,
//!   `providers/ytt/03_customizations/http_proxy_ca_cert.yaml`: the file at
//!   `/etc/ssl/certs/tkg-custom-ca.pem`, then `rehash_ca_certificates.sh`
//!   "For Photon OS").
//!
//! The Debian path is verified by execution (the test machine's real
//! `update-ca-certificates`, in an isolated root); the others follow the
//! vendors' documented procedure and are not executed here.

use crate::trusted_ca::TrustedCa;

/// The OS family of the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OsFamily {
    /// Debian and Ubuntu.
    Debian,
    /// RHEL, Rocky, Alma, CentOS Stream, Fedora and Amazon Linux.
    Rhel,
    /// Flatcar Container Linux.
    Flatcar,
    /// VMware Photon OS.
    Photon,
}

impl OsFamily {
    /// The names accepted in configuration, in the order of the variants.
    pub const NAMES: [&'static str; 4] = ["debian", "rhel", "flatcar", "photon"];

    /// The family called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "debian" => Some(Self::Debian),
            "rhel" => Some(Self::Rhel),
            "flatcar" => Some(Self::Flatcar),
            "photon" => Some(Self::Photon),
            _ => None,
        }
    }

    /// Where the bundle goes.
    pub fn ca_path(self) -> &'static str {
        match self {
            Self::Debian => "/usr/local/share/ca-certificates/clusterproxy-proxy-ca.crt",
            Self::Rhel => "/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt",
            Self::Flatcar | Self::Photon => "/etc/ssl/certs/clusterproxy-proxy-ca.pem",
        }
    }

    /// The system trust store file that [`Self::trust_command`] rebuilds,
    /// the bundle included.
    pub fn system_bundle(self) -> &'static str {
        match self {
            Self::Debian | Self::Flatcar => "/etc/ssl/certs/ca-certificates.crt",
            Self::Rhel | Self::Photon => "/etc/pki/tls/certs/ca-bundle.crt",
        }
    }

    /// The command that rebuilds the system trust store from the bundle.
    pub fn trust_command(self) -> &'static str {
        match self {
            Self::Debian | Self::Flatcar => "update-ca-certificates",
            Self::Rhel => "update-ca-trust extract",
            Self::Photon => "rehash_ca_certificates.sh",
        }
    }
}

/// The CA bundle file of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaFile {
    /// Absolute path on the node.
    pub path: &'static str,
    /// Owner, `user:group`.
    pub owner: &'static str,
    /// Octal permissions: world-readable, as every trust anchor.
    pub permissions: &'static str,
    /// The canonical PEM bundle.
    pub content: String,
}

/// The bundle file for `os`.
pub fn ca_file(ca: &TrustedCa, os: OsFamily) -> CaFile {
    CaFile {
        path: os.ca_path(),
        owner: "root:root",
        permissions: "0644",
        content: ca.to_pem(),
    }
}

/// The bundle files for `os`: one with a trusted CA, none without (node
/// renderers whose platform reads the OS trust store).
pub fn ca_files(trusted_ca: Option<&TrustedCa>, os: OsFamily) -> Vec<CaFile> {
    trusted_ca.map(|ca| ca_file(ca, os)).into_iter().collect()
}

/// Certificates for the tests here and in the crates above (feature
/// `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod testing {
    /// A CA (certificate and key) and a leaf for `proxy.corp.example` it signed.
    pub fn ca_and_leaf() -> (String, String) {
        let mut params = rcgen::CertificateParams::new(Vec::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Corp Proxy CA");
        let key = rcgen::KeyPair::generate().unwrap();
        let ca = params.self_signed(&key).unwrap();
        let issuer = rcgen::Issuer::new(params, key);
        let leaf_params =
            rcgen::CertificateParams::new(vec!["proxy.corp.example".to_owned()]).unwrap();
        let leaf_key = rcgen::KeyPair::generate().unwrap();
        let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
        (ca.pem(), leaf.pem())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in OsFamily::NAMES {
            assert_eq!(
                OsFamily::NAMES[OsFamily::from_name(name).unwrap() as usize],
                name
            );
        }
        assert_eq!(OsFamily::from_name("ubuntu"), None);
    }
}
