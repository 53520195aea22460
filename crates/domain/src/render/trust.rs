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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;
    use std::process::Command;

    /// A CA (certificate and key) and a leaf for `proxy.corp.example` it signed.
    pub(crate) fn ca_and_leaf() -> (String, String) {
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

    /// Runs `script` as root in a private mount namespace where `/etc` and
    /// `/usr/local/share/ca-certificates` are writable copies (the host's
    /// stay untouched), with `systemctl` stubbed and `files` (path, content,
    /// mode) written first. Whether the `leaf` certificate verified against
    /// the system bundle before and after, and the script's output.
    pub(crate) fn run_isolated(
        files: &[(String, String, String)],
        script: &str,
        leaf: &str,
    ) -> (bool, bool, String) {
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("leaf.pem"), leaf).unwrap();
        let mut setup = String::new();
        for (index, (path, content, mode)) in files.iter().enumerate() {
            let source = work.path().join(format!("file{index}"));
            std::fs::write(&source, content).unwrap();
            setup.push_str(&format!(
                "mkdir -p \"$(dirname '{path}')\" && cp '{}' '{path}' && chmod {mode} '{path}'\n",
                source.display()
            ));
        }
        let verify = "openssl verify -CAfile /etc/ssl/certs/ca-certificates.crt \"$WORK/leaf.pem\" >/dev/null 2>&1";
        let stub = work.path().join("bin");
        std::fs::create_dir(&stub).unwrap();
        std::fs::write(stub.join("systemctl"), "#!/bin/sh\necho \"systemctl $*\"\n").unwrap();
        std::fs::set_permissions(
            stub.join("systemctl"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        std::fs::write(work.path().join("rendered.sh"), script).unwrap();
        let outer = format!(
            r#"set -e
for d in /etc /usr/local/share/ca-certificates; do
  mkdir -p "$WORK/copy$d" "$d"
  cp -a "$d/." "$WORK/copy$d/"
  mount --bind "$WORK/copy$d" "$d"
done
{setup}
if {verify}; then echo BEFORE=ok; else echo BEFORE=fail; fi
PATH="$WORK/bin:$PATH" sh "$WORK/rendered.sh"
if {verify}; then echo AFTER=ok; else echo AFTER=fail; fi
"#
        );
        assert!(Path::new("/usr/sbin/update-ca-certificates").exists());
        let out = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c", &outer])
            .env("WORK", work.path())
            .output()
            .expect("unshare (util-linux) runs");
        let log = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{log}");
        (log.contains("BEFORE=ok"), log.contains("AFTER=ok"), log)
    }

    /// The Debian file and command make `openssl verify` accept a leaf the
    /// CA signed, which it refused before (isolated root, real
    /// update-ca-certificates).
    #[test]
    fn debian_file_and_command_make_the_system_trust_the_ca() {
        let (ca, leaf) = ca_and_leaf();
        let bundle = TrustedCa::parse(&ca).unwrap();
        let file = ca_file(&bundle, OsFamily::Debian);
        let (before, after, log) = run_isolated(
            &[(
                file.path.to_owned(),
                file.content,
                file.permissions.to_owned(),
            )],
            OsFamily::Debian.trust_command(),
            &leaf,
        );
        assert!(!before && after, "{log}");
        assert!(
            !std::fs::read_to_string("/etc/ssl/certs/ca-certificates.crt")
                .unwrap_or_default()
                .contains(ca.lines().nth(1).unwrap()),
            "the host's bundle was touched"
        );
    }

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
