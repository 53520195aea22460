# Terraform >= 1.11 for password_wo. The password is an ephemeral value: no
# state or plan holds it, yet reviewers see what a rotation changes.
variable "proxy_password" {
  type      = string
  ephemeral = true
}

resource "clusterproxy_profile" "corp" {
  name                = "corp"
  http_proxy          = "http://proxy.corp.example:3128"
  username            = "svc-k8s"
  password_wo         = var.proxy_password
  password_wo_version = 1 # bump on every rotation
  no_proxy            = ["registry.corp.example", ".corp.example"]
}

# The redacted outputs need no password and carry no secret: the plan shows
# them, and a rotation (password_wo_version bumped, revision moves) shows as
# the new Secret name in the kubeadm files.
locals {
  kubeadm = provider::clusterproxy::render_redacted("capi_kubeadm", clusterproxy_profile.corp.settings, {
    cluster_name = "prod"
    pod_cidrs    = ["192.168.0.0/16"]
  })
}

output "kubeadm_yaml" {
  value = local.kubeadm.yaml_redacted
}

# The names that move with a rotation: prod-systemd-proxy-r<revision>, and the
# suffix of the KubeadmConfigTemplate's name.
output "secret_name" {
  value = local.kubeadm.secret_name
}

output "template_name_suffix" {
  value = local.kubeadm.template_name_suffix
}
