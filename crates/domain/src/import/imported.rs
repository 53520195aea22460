//! The settings of a profile read from an artifact ([`Imported`]), after
//! classification: what was kept, what was left out and why, and the note
//! that says so.

use super::facts::{fact_values, FactValue};
use super::hint::Syntax;
use super::input::error;
use crate::no_proxy::Cluster;
use crate::profile::ProfileInput;
use crate::proxy_url::ProxyUrl;
use crate::{Finding, InputField};

/// An entry left out of the installation-wide list, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The normalised entry.
    pub entry: String,
    /// Why it is cluster-specific (or redundant).
    pub reason: String,
}

/// The settings of a profile, read from an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// Profile name: the cluster's name when the artifact has one, else the kind.
    pub name: String,
    /// Where in the artifact the name was found, in words, if the importer says.
    pub name_from: Option<String>,
    /// HTTP proxy without credentials, spelt as the artifact writes it
    /// (`http://` prefixed when it has no scheme), so that a configuration
    /// that says what the artifact says plans no change.
    pub http_proxy: Option<String>,
    /// HTTPS proxy without credentials, spelt as the artifact writes it.
    pub https_proxy: Option<String>,
    /// Proxy user name.
    pub username: Option<String>,
    /// Proxy password.
    pub password: Option<String>,
    /// Installation-wide entries, normalised, in order.
    pub no_proxy: Vec<String>,
    /// Entries left out of `no_proxy`, each with the reason.
    pub dropped: Vec<Dropped>,
    /// Trusted CA (PEM).
    pub trusted_ca: Option<String>,
    /// The cluster facts used to classify (import ID and artifact): what to
    /// give the renderers so that they add the dropped entries back.
    pub facts: Cluster,
    /// Entries the platform adds to NO_PROXY by itself (e.g. TKG's appended
    /// list, AKS's injected ones).
    pub platform: Vec<String>,
    /// The artifact sets HTTP_PROXY but no HTTPS_PROXY: it sends HTTPS direct.
    pub https_direct: bool,
    /// What was read differently from how it was written (e.g. a proxy URL
    /// without a scheme), and what could not be classified.
    pub warnings: Vec<String>,
}

impl Imported {
    /// The profile settings read from the artifact, as a configuration
    /// writes them: an HTTPS proxy equal to the HTTP proxy is left unset, as
    /// a profile's `https_proxy` defaults to `http_proxy`, so that a profile
    /// imported from any kind of artifact plans no change for a
    /// configuration that leaves `https_proxy` unset. The fields of `self`
    /// keep what the artifact holds.
    pub fn input(&self) -> ProfileInput {
        ProfileInput {
            http_proxy: self.http_proxy.clone(),
            https_proxy: self
                .https_proxy
                .clone()
                .filter(|https| !same_proxy(self.http_proxy.as_deref(), https)),
            username: self.username.clone(),
            password: self.password.clone(),
            no_proxy: self.no_proxy.clone(),
            trusted_ca: self.trusted_ca.clone(),
        }
    }

    /// What was kept, what was left out and why, what changed meaning and
    /// which cluster inputs the renderers need: readable in plan output.
    pub fn note(&self) -> String {
        let mut out = Vec::new();
        if self.no_proxy.is_empty() {
            out.push("Kept as installation-wide NO_PROXY: nothing.".to_owned());
        } else {
            out.push(format!(
                "Kept as installation-wide NO_PROXY ({}): {}.",
                self.no_proxy.len(),
                self.no_proxy.join(", ")
            ));
        }
        if self.dropped.is_empty() {
            out.push("Every NO_PROXY entry was kept as installation-wide.".to_owned());
        } else {
            out.push("These NO_PROXY entries were left out of the profile because they are cluster-specific or redundant; the renderer data sources add them from the cluster inputs:".to_owned());
            out.extend(
                self.dropped
                    .iter()
                    .map(|d| format!("  - {}: {}", d.entry, d.reason)),
            );
        }
        let inputs = fact_lines(&self.facts);
        if !inputs.is_empty() {
            out.push("Give the renderers these cluster inputs:".to_owned());
            out.extend(inputs.into_iter().map(|l| format!("  - {l}")));
        }
        if let Some(from) = &self.name_from {
            out.push(format!("Named `{}` after {from}.", self.name));
        }
        if !self.warnings.is_empty() {
            out.push("Read differently from how the artifact writes it:".to_owned());
            out.extend(self.warnings.iter().map(|w| format!("  - {w}")));
        }
        out.join("\n")
    }

    /// Checks that a profile keeps the artifact's meaning: a profile's
    /// `https_proxy` defaults to `http_proxy`, so an artifact that sends
    /// HTTPS direct is refused unless `https_through_proxy` accepts the
    /// change (which is then listed in [`Imported::warnings`]).
    /// The hint of a refusal is written in `syntax`, for an import of `kind`.
    pub fn keep_meaning(
        &mut self,
        https_through_proxy: bool,
        kind: &str,
        syntax: &Syntax,
    ) -> Result<(), Finding> {
        if !self.https_direct {
            return Ok(());
        }
        if !https_through_proxy {
            return Err(error(format!(
                "The artifact sets HTTP_PROXY but no HTTPS_PROXY, so its clients send HTTPS direct. A profile's `https_proxy` defaults to `http_proxy`, which would send HTTPS through the proxy. Either add HTTPS_PROXY to the artifact, or accept the change with the import option `https_through_proxy=true`, e.g. {}.",
                syntax.options(kind, "https_through_proxy=true", "file:PATH")
            )));
        }
        self.warnings.push(format!(
            "HTTPS: the artifact sends it direct; the profile sends it through {} (accepted with `https_through_proxy=true`).",
            self.http_proxy.as_deref().unwrap_or_default()
        ));
        Ok(())
    }
}

/// Whether `http` and `https` name the same proxy once normalised.
fn same_proxy(http: Option<&str>, https: &str) -> bool {
    let plain = |url: &str| {
        ProxyUrl::parse(InputField::HttpProxy, url)
            .ok()
            .map(|u| u.to_plain_string())
    };
    http.is_some_and(|http| plain(http).is_some() && plain(http) == plain(https))
}

/// The facts as renderer inputs (`pod_cidrs = [...]`), for the note.
fn fact_lines(facts: &Cluster) -> Vec<String> {
    fact_values(facts)
        .into_iter()
        .map(|(name, value)| match value {
            FactValue::List(list) => format!("{name} = [{}]", quoted(list)),
            FactValue::Single(value) => format!("{name} = {value:?}"),
        })
        .collect()
}

fn quoted(list: &[String]) -> String {
    list.iter()
        .map(|e| format!("{e:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
