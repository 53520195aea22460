variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_systemd_dropin" "node" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  # The TLS-inspecting proxy's CA: written to the node and trusted by the OS
  # (os_family decides where and how) before containerd and kubelet restart.
  trusted_ca = file("${path.module}/proxy-ca.pem")
  os_family  = "debian"

  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]

  units = ["containerd", "kubelet", "docker"]
}

# Review the drop-ins without the password.
output "containerd_dropin" {
  value = data.clusterproxy_systemd_dropin.node.dropins_redacted[0].content
}

# Write ca_files and dropins first, then run the commands in order.
output "commands" {
  value = data.clusterproxy_systemd_dropin.node.commands
}

output "ca_files" {
  value = data.clusterproxy_systemd_dropin.node.ca_files
}

# Feed the real content to your node provisioning (cloud-init, Ignition...).
output "dropins" {
  value     = data.clusterproxy_systemd_dropin.node.dropins
  sensitive = true
}

# For every service instead: /etc/systemd/system.conf.d/http-proxy.conf, for review.
output "default_environment" {
  value = data.clusterproxy_systemd_dropin.node.default_environment_redacted
}
