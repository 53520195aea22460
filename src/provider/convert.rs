//! Conversions between framework diagnostics/values and domain findings/lists.

use crate::domain::{Finding, InputField, Location, Severity};
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::provider::attributes::{
    Aggregation, ClusterConfig, ClusterInputs, ProfileRevision, RendererInputs, Settings,
    UnitsInput, LISTS,
};

/// Where a configuration holds the proxy settings, hence where findings
/// about them point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsAt {
    /// Attributes named as in `clusterproxy_profile` (the installation list
    /// is `no_proxy`), under the prefix: the profile resource, a profile's
    /// `settings`, an imported artifact.
    Profile,
    /// A renderer's own attributes (the installation list is `installation`).
    Renderer,
    /// A renderer's `profile` attribute (its `settings`).
    RendererProfile,
}

/// The attribute path of a finding's location in a configuration whose
/// inputs live under `prefix`, with the proxy settings placed as `settings`
/// says: `prefix` itself for a finding about the whole (no location, or the
/// imported document's list), `None` for inputs no attribute holds (the
/// merged list, built-in and platform defaults).
pub fn path(
    location: Option<Location>,
    prefix: &AttributePath,
    settings: SettingsAt,
) -> Option<AttributePath> {
    let Some(Location { field, index }) = location else {
        return Some(prefix.clone());
    };
    let at = |name: &str| prefix.clone().attr(name);
    let proxy = |name: &str| match settings {
        SettingsAt::RendererProfile => AttributePath::attribute(RendererInputs::profile).attr(name),
        SettingsAt::Profile | SettingsAt::Renderer => at(name),
    };
    let path = match field {
        InputField::HttpProxy => proxy(Settings::http_proxy),
        InputField::HttpsProxy => proxy(Settings::https_proxy),
        InputField::Username => proxy(Settings::username),
        InputField::Password => proxy(Settings::password),
        InputField::TrustedCa => proxy(Settings::trusted_ca),
        InputField::Installation if settings == SettingsAt::Renderer => {
            at(ClusterConfig::installation)
        }
        InputField::Installation => proxy(Settings::no_proxy),
        InputField::Revision => at(ProfileRevision::revision),
        InputField::PodCidrs => at(ClusterInputs::pod_cidrs),
        InputField::ServiceCidrs => at(ClusterInputs::service_cidrs),
        InputField::NodeCidrs => at(ClusterInputs::node_cidrs),
        InputField::ClusterDomain => at(ClusterInputs::cluster_domain),
        InputField::ApiserverHost => at(ClusterInputs::apiserver_host),
        InputField::ApiserverIp => at(ClusterInputs::apiserver_ip),
        InputField::ControlPlaneEndpoint => at(ClusterInputs::control_plane_endpoint),
        InputField::Cloud => at(ClusterInputs::cloud),
        InputField::Extra => at(ClusterInputs::extra),
        InputField::AggregateCidrs => at(Aggregation::aggregate_cidrs),
        InputField::List(n) => at(LISTS).index(n),
        InputField::Units => at(UnitsInput::units),
        InputField::Option(attribute) => at(attribute),
        InputField::Artifact => return Some(prefix.clone()),
        InputField::Merged | InputField::Defaults | InputField::Platform(_) => return None,
    };
    Some(match index {
        Some(index) => path.index(index),
        None => path,
    })
}

/// The diagnostic of a finding, at `path`.
fn diagnostic(finding: &Finding, path: Option<AttributePath>) -> Diagnostic {
    let diagnostic = match finding.severity {
        Severity::Error => Diagnostic::error(&finding.summary, &finding.detail),
        Severity::Warning => Diagnostic::warning(&finding.summary, &finding.detail),
    };
    let diagnostic = match finding.warning {
        Some(kind) => diagnostic.with_id(kind.code()),
        None => diagnostic,
    };
    match path {
        Some(path) if !path.steps().is_empty() => diagnostic.at(path),
        _ => diagnostic,
    }
}

/// Adds domain findings as diagnostics pointing at their attribute (and
/// element): see [`path`].
pub fn push_findings(
    findings: &[Finding],
    prefix: &AttributePath,
    settings: SettingsAt,
    diags: &mut Diagnostics,
) {
    for finding in findings {
        diags.push(diagnostic(
            finding,
            path(finding.location, prefix, settings),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proxy settings and the installation list are named by where the
    /// configuration holds them; the other inputs by their attribute.
    #[test]
    fn locations_map_to_the_attribute_that_holds_the_input() {
        use crate::domain::render::{kubespray, openshift, talos};
        use SettingsAt::{Profile, Renderer, RendererProfile as UnderProfile};
        let root = AttributePath::root();
        let content = AttributePath::attribute("content");
        let at = |input, index| Some(Location::element(input, index));
        let whole = |field: InputField| Some(field.into());
        let cases = [
            (
                at(InputField::Installation, 1),
                &root,
                Profile,
                "no_proxy[1]",
            ),
            (
                at(InputField::Installation, 1),
                &root,
                Renderer,
                "installation[1]",
            ),
            (
                at(InputField::Installation, 1),
                &root,
                UnderProfile,
                "profile.no_proxy[1]",
            ),
            (
                at(InputField::Installation, 1),
                &content,
                Profile,
                "content.no_proxy[1]",
            ),
            (whole(InputField::Password), &root, Renderer, "password"),
            (
                whole(InputField::Password),
                &root,
                UnderProfile,
                "profile.password",
            ),
            (whole(InputField::Cloud), &root, UnderProfile, "cloud"),
            (at(InputField::Extra, 2), &root, UnderProfile, "extra[2]"),
            (at(InputField::Units, 0), &root, Renderer, "units[0]"),
            (at(InputField::List(3), 4), &root, Renderer, "lists[3][4]"),
            (whole(InputField::Revision), &root, Profile, "revision"),
            (
                whole(InputField::AggregateCidrs),
                &root,
                Renderer,
                "aggregate_cidrs",
            ),
            (
                whole(talos::TALOS_VERSION),
                &root,
                Renderer,
                "talos_version",
            ),
            (
                at(openshift::READINESS_ENDPOINTS, 2),
                &root,
                UnderProfile,
                "readiness_endpoints[2]",
            ),
            (
                whole(kubespray::APISERVER_LOADBALANCER_DOMAIN_NAME),
                &root,
                Renderer,
                "apiserver_loadbalancer_domain_name",
            ),
            (None, &content, Profile, "content"),
            (None, &root, Renderer, ""),
            (at(InputField::Artifact, 5), &content, Profile, "content"),
            (at(InputField::Merged, 7), &root, Renderer, "-"),
            (whole(InputField::Defaults), &root, Renderer, "-"),
        ];
        for (location, prefix, settings, want) in cases {
            let shown = path(location, prefix, settings).map(|p| p.to_string());
            assert_eq!(
                shown.as_deref().unwrap_or("-"),
                want,
                "{location:?} {settings:?}"
            );
        }
    }

    /// A finding about the whole, or about an input no attribute holds,
    /// carries no attribute path; the others carry theirs.
    #[test]
    fn diagnostics_carry_a_path_only_where_an_attribute_holds_the_input() {
        let mut diags = Diagnostics::new();
        let findings = [
            Finding::error(Location::element(InputField::Merged, 0), "merged", "d"),
            Finding::warning(
                crate::domain::warning::Warning::NoProxyStar,
                None,
                "whole",
                "d",
            ),
            Finding::error(InputField::HttpProxy, "proxy", "d"),
        ];
        push_findings(
            &findings,
            &AttributePath::root(),
            SettingsAt::RendererProfile,
            &mut diags,
        );
        let paths: Vec<_> = diags
            .iter()
            .map(|d| d.path.as_ref().map(ToString::to_string))
            .collect();
        assert_eq!(paths, [None, None, Some("profile.http_proxy".to_owned())]);
        let ids: Vec<_> = diags.iter().map(|d| d.id).collect();
        assert_eq!(
            ids,
            [None, Some("no_proxy_star"), None],
            "a warning keeps its kind"
        );
    }
}
