//! Import from the ConfigMap of GKE's containerd proxy tool
//! (GoogleCloudPlatform/k8s-node-tools `containerd-http-proxy/`, at
//! 4dd8f2a20a6144189dd7aa9ef4fdc2075439c753): `containerd-proxy-configmap`,
//! whose `data` keys `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (optional)
//! each hold a whole `NAME=value` assignment (`sample_configmap.yaml`).
//! The tool's DaemonSet (`configure_http_proxy.yaml`) refuses a value
//! without its `NAME=` prefix or with a space or newline, defaults
//! `NO_PROXY` to `NO_PROXY=localhost`, and writes the three into
//! containerd's drop-in as unquoted `Environment=` lines through a shell
//! `echo "..."`: a value with `"`, `$`, `` ` `` or `\` (which that shell
//! reads) or `%` (a systemd specifier) does not reach containerd as
//! written, so it is refused. Only containerd gets the proxy.

use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned};
use super::input::{documents, error, split_list, text_at};
use crate::Finding;

/// The keys the DaemonSet reads, each also the name its value assigns.
const KEYS: [&str; 3] = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"];

/// The warning every import of the ConfigMap gets: who reads it.
const CONTAINERD_ONLY: &str = "The ConfigMap gives the proxy to containerd alone (the tool's DaemonSet writes containerd's drop-in): render the profile for containerd, e.g. `clusterproxy_systemd_dropin` with `units = [\"containerd.service\"]`, to keep what it does.";

/// The GKE containerd proxy importer.
#[derive(Debug, Clone, Copy)]
pub struct Gke;

/// The `data` of a ConfigMap in the tool's shape: a proxy key whose value
/// assigns its own name.
fn data_of(document: &Value) -> Option<&Value> {
    let data = document.get("data")?;
    (text_at(document, &["kind"]) == Some("ConfigMap")
        && KEYS[..2].iter().any(|key| {
            text_at(data, &[key]).is_some_and(|value| value.starts_with(&format!("{key}=")))
        }))
    .then_some(data)
}

impl Importer for Gke {
    fn kind(&self) -> &'static str {
        "gke"
    }

    fn platform(&self) -> &'static str {
        "GKE (containerd proxy ConfigMap)"
    }

    fn reads(&self) -> &'static str {
        "`containerd-proxy-configmap` of k8s-node-tools' `containerd-http-proxy`"
    }

    /// A ConfigMap whose `HTTP_PROXY` or `HTTPS_PROXY` assigns its name.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| data_of(document).is_some())
    }

    /// Reads the three assignments as containerd gets them.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let Some(data) = documents.iter().find_map(data_of) else {
            return Err(error(
                "No ConfigMap whose `data.HTTP_PROXY` or `data.HTTPS_PROXY` holds `HTTP_PROXY=...` or `HTTPS_PROXY=...` found.",
            ));
        };
        let mut values = Vec::new();
        for key in KEYS {
            let assignment = match data.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => Some(text.as_str()),
                Some(_) => return Err(error(format!("`data.{key}` is not a string."))),
            };
            let value = match assignment {
                None => None,
                Some(text) => {
                    let value = text.strip_prefix(&format!("{key}=")).ok_or_else(|| {
                        error(format!("`data.{key}` does not start with `{key}=`, which the tool's DaemonSet refuses."))
                    })?;
                    if value.chars().any(char::is_whitespace) {
                        return Err(error(format!("`data.{key}` holds a space or newline, which the tool's DaemonSet refuses.")));
                    }
                    if let Some(c) = value
                        .chars()
                        .find(|c| matches!(c, '"' | '$' | '`' | '\\' | '%'))
                    {
                        return Err(error(format!("`data.{key}` holds `{c}`, which the DaemonSet's shell or systemd read in the drop-in, so containerd does not get the value as written (not quoted: it may hold credentials).")));
                    }
                    Some(value.to_owned())
                }
            };
            values.push(value);
        }
        let no_proxy = values[2].as_deref().unwrap_or("localhost");
        Ok(Found {
            http_proxy: values[0].clone(),
            https_proxy: values[1].clone(),
            no_proxy: split_list(no_proxy),
            warnings: vec![CONTAINERD_ONLY.to_owned()],
            ..Found::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: containerd-proxy-configmap\ndata:\n  HTTP_PROXY: HTTP_PROXY=http://proxy.example.com:80\n  HTTPS_PROXY: HTTPS_PROXY=http://proxy.example.com:443\n";

    #[test]
    fn reads_the_assignments_and_the_default_no_proxy() {
        let found = Gke.read(CONFIG_MAP).unwrap();
        assert_eq!(
            found.http_proxy.as_deref(),
            Some("http://proxy.example.com:80")
        );
        assert_eq!(found.no_proxy, ["localhost"]);
        assert_eq!(found.warnings, [CONTAINERD_ONLY]);
    }

    /// What the DaemonSet refuses or does not pass on as written is a
    /// finding naming the key.
    #[test]
    fn refuses_what_containerd_would_not_get() {
        for (from, to) in [
            ("HTTPS_PROXY: HTTPS_PROXY=", "HTTPS_PROXY: "),
            ("example.com:443", "example.com:443 x"),
            ("example.com:443", "example.com:443$HOME"),
            (
                "http://proxy.example.com:443",
                "http://u:p%40@proxy.example.com:443",
            ),
        ] {
            let finding = Gke.read(&CONFIG_MAP.replace(from, to)).unwrap_err();
            assert!(
                finding.detail.contains("`data.HTTPS_PROXY`"),
                "{}",
                finding.detail
            );
            assert!(!finding.detail.contains("p%40"), "{}", finding.detail);
        }
    }
}
