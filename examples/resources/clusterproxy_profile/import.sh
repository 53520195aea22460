# Import ID: [<name>=]<kind>[(<cluster facts>)]:<source>
#
# <name>=   names the profile (otherwise the cluster's name, when the artifact
#           has one, or the kind).
# <kind>    `aks` (`az aks show -o json` or an httpProxyConfig), `tkg` (cluster
#           configuration file, or ClusterClass `Cluster` with the `proxy`
#           variable), `capi` (KubeadmControlPlane / KubeadmConfigTemplate, with
#           the Cluster when at hand, or an EKS Anywhere Cluster),
#           `systemd` (drop-in), `giantswarm` (cluster chart values, userconfig
#           ConfigMap, cluster-values or systemd-proxy Secret), `openshift` (the
#           `config.openshift.io/v1` Proxy with its trustedCA ConfigMap, an
#           install-config, or the `cluster-config-v1` ConfigMap), `rke2` (RKE2
#           `/etc/default/rke2-*` or k3s `*.service.env` environment file),
#           `caren` (ClusterClass `Cluster` with the `clusterConfig` or `proxy`
#           variable), `tkgs` (`TanzuKubernetesCluster` with
#           `spec.settings.network.proxy`), `konvoy` (`cluster.yaml`
#           `ClusterConfiguration`), `gke` (`containerd-proxy-configmap` of
#           k8s-node-tools' `containerd-http-proxy`), `docker` (`daemon.json`
#           with `proxies`) or `bottlerocket` (TOML user data or `apiclient`
#           settings JSON).
# (facts)   the cluster inputs the renderers get, `key=value` separated by `;`,
#           lists by `,`: pod_cidrs, service_cidrs, node_cidrs, cluster_domain
#           (default cluster.local), apiserver_host, apiserver_ip,
#           control_plane_endpoint, cloud (aws, azure, gcp, vsphere; aks
#           implies azure), each checked as the renderer input of the same
#           name (CIDR blocks, a DNS domain, a host, an IP address, an
#           endpoint). A NO_PROXY entry is left out of the profile only when
#           what the renderers add from these facts (or the platform adds itself)
#           covers it for every client; the import warning lists every entry
#           kept, every entry left out with the reason, and the renderer inputs
#           to use. Option https_through_proxy=true accepts importing an artifact
#           that sets HTTP_PROXY only (its clients send HTTPS direct) as a profile
#           that sends HTTPS through the HTTP proxy; without it that is an error.
#           An HTTPS proxy equal to the HTTP proxy is imported as https_proxy
#           unset (it defaults to http_proxy), so leave it unset in the
#           configuration too; a different one is imported as https_proxy.
# <source>  file:<path> (a regular file of at most 4 MiB; FIFOs and devices are
#           refused, never read), inline:<content>, or, as in earlier releases,
#           a path (one line without whitespace or any of `{ [ = :`) or content.
#           Content given in the ID that holds a proxy password is refused:
#           Terraform prints import IDs in plan output, keeps them in saved
#           plans (`importing.id`) and writes them to trace logs. Import such
#           an artifact from file:<path>; its password is then kept nowhere
#           but as a salted verifier in the private state, for the first plan.
#
# Generated configuration: `terraform plan -generate-config-out=generated.tf`
# with an `import` block writes `password = null # sensitive` (Terraform never
# writes sensitive values). Applied as generated, it changes nothing: the
# imported password still stands (its verifier stays in the private state,
# `revision` stays) and the plan warns on `username` that the renderers need
# the password. Give it: replace that line with `password_wo =
# var.proxy_password` (an `ephemeral = true` variable) and
# `password_wo_version = 1` on Terraform >= 1.11, or with `password =
# var.proxy_password`; the imported password keeps `revision`, another moves
# it. A saved plan of an import carries the salted verifier: keep it as the
# state.
#
# From `password` to `password_wo` (Terraform >= 1.11): replace `password =
# var.proxy_password` with `password_wo = var.proxy_password` (the same
# password, the variable made `ephemeral = true`) and `password_wo_version =
# 1`. The plan compares the write-only password with the stored one, so the
# revision stays and nothing rolls; the state then holds no copy of the
# password. Give it to the renderers with provider::clusterproxy::render(...,
# merge(clusterproxy_profile.corp.settings, { password = var.proxy_password }),
# ...). Later rotations: change the password and bump `password_wo_version`.
terraform import clusterproxy_profile.corp 'corp=systemd:/etc/systemd/system/containerd.service.d/http-proxy.conf'
terraform import clusterproxy_profile.wc1 'capi(service_cidrs=100.64.0.0/13;pod_cidrs=100.96.0.0/11):file:tkg-wc1.yaml'
terraform import clusterproxy_profile.prod "aks:inline:$(az aks show -g rg-prod -n prod-weu-1 -o json)"
