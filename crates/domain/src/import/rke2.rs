//! Import from an RKE2 or k3s environment file (`/etc/default/rke2-server`,
//! `/etc/default/rke2-agent`, `/etc/systemd/system/k3s.service.env`,
//! `k3s-agent.service.env`): `NAME=value` lines as systemd's
//! `EnvironmentFile=` reads them (comments start with `#` or `;`; values
//! unquoted, in single quotes taken literally, or in double quotes where a
//! backslash escapes the next character). The `CONTAINERD_`-prefixed
//! variables are what RKE2 and k3s give containerd; they count as the proxy
//! settings with the prefix removed, so a file that sets both forms must
//! agree. Other variables (`K3S_TOKEN`, `RKE2_*`...) are not read. A shell
//! variable left in a value by a quoted heredoc (Rancher's docs write
//! `/etc/default/rke2-server` with `<<'EOF'`) is refused by its name.

use super::found::{Found, Importer, Recognised, Scanned};
use super::input::error;
use super::systemd;
use crate::Finding;

/// The value of one assignment, unquoted the way systemd does.
fn value(raw: &str, line: usize) -> Result<String, Finding> {
    let raw = raw.trim();
    let unterminated = || error(format!("Line {line}: the value has an unterminated quote."));
    match raw.chars().next() {
        Some('\'') => raw[1..]
            .strip_suffix('\'')
            .map(str::to_owned)
            .ok_or_else(unterminated),
        Some('"') => {
            let mut out = String::new();
            let mut chars = raw[1..].chars();
            loop {
                match chars.next() {
                    None => return Err(unterminated()),
                    Some('"') if chars.as_str().trim().is_empty() => return Ok(out),
                    Some('"') => return Err(unterminated()),
                    Some('\\') => out.push(chars.next().ok_or_else(unterminated)?),
                    Some(c) => out.push(c),
                }
            }
        }
        _ => Ok(raw.to_owned()),
    }
}

/// The warning of a file that gives the proxy to every component: a
/// profile does not say which components get it, and `clusterproxy_rke2`
/// gives it to containerd alone unless told otherwise.
pub(crate) const SCOPE_ALL: &str = "The file sets HTTP_PROXY or HTTPS_PROXY without the `CONTAINERD_` prefix, which the rke2/k3s process, its kubelet and containerd read; the profile does not say which components get the proxy, and `clusterproxy_rke2` (and `render(\"rke2\", ...)`) gives it to containerd alone by default: render it with `scope = \"all\"` to keep what this file does.";

/// The RKE2 and k3s importer.
#[derive(Debug, Clone, Copy)]
pub struct Rke2;

impl Importer for Rke2 {
    fn kind(&self) -> &'static str {
        "rke2"
    }

    fn platform(&self) -> &'static str {
        "RKE2/k3s"
    }

    /// An environment file (`/etc/default/rke2-server`, `k3s.service.env`):
    /// only `NAME=value` lines, comments and blank lines, one of them a
    /// proxy variable (or its `CONTAINERD_` form).
    fn recognises(&self, file: &Scanned) -> Recognised {
        let mut proxy = false;
        for line in file.text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with(['#', ';']) {
                continue;
            }
            let Some((name, _)) = line.split_once('=') else {
                return Recognised::No;
            };
            let name = name.trim().strip_prefix("export ").unwrap_or(name).trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Recognised::No;
            }
            let bare = name.strip_prefix("CONTAINERD_").unwrap_or(name);
            proxy |= ["http_proxy", "https_proxy"]
                .iter()
                .any(|wanted| bare.eq_ignore_ascii_case(wanted));
        }
        if proxy {
            Recognised::Lines
        } else {
            Recognised::No
        }
    }

    fn reads(&self) -> &'static str {
        "RKE2 `/etc/default/rke2-*` or k3s `*.service.env` environment file"
    }

    /// Reads the proxy variables of an environment file.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let mut pairs = Vec::new();
        let mut every_component = false;
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', ';']) {
                continue;
            }
            let Some((name, raw)) = line.split_once('=') else {
                return Err(error(format!(
                    "Line {}: not a `NAME=value` assignment; is this an RKE2 or k3s environment file?",
                    index + 1
                )));
            };
            let name = name.trim();
            let bare = name.strip_prefix("CONTAINERD_").unwrap_or(name);
            if ["http_proxy", "https_proxy", "no_proxy"]
                .iter()
                .any(|wanted| bare.eq_ignore_ascii_case(wanted))
            {
                every_component |= bare == name && !bare.eq_ignore_ascii_case("no_proxy");
                pairs.push((bare.to_owned(), value(raw, index + 1)?));
            }
        }
        if pairs.is_empty() {
            return Err(error(
                "No proxy variable (HTTP_PROXY, HTTPS_PROXY, NO_PROXY or their CONTAINERD_ forms) found.",
            ));
        }
        systemd::refuse_unexpanded(&pairs)?;
        let mut found = systemd::from_variables(&pairs)?;
        if every_component {
            found.warnings.push(SCOPE_ALL.to_owned());
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::rke2::{env_file, Scope};
    use crate::render::tests::settings;
    use crate::render::Secrets;

    /// What the renderer writes, in either scope, reads back to its settings.
    #[test]
    fn reads_what_the_renderer_writes() {
        let s = settings();
        for scope in [Scope::Containerd, Scope::All] {
            let found = Rke2.read(&env_file(&s, scope, Secrets::Include)).unwrap();
            assert_eq!(
                found.http_proxy.as_deref(),
                Some(s.http_proxy.as_ref().unwrap().to_secret_string().as_str())
            );
            assert_eq!(found.no_proxy, s.no_proxy);
        }
    }

    /// A file that proxies every component imports with a warning naming
    /// `scope = "all"`, and rendering the import with that scope gives the
    /// same variables back; a containerd-only file imports without it.
    #[test]
    fn every_component_scope_survives_the_round_trip() {
        let text = "HTTP_PROXY=\"http://proxy.corp.example:3128\"\nHTTPS_PROXY=\"http://proxy.corp.example:3128\"\nNO_PROXY=\"registry.corp.example\"\n";
        let imported = crate::import::parse("rke2", text).unwrap();
        let warning = imported
            .warnings
            .iter()
            .find(|w| w.contains("scope = \"all\""))
            .unwrap_or_else(|| panic!("{:?}", imported.warnings));
        assert!(warning.contains("CONTAINERD_"), "{warning}");
        let s = settings();
        let back = Rke2
            .read(&env_file(&s, Scope::All, Secrets::Include))
            .unwrap();
        assert_eq!(back.warnings, [SCOPE_ALL]);
        let containerd = Rke2
            .read(&env_file(&s, Scope::Containerd, Secrets::Include))
            .unwrap();
        assert!(containerd.warnings.is_empty(), "{:?}", containerd.warnings);
    }

    proptest::proptest! {
        /// Any text, also with quotes, backslashes and multi-byte characters
        /// around `=`, is read or refused without a panic.
        #[test]
        fn never_panics(text in r#"([A-Z_]{0,20}=?["'\\é;# a-z:/,.]{0,30}\n?){0,5}"#) {
            let _ = Rke2.read(&text);
        }
    }

    #[test]
    fn quoting_and_conflicts() {
        let found = Rke2.read("K3S_TOKEN='x'\n# c\n; c\nHTTP_PROXY='http://a:1/'\nCONTAINERD_NO_PROXY=\"a,b\\\"c\"  \n").unwrap();
        assert_eq!(found.http_proxy.as_deref(), Some("http://a:1/"));
        assert_eq!(found.no_proxy, ["a", "b\"c"]);
        for bad in [
            "HTTP_PROXY=\"http://a:1",
            "HTTP_PROXY='x",
            "HTTP_PROXY=\"a\"b\"",
            "just text",
            "K3S_TOKEN=x",
            "HTTP_PROXY=http://a:1\nCONTAINERD_HTTP_PROXY=http://b:1",
        ] {
            assert!(Rke2.read(bad).is_err(), "{bad}");
        }
    }
}
