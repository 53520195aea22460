# Import ID: [<name>=]<kind>[(<cluster facts>)]:<source>
#
# <name>=   names the profile (otherwise the cluster's name, when the artifact
#           has one, or the kind).
# <kind>    aks (az aks show -o json, or a bare httpProxyConfig), tkg (cluster
#           configuration file), capi (KubeadmControlPlane / KubeadmConfigTemplate,
#           with the Cluster when at hand, or an EKS Anywhere Cluster), systemd
#           (drop-in), giantswarm (cluster chart values, userconfig ConfigMap,
#           cluster-values or systemd-proxy Secret), openshift (the Proxy
#           object with its trustedCA ConfigMap, an install-config, or the
#           cluster-config-v1 ConfigMap), rke2 (RKE2 /etc/default/rke2-* or k3s
#           *.service.env environment file).
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
terraform import clusterproxy_profile.corp 'corp=systemd:/etc/systemd/system/containerd.service.d/http-proxy.conf'
terraform import clusterproxy_profile.wc1 'capi(service_cidrs=100.64.0.0/13;pod_cidrs=100.96.0.0/11):file:tkg-wc1.yaml'
terraform import clusterproxy_profile.prod "aks:inline:$(az aks show -g rg-prod -n prod-weu-1 -o json)"
