variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_ignition" "flatcar" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  # Written to /etc/ssl/certs and trusted by clusterproxy-trust-ca.service
  # before containerd and kubelet start.
  trusted_ca = file("${path.module}/proxy-ca.pem")
  variant    = "flatcar"

  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]

  units = ["containerd", "kubelet"]
}

# Merge into the machine's Ignition config (e.g. ignition.config.merge with a
# data: URL, or your provider's merge).
output "config" {
  value     = data.clusterproxy_ignition.flatcar.config
  sensitive = true
}

output "config_redacted" {
  value = data.clusterproxy_ignition.flatcar.config_redacted
}

output "butane_redacted" {
  value = data.clusterproxy_ignition.flatcar.butane_redacted
}
