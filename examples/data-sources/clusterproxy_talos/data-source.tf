variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_talos" "nodes" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  # From Talos 1.13 the variables go into an EnvironmentConfig document
  # (machine.env before), and from 1.10 the CA into a TrustedRootsConfig one.
  trusted_ca    = file("${path.module}/proxy-ca.pem")
  talos_version = "1.13"

  installation           = ["registry.corp.example", ".corp.example"]
  node_cidrs             = ["10.5.0.0/24"]
  pod_cidrs              = ["10.244.0.0/16"]
  service_cidrs          = ["10.96.0.0/12"]
  control_plane_endpoint = "https://10.5.0.2:6443"
}

# talosctl gen config ... --config-patch @patch.yaml, or config_patches of the
# siderolabs/talos provider's talos_machine_configuration_apply.
output "patch" {
  value     = data.clusterproxy_talos.nodes.patch
  sensitive = true
}

output "patch_redacted" {
  value = data.clusterproxy_talos.nodes.patch_redacted
}
