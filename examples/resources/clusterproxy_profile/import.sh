# <kind>:<path or inline content>, optionally prefixed with <name>= to name the
# profile (otherwise the cluster's name, when the artifact has one, or the kind).
# Kinds: aks (az aks show -o json, or a bare httpProxyConfig), tkg (cluster
# configuration file), capi (KubeadmControlPlane / KubeadmConfigTemplate),
# systemd (drop-in), giantswarm (cluster-values or systemd-proxy Secret).
# rke2 (RKE2 /etc/default/rke2-* or k3s *.service.env environment file).
terraform import clusterproxy_profile.corp 'corp=systemd:/etc/systemd/system/containerd.service.d/http-proxy.conf'
terraform import clusterproxy_profile.prod "aks:$(az aks show -g rg-prod -n prod-weu-1 -o json)"
