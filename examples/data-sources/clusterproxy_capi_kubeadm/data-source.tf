variable "proxy_password" {
  type      = string
  sensitive = true
}

# The Secret variant: the credentials travel only in the Secret
# "prod-1-systemd-proxy-r1"; the KubeadmControlPlane and KubeadmConfigTemplate
# reference it through contentFrom and hold no credential. `revision` is the
# rollout signal for settings given directly: a profile's `revision`
# (clusterproxy_profile.<name>.revision), or a number bumped with every change
# of these settings, the password included, so that the change reaches every
# node (see the Day 2 guide). With `profile`, its settings carry the revision.
data "clusterproxy_capi_kubeadm" "prod" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  trusted_ca = file("${path.module}/proxy-ca.pem")
  os_family  = "debian"

  cluster_name = "prod-1"
  namespace    = "org-acme"
  revision     = 1

  # Cluster API 1.11 and later: v1beta2, the default. For a management
  # cluster on Cluster API < 1.11, set capi_api_version = "v1beta1".
  capi_api_version = "v1beta2"

  installation   = ["registry.corp.example"]
  pod_cidrs      = ["192.168.0.0/16"]
  service_cidrs  = ["10.96.0.0/12"]
  node_cidrs     = ["10.30.0.0/24"]
  apiserver_host = "api.prod-1.corp.example"
}

# Paste under spec.kubeadmConfigSpec (KubeadmControlPlane) or
# spec.template.spec (KubeadmConfigTemplate) of objects with these apiVersions.
output "kubeadm_config_spec" {
  value     = data.clusterproxy_capi_kubeadm.prod.yaml
  sensitive = true
}

# Apply to the management cluster next to the Cluster.
output "secret_manifest" {
  value     = data.clusterproxy_capi_kubeadm.prod.secret_manifest
  sensitive = true
}

output "review" {
  value = data.clusterproxy_capi_kubeadm.prod.yaml_redacted
}

output "secret_manifest_review" {
  value = data.clusterproxy_capi_kubeadm.prod.secret_manifest_redacted
}

# Append to the KubeadmConfigTemplate's name and to the MachineDeployment's
# spec.template.spec.bootstrap.configRef.name: a new name rolls the workers.
output "template_name_suffix" {
  value = data.clusterproxy_capi_kubeadm.prod.template_name_suffix
}

output "control_plane_api_version" {
  value = data.clusterproxy_capi_kubeadm.prod.control_plane_api_version
}

output "bootstrap_api_version" {
  value = data.clusterproxy_capi_kubeadm.prod.bootstrap_api_version
}
