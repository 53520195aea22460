variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_systemd_dropin" "node" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]

  units = ["containerd", "kubelet", "docker"]
}

# Review the drop-ins without the password.
output "containerd_dropin" {
  value = data.clusterproxy_systemd_dropin.node.dropins_redacted[0].content
}

output "commands" {
  value = data.clusterproxy_systemd_dropin.node.commands
}

# Feed the real content to your node provisioning (cloud-init, Ignition...).
output "dropins" {
  value     = data.clusterproxy_systemd_dropin.node.dropins
  sensitive = true
}
