//! Import from a Cluster API KubeadmControlPlane or KubeadmConfigTemplate
//! manifest: the proxy drop-in among its `files` (inline, base64 or not), else
//! the `export` lines of its `preKubeadmCommands`.

use crate::redact::quoted;
use base64::Engine as _;
use serde_json::Value;

use super::found::{
    Found, Importer, Recognised, Scanned, CLUSTER_DOMAIN, CONTROL_PLANE, POD_CIDR, SERVICE_CIDR,
};
use super::input::{documents, error, items, strings, text_at};
use super::systemd;
use crate::Finding;

/// The Cluster API importer, EKS Anywhere included.
#[derive(Debug, Clone, Copy)]
pub struct Capi;

impl Importer for Capi {
    fn kind(&self) -> &'static str {
        "capi"
    }

    fn platform(&self) -> &'static str {
        "CAPI (and EKS Anywhere)"
    }

    /// A kubeadm config that mentions a proxy; EKS Anywhere: a Cluster with
    /// `proxyConfiguration`.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| match text_at(document, &["kind"]) {
            Some("KubeadmControlPlane" | "KubeadmConfigTemplate" | "KubeadmConfig") => {
                mentions_proxy(document)
            }
            Some("Cluster") => document.pointer("/spec/proxyConfiguration").is_some(),
            _ => false,
        })
    }

    fn reads(&self) -> &'static str {
        "KubeadmControlPlane / KubeadmConfigTemplate, with the Cluster when at hand, or an EKS Anywhere Cluster"
    }

    /// Reads the proxy settings of the first kubeadm config that has them. The
    /// cluster's networks come from a `Cluster` in the same manifest
    /// (`spec.clusterNetwork.pods.cidrBlocks`, `.services.cidrBlocks`,
    /// `.serviceDomain`, `spec.controlPlaneEndpoint`; cluster-api
    /// api/v1beta1/cluster_types.go, `ClusterNetwork`), which TKG, EKS Anywhere
    /// and Giant Swarm fill, else from the kubeadm `clusterConfiguration.networking`;
    /// the control-plane endpoint also from the infrastructure cluster
    /// (`NutanixCluster`, `VSphereCluster`...; see `infrastructure_facts`).
    /// The profile is named after the cluster (see `cluster_name`).
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let cluster = documents
            .iter()
            .find(|d| text_at(d, &["kind"]) == Some("Cluster"));
        for document in &documents {
            let (spec, at) = match text_at(document, &["kind"]) {
                Some("KubeadmControlPlane") => (
                    document.pointer("/spec/kubeadmConfigSpec"),
                    "spec.kubeadmConfigSpec",
                ),
                Some("KubeadmConfigTemplate") => (
                    document.pointer("/spec/template/spec"),
                    "spec.template.spec",
                ),
                Some("KubeadmConfig") => (document.get("spec"), "spec"),
                _ => (None, ""),
            };
            let Some(spec) = spec else { continue };
            let mut found = match from_files(spec, at)? {
                Some(found) => found,
                None => match from_exports(spec)? {
                    Some(found) => found,
                    None => continue,
                },
            };
            (found.cluster_name, found.name_from) =
                cluster_name(document, cluster, &documents).unzip();
            if let Some(cluster) = cluster {
                cluster_facts(cluster, &mut found.cluster_entries);
                eks_anywhere_facts(cluster, &documents, &mut found.cluster_entries);
            }
            infrastructure_facts(cluster, &documents, &mut found.cluster_entries);
            kubeadm_facts(spec, &mut found.cluster_entries);
            return Ok(found);
        }
        if let Some(mut found) = cluster.and_then(eks_anywhere) {
            if let Some(cluster) = cluster {
                eks_anywhere_facts(cluster, &documents, &mut found.cluster_entries);
            }
            return Ok(found);
        }
        Err(error(
            "No KubeadmControlPlane, KubeadmConfigTemplate or KubeadmConfig with proxy settings, nor an EKS Anywhere Cluster with `proxyConfiguration`, found.",
        ))
    }
}

/// The label Cluster API puts the cluster's name in
/// (api/v1beta1/common_types.go, `ClusterNameLabel`).
const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";

/// The API group of Cluster API's own kinds (Cluster, MachineDeployment...).
const CLUSTER_GROUP: &str = "cluster.x-k8s.io";

/// The API group of every Cluster API infrastructure provider's kinds.
const INFRASTRUCTURE_GROUP: &str = "infrastructure.cluster.x-k8s.io";

/// The API group and kind of a document.
fn group_kind(document: &Value) -> (Option<&str>, &str) {
    let group = text_at(document, &["apiVersion"]).and_then(|v| v.split('/').next());
    (group, text_at(document, &["kind"]).unwrap_or_default())
}

/// The cluster the kubeadm config `document` belongs to, and how that was
/// found, in words for the import note: the `Cluster` document; else the
/// config's (or its template's) `cluster.x-k8s.io/cluster-name` label;
/// else its owner reference to a `Cluster`, which Cluster API sets on the
/// templates a MachineDeployment or MachineSet uses
/// (internal/controllers/machinedeployment, `reconcileExternalTemplateReference`);
/// else `spec.clusterName` of a MachineDeployment, MachineSet or
/// MachinePool in the manifest whose `bootstrap.configRef` names it; else,
/// for a KubeadmConfigTemplate named `<cluster>-md-0-template-<digits>`, the
/// cluster EKS Anywhere's naming states (aws/eks-anywhere
/// pkg/providers/common/common.go `KubeadmConfigTemplateName`:
/// `<cluster>-<node group>-template-<Unix milliseconds>`, and
/// pkg/api/v1alpha1/cluster_defaults.go names the first node group `md-0`;
/// other node group names cannot be told from the cluster's, so they are
/// not split); else the config's own name (without `-control-plane`).
fn cluster_name(
    document: &Value,
    cluster: Option<&Value>,
    documents: &[Value],
) -> Option<(String, String)> {
    let (_, kind) = group_kind(document);
    let name = text_at(document, &["metadata", "name"]).unwrap_or_default();
    let this = format!("{kind} `{name}`");
    let found = |cluster: &str, how: String| Some((cluster.to_owned(), how));
    if let Some(cluster) = cluster.and_then(|c| text_at(c, &["metadata", "name"])) {
        return found(cluster, "the Cluster document".to_owned());
    }
    for (labels, whose) in [
        ("/metadata/labels", this.clone()),
        (
            "/spec/template/metadata/labels",
            format!("the template of {this}"),
        ),
    ] {
        let label = document
            .pointer(labels)
            .and_then(|l| text_at(l, &[CLUSTER_NAME_LABEL]));
        if let Some(cluster) = label {
            return found(
                cluster,
                format!("the `{CLUSTER_NAME_LABEL}` label of {whose}"),
            );
        }
    }
    if let Some(cluster) = items(document.pointer("/metadata/ownerReferences"))
        .iter()
        .find(|owner| group_kind(owner) == (Some(CLUSTER_GROUP), "Cluster"))
        .and_then(|owner| text_at(owner, &["name"]))
    {
        return found(
            cluster,
            format!("the owner reference of {this} to its Cluster"),
        );
    }
    for machines in documents {
        let (group, machines_kind) = group_kind(machines);
        let config = machines.pointer("/spec/template/spec/bootstrap/configRef");
        let uses = config.is_some_and(|c| {
            text_at(c, &["kind"]) == Some(kind) && text_at(c, &["name"]) == Some(name)
        });
        if group == Some(CLUSTER_GROUP) && uses {
            if let Some(cluster) = text_at(machines, &["spec", "clusterName"]) {
                let machines_name = text_at(machines, &["metadata", "name"]).unwrap_or_default();
                return found(
                    cluster,
                    format!("`spec.clusterName` of {machines_kind} `{machines_name}`, which uses {this}"),
                );
            }
        }
    }
    let eks_anywhere = name
        .rsplit_once("-template-")
        .filter(|(_, millis)| !millis.is_empty() && millis.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|(group, _)| group.strip_suffix("-md-0"))
        .filter(|cluster| !cluster.is_empty() && kind == "KubeadmConfigTemplate");
    if let Some(cluster) = eks_anywhere {
        return found(
            cluster,
            format!("the name of {this}, by EKS Anywhere's `<cluster>-md-0-template-<milliseconds>` naming of a cluster's first node group"),
        );
    }
    let own = name.strip_suffix("-control-plane").unwrap_or(name);
    (!own.is_empty()).then(|| {
        (
            own.to_owned(),
            format!("the name of {this}: nothing in the artifact names its cluster"),
        )
    })
}

/// `spec.controlPlaneEndpoint.host` of the manifest's infrastructure
/// cluster: every `*Cluster` kind of the infrastructure group
/// (NutanixCluster, VSphereCluster, CloudStackCluster, DockerCluster,
/// AWSCluster, AzureCluster...) holds the cluster's own API endpoint there,
/// as Cluster API's InfraCluster contract requires
/// (docs/book/src/developer/providers/contracts/infra-cluster.md), and
/// Cluster API copies it to the Cluster only at run time, so a generated
/// manifest (EKS Anywhere's for Nutanix) has it nowhere else. With a
/// Cluster whose `spec.infrastructureRef` names one, only that one.
fn infrastructure_facts(
    cluster: Option<&Value>,
    documents: &[Value],
    out: &mut Vec<(String, &'static str)>,
) {
    let named = cluster
        .and_then(|c| c.pointer("/spec/infrastructureRef"))
        .map(|r| (text_at(r, &["kind"]), text_at(r, &["name"])));
    for document in documents {
        let (group, kind) = group_kind(document);
        let name = text_at(document, &["metadata", "name"]);
        if group != Some(INFRASTRUCTURE_GROUP)
            || !kind.ends_with("Cluster")
            || named.is_some_and(|named| named != (Some(kind), name))
        {
            continue;
        }
        if let Some(host) = text_at(document, &["spec", "controlPlaneEndpoint", "host"]) {
            out.push((host.to_owned(), CONTROL_PLANE));
        }
    }
}

/// An EKS Anywhere `Cluster` (anywhere.eks.amazonaws.com): its
/// `spec.proxyConfiguration` (`httpProxy`, `httpsProxy`, `noProxy` list;
/// aws/eks-anywhere pkg/api/v1alpha1/cluster_types.go, `ProxyConfiguration`),
/// whose documented proxies have no scheme, and its networks and
/// `controlPlaneConfiguration.endpoint.host`.
fn eks_anywhere(cluster: &Value) -> Option<Found> {
    let proxy = cluster.pointer("/spec/proxyConfiguration")?;
    let mut found = Found {
        cluster_name: text_at(cluster, &["metadata", "name"]).map(str::to_owned),
        name_from: Some("the EKS Anywhere Cluster".to_owned()),
        http_proxy: text_at(proxy, &["httpProxy"]).map(str::to_owned),
        https_proxy: text_at(proxy, &["httpsProxy"]).map(str::to_owned),
        no_proxy: strings(proxy.get("noProxy")).map(str::to_owned).collect(),
        ..Found::default()
    };
    cluster_facts(cluster, &mut found.cluster_entries);
    Some(found)
}

/// Reason of the endpoint of an EKS Anywhere cluster's datacenter.
const DATACENTER_ENDPOINT: &str =
    "datacenter endpoint of this cluster, added to NO_PROXY by EKS Anywhere";

/// What EKS Anywhere adds to its clusters' NO_PROXY besides the networks:
/// the control-plane endpoint (`controlPlaneConfiguration.endpoint.host`)
/// and the endpoint of the datacenter config that `spec.datacenterRef`
/// names (aws/eks-anywhere pkg/api/v1alpha1: VSphereDatacenterConfig
/// `server`, NutanixDatacenterConfig `endpoint`, CloudStackDatacenterConfig
/// `availabilityZones[].managementApiEndpoint` as a URL, TinkerbellDatacenterConfig
/// `tinkerbellIP`; the providers' templates append them, e.g.
/// pkg/providers/cloudstack/template.go). Both are the cluster's own.
fn eks_anywhere_facts(cluster: &Value, documents: &[Value], out: &mut Vec<(String, &'static str)>) {
    if let Some(host) = cluster
        .pointer("/spec/controlPlaneConfiguration/endpoint/host")
        .and_then(Value::as_str)
    {
        out.push((host.to_owned(), CONTROL_PLANE));
    }
    let (Some(kind), Some(name)) = (
        text_at(cluster, &["spec", "datacenterRef", "kind"]),
        text_at(cluster, &["spec", "datacenterRef", "name"]),
    ) else {
        return;
    };
    let Some(spec) = documents
        .iter()
        .find(|d| {
            text_at(d, &["kind"]) == Some(kind) && text_at(d, &["metadata", "name"]) == Some(name)
        })
        .and_then(|d| d.get("spec"))
    else {
        return;
    };
    let mut endpoints: Vec<String> = ["server", "endpoint", "tinkerbellIP"]
        .iter()
        .filter_map(|key| text_at(spec, &[key]))
        .map(str::to_owned)
        .collect();
    endpoints.extend(
        items(spec.get("availabilityZones"))
            .iter()
            .chain(std::iter::once(spec))
            .filter_map(|zone| text_at(zone, &["managementApiEndpoint"]))
            .filter_map(url_host)
            .map(str::to_owned),
    );
    out.extend(endpoints.into_iter().map(|e| (e, DATACENTER_ENDPOINT)));
}

/// The host of an absolute URL (`https://host:port/path`), without brackets.
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host.split(':').next()?,
    };
    (!host.is_empty()).then_some(host)
}

/// Facts of a CAPI `Cluster`.
pub(super) fn cluster_facts(cluster: &Value, out: &mut Vec<(String, &'static str)>) {
    for (pointer, why) in [
        ("/spec/clusterNetwork/pods/cidrBlocks", POD_CIDR),
        ("/spec/clusterNetwork/services/cidrBlocks", SERVICE_CIDR),
    ] {
        for cidr in strings(cluster.pointer(pointer)) {
            out.push((cidr.to_owned(), why));
        }
    }
    if let Some(domain) = cluster
        .pointer("/spec/clusterNetwork/serviceDomain")
        .and_then(Value::as_str)
    {
        out.push((domain.to_owned(), CLUSTER_DOMAIN));
    }
    if let Some(host) = cluster
        .pointer("/spec/controlPlaneEndpoint/host")
        .and_then(Value::as_str)
    {
        out.push((host.to_owned(), CONTROL_PLANE));
    }
}

/// Facts of a kubeadm `clusterConfiguration`.
fn kubeadm_facts(spec: &Value, out: &mut Vec<(String, &'static str)>) {
    for (pointer, why) in [
        ("/clusterConfiguration/networking/podSubnet", POD_CIDR),
        (
            "/clusterConfiguration/networking/serviceSubnet",
            SERVICE_CIDR,
        ),
        ("/clusterConfiguration/networking/dnsDomain", CLUSTER_DOMAIN),
        ("/clusterConfiguration/controlPlaneEndpoint", CONTROL_PLANE),
    ] {
        if let Some(value) = spec.pointer(pointer).and_then(Value::as_str) {
            for part in value.split(',') {
                let host = part
                    .rsplit_once(':')
                    .filter(|(h, p)| !h.contains(':') && p.bytes().all(|b| b.is_ascii_digit()))
                    .map_or(part, |(h, _)| h);
                out.push((host.trim().to_owned(), why));
            }
        }
    }
}

/// The longest template action a finding quotes.
const MAX_ACTION_SHOWN: usize = 64;

/// The first Go text/template action (`{{ ... }}`) of `content`, if any.
fn template_action(content: &str) -> Option<&str> {
    let start = content.find("{{")?;
    let end = content[start..]
        .find("}}")
        .map_or(content.len(), |end| start + end + 2);
    Some(&content[start..end])
}

/// The refusal of a drop-in that is a Go text/template with actions: the
/// proxy settings are what Cluster API fills in when it bootstraps a machine
/// (cluster-api v1.14.0 api/bootstrap/kubeadm/v1beta2 `File.ContentFormat`:
/// `Template` renders the content with text/template, whose only variable is
/// `.controlPlane.version`; `Raw` or none uses it verbatim), so the file
/// holds none to import. It names the file, the field and the action
/// (bounded, credentials in it redacted).
fn template_refused(path: &str, field: &str, action: &str) -> Finding {
    let shown = match action.char_indices().nth(MAX_ACTION_SHOWN) {
        Some((cut, _)) => format!("{}...", &action[..cut]),
        None => action.to_owned(),
    };
    error(format!(
        "The drop-in {path} (`{field}`) is a Go text/template (`contentFormat: Template`) holding the template action {action}, which Cluster API fills in only when it bootstraps a machine: the file holds no proxy settings to import. Import the manifest the template is rendered from with the values written out, or with `contentFormat: Raw` (or none) and the settings in the content.",
        path = quoted(path),
        action = quoted(&shown),
    ))
}

/// Reads the proxy drop-in among the `files` of the kubeadm config spec
/// `spec`, found at `at` (`spec.kubeadmConfigSpec`...), the same in
/// v1beta1 and v1beta2 (`path`, `content`, `encoding`, `contentFormat`).
fn from_files(spec: &Value, at: &str) -> Result<Option<Found>, Finding> {
    for (index, file) in items(spec.get("files")).iter().enumerate() {
        let path = text_at(file, &["path"]).unwrap_or_default();
        if !path.contains(".service.d/") {
            continue;
        }
        let Some(content) = text_at(file, &["content"]) else {
            continue;
        };
        let content = match text_at(file, &["encoding"]) {
            Some("base64") => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(content.split_whitespace().collect::<String>())
                    .map_err(|_| error(format!("The content of {path} is not base64.")))?;
                String::from_utf8(bytes)
                    .map_err(|_| error(format!("The content of {path} is not text.")))?
            }
            Some(other) if !other.is_empty() => {
                return Err(error(format!(
                    "The content of {path} uses encoding {other}; only base64 is read.",
                    other = quoted(other)
                )))
            }
            _ => content.to_owned(),
        };
        if !content.to_ascii_lowercase().contains("_proxy=") {
            continue;
        }
        match text_at(file, &["contentFormat"]) {
            Some("Template") => {
                if let Some(action) = template_action(&content) {
                    let field = format!("{at}.files[{index}].content");
                    return Err(template_refused(path, &field, action));
                }
            }
            None | Some("Raw") => {}
            Some(other) => {
                return Err(error(format!(
                    "The drop-in {path} has `contentFormat` {other}; Cluster API knows `Raw` and `Template`.",
                    path = quoted(path),
                    other = quoted(other)
                )))
            }
        }
        return systemd::Systemd.read(&content).map(Some);
    }
    Ok(None)
}

fn from_exports(spec: &Value) -> Result<Option<Found>, Finding> {
    let commands = items(spec.get("preKubeadmCommands"));
    let pairs: Vec<(String, String)> = commands
        .iter()
        .filter_map(Value::as_str)
        .filter_map(|c| c.trim().strip_prefix("export "))
        .filter_map(|assignment| assignment.split_once('='))
        .map(|(name, value)| (name.trim().to_owned(), shell_unquote(value.trim())))
        .collect();
    if !pairs
        .iter()
        .any(|(n, _)| n.to_ascii_lowercase().ends_with("_proxy"))
    {
        return Ok(None);
    }
    systemd::from_variables(&pairs).map(Some)
}

/// The value of a shell word: single quotes (with `'\''`), double quotes or bare.
fn shell_unquote(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => out.extend(chars.by_ref().take_while(|c| *c != '\'')),
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => out.push(chars.next().unwrap_or('\\')),
                        c => out.push(c),
                    }
                }
            }
            '\\' => out.push(chars.next().unwrap_or('\\')),
            c => out.push(c),
        }
    }
    out
}

/// Whether a proxy variable appears anywhere in `value` (the drop-in among
/// a kubeadm config's `files`, base64 or not, or its `preKubeadmCommands`).
fn mentions_proxy(value: &Value) -> bool {
    let names_proxy = |text: &str| {
        let lower = text.to_ascii_lowercase();
        lower.contains("http_proxy") || lower.contains("https_proxy")
    };
    match value {
        Value::String(s) => {
            names_proxy(s)
                || base64::engine::general_purpose::STANDARD
                    .decode(s.split_whitespace().collect::<String>())
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .is_some_and(|text| names_proxy(&text))
        }
        Value::Array(items) => items.iter().any(mentions_proxy),
        Value::Object(map) => map.values().any(mentions_proxy),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drop-in whose `contentFormat` is `Template` and whose content holds
    /// template actions is refused with a finding that names the file, the
    /// field and the action (credentials in it redacted), not the proxy URL
    /// the action stands in; a `Raw` one, and a `Template` without actions,
    /// are read as written, in v1beta1 and v1beta2 alike.
    #[test]
    fn template_drop_ins_are_refused_naming_the_template() {
        let manifest = |version: &str, format: &str, proxy: &str| {
            format!("apiVersion: controlplane.cluster.x-k8s.io/{version}\nkind: KubeadmControlPlane\nmetadata: {{name: c}}\nspec:\n  kubeadmConfigSpec:\n    files:\n      - path: /etc/kubernetes/audit.yaml\n        content: x\n      - path: /etc/systemd/system/containerd.service.d/http-proxy.conf\n        {format}\n        content: |\n          [Service]\n          Environment=\"HTTP_PROXY={proxy}\" \"NO_PROXY=keep.example\"\n")
        };
        for version in ["v1beta1", "v1beta2"] {
            for action in [
                "{{ .HttpProxy }}",
                "{{- .proxy.url -}}",
                "{{ \"http://u:s3cret@p.example\" }}",
            ] {
                let findings = crate::import::parse(
                    "capi",
                    &manifest(version, "contentFormat: Template", action),
                )
                .unwrap_err();
                let detail = &findings[0].detail;
                assert!(detail.contains("`contentFormat: Template`"), "{detail}");
                assert!(
                    detail.contains("`spec.kubeadmConfigSpec.files[1].content`"),
                    "{detail}"
                );
                assert!(
                    detail.contains("containerd.service.d/http-proxy.conf"),
                    "{detail}"
                );
                assert!(!detail.contains("whitespace"), "{detail}");
                assert!(!detail.contains("s3cret"), "{detail}");
                if !action.contains('@') {
                    assert!(detail.contains(&format!("{action:?}")), "{detail}");
                }
            }
            for format in [
                "contentFormat: Raw",
                "contentFormat: Template",
                "owner: root:root",
            ] {
                let imported = crate::import::parse(
                    "capi",
                    &manifest(version, format, "http://p.example:3128"),
                )
                .unwrap();
                assert_eq!(
                    imported.http_proxy.as_deref(),
                    Some("http://p.example:3128"),
                    "{format}"
                );
                assert_eq!(imported.no_proxy, ["keep.example"], "{format}");
            }
        }
        let bad = crate::import::parse(
            "capi",
            &manifest("v1beta2", "contentFormat: Jinja", "http://p.example:3128"),
        );
        assert!(bad.unwrap_err()[0].detail.contains("\"Jinja\""));
    }

    #[test]
    fn unquotes_shell_words() {
        assert_eq!(shell_unquote(r"'a'\''b'"), "a'b");
        assert_eq!(shell_unquote(r#""a\"b""#), "a\"b");
        assert_eq!(shell_unquote("plain"), "plain");
    }

    const DROP_IN: &str = "kind: KubeadmControlPlane\nmetadata: {name: c}\nspec:\n  kubeadmConfigSpec:\n    files:\n      - path: /etc/systemd/system/containerd.service.d/http-proxy.conf\n        content: |\n          [Service]\n          Environment=\"HTTP_PROXY=http://p.example:3128\" \"NO_PROXY=10.1.2.3,keep.example\"\n";

    fn endpoint_of(infrastructure: &str) -> Option<String> {
        crate::import::parse("capi", &format!("{DROP_IN}---\n{infrastructure}"))
            .unwrap()
            .facts
            .control_plane_endpoint
    }

    /// Every infrastructure provider's `*Cluster` declares the cluster's
    /// endpoint, read by group and field, whatever the kind; other kinds
    /// and groups, and an infrastructure cluster the Cluster does not
    /// reference, do not.
    #[test]
    fn infrastructure_clusters_declare_the_endpoint() {
        let endpoint = "spec: {controlPlaneEndpoint: {host: 10.1.2.3, port: 6443}}";
        for kind in [
            "NutanixCluster",
            "VSphereCluster",
            "CloudStackCluster",
            "DockerCluster",
            "AWSCluster",
            "AzureCluster",
        ] {
            let infrastructure = format!("apiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: {kind}\nmetadata: {{name: c}}\n{endpoint}\n");
            assert_eq!(
                endpoint_of(&infrastructure).as_deref(),
                Some("10.1.2.3"),
                "{kind}"
            );
            let imported =
                crate::import::parse("capi", &format!("{DROP_IN}---\n{infrastructure}")).unwrap();
            assert_eq!(imported.no_proxy, ["keep.example"], "{kind}");
        }
        for other in [
            format!("apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: DockerClusterTemplate\nmetadata: {{name: c}}\n{endpoint}\n"),
            format!("apiVersion: example.com/v1\nkind: VSphereCluster\nmetadata: {{name: c}}\n{endpoint}\n"),
            format!("apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {{name: c}}\nspec: {{infrastructureRef: {{kind: NutanixCluster, name: d}}}}\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: NutanixCluster\nmetadata: {{name: c}}\n{endpoint}\n"),
        ] {
            assert_eq!(endpoint_of(&other), None, "{other}");
        }
    }

    /// Without a Cluster document, a worker template is named after the
    /// cluster its label, owner reference, MachineDeployment or EKS
    /// Anywhere name states, and the note says which; else after itself.
    #[test]
    fn templates_are_named_after_their_cluster() {
        let template = |metadata: &str| {
            format!("apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\nkind: KubeadmConfigTemplate\nmetadata: {metadata}\nspec:\n  template:\n    spec:\n      preKubeadmCommands: ['export HTTP_PROXY=http://p.example:3128']\n")
        };
        for (text, name, how) in [
            (template("{name: w, labels: {cluster.x-k8s.io/cluster-name: c1}}"), "c1", "label of KubeadmConfigTemplate `w`"),
            (template("{name: w}").replace("    spec:\n      pre", "    metadata: {labels: {cluster.x-k8s.io/cluster-name: c2}}\n    spec:\n      pre"), "c2", "label of the template of KubeadmConfigTemplate `w`"),
            (template("{name: w, ownerReferences: [{apiVersion: cluster.x-k8s.io/v1beta1, kind: MachineDeployment, name: md}, {apiVersion: cluster.x-k8s.io/v1beta1, kind: Cluster, name: c3}]}"), "c3", "owner reference of KubeadmConfigTemplate `w` to its Cluster"),
            (format!("{}---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineSet\nmetadata: {{name: ms}}\nspec: {{clusterName: c4, template: {{spec: {{bootstrap: {{configRef: {{kind: KubeadmConfigTemplate, name: w}}}}}}}}}}\n", template("{name: w}")), "c4", "`spec.clusterName` of MachineSet `ms`"),
            (template("{name: c5-md-0-template-1700000000000}"), "c5", "EKS Anywhere's"),
            (template("{name: c6-md-1-template-1700000000000}"), "c6-md-1-template-1700000000000", "nothing in the artifact names its cluster"),
            (template("{name: c7-md-0-template-x}"), "c7-md-0-template-x", "nothing in the artifact names its cluster"),
        ] {
            let imported = crate::import::parse("capi", &text).unwrap();
            assert_eq!(imported.name, name, "{text}");
            assert!(imported.note().contains(&format!("Named `{name}` after ")), "{text}");
            assert!(imported.name_from.as_deref().is_some_and(|n| n.contains(how)), "{text}: {:?}", imported.name_from);
        }
        // A MachineDeployment that uses another template says nothing.
        let other = format!("{}---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nmetadata: {{name: md}}\nspec: {{clusterName: c8, template: {{spec: {{bootstrap: {{configRef: {{kind: KubeadmConfigTemplate, name: v}}}}}}}}}}\n", template("{name: w}"));
        assert_eq!(crate::import::parse("capi", &other).unwrap().name, "w");
    }

    /// The datacenter endpoint EKS Anywhere adds (vSphere `server`,
    /// CloudStack `managementApiEndpoint` URLs) and the control-plane
    /// endpoint are the cluster's own.
    #[test]
    fn eks_anywhere_endpoints_are_the_clusters_own() {
        let cluster = "apiVersion: anywhere.eks.amazonaws.com/v1alpha1\nkind: Cluster\nmetadata: {name: c}\nspec:\n  controlPlaneConfiguration: {endpoint: {host: 10.1.2.3}}\n  datacenterRef: {kind: DC, name: c}\n  proxyConfiguration: {httpProxy: 'http://p.example:3128', noProxy: [vc.example, 'cs.example', '10.1.2.3', keep.example]}\n";
        for dc in [
            "kind: DC\nmetadata: {name: c}\nspec: {server: vc.example}\n---\nkind: DC\nmetadata: {name: other}\nspec: {server: cs.example}",
            "kind: DC\nmetadata: {name: c}\nspec: {server: vc.example, availabilityZones: [{managementApiEndpoint: 'https://user@cs.example:8080/client/api'}]}",
        ] {
            let imported = crate::import::parse("capi", &format!("{cluster}---\n{dc}\n")).unwrap();
            let dropped: Vec<&str> = imported.dropped.iter().map(|d| d.entry.as_str()).collect();
            assert!(dropped.contains(&"vc.example") && dropped.contains(&"10.1.2.3"), "{dropped:?}");
            assert!(imported.no_proxy.contains(&"keep.example".to_owned()));
            assert_eq!(dc.contains("availabilityZones"), dropped.contains(&"cs.example"), "{dc}");
        }
        assert_eq!(url_host("https://[fd00::1]:8080/x"), Some("fd00::1"));
        assert_eq!(url_host("cs.example"), None);
    }
}
