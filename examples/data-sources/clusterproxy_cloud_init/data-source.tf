variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_cloud_init" "workers" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  # The TLS-inspecting proxy's CA, written and trusted before the restarts.
  trusted_ca = file("${path.module}/proxy-ca.pem")
  os_family  = "rhel"

  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
  cloud         = "aws"

  units = ["containerd", "kubelet"]
}

# Pass as user data (or as one part of a cloudinit_config multipart document).
output "user_data" {
  value     = data.clusterproxy_cloud_init.workers.user_data
  sensitive = true
}

output "user_data_redacted" {
  value = data.clusterproxy_cloud_init.workers.user_data_redacted
}

output "runcmd" {
  value = data.clusterproxy_cloud_init.workers.runcmd
}
