variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_rke2" "agent" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  # containerd verifies the TLS-inspecting proxy against the OS trust store.
  trusted_ca = file("${path.module}/proxy-ca.pem")
  os_family  = "debian"

  installation  = ["registry.corp.example", ".corp.example"]
  node_cidrs    = ["10.0.0.0/16"]
  pod_cidrs     = ["10.42.0.0/16"]
  service_cidrs = ["10.43.0.0/16"]

  distribution = "rke2"
  role         = "agent"
  # containerd only: image pulls use the proxy, the kubelet never does.
  scope = "containerd"
}

output "path" {
  value = data.clusterproxy_rke2.agent.path
}

output "permissions" {
  value = data.clusterproxy_rke2.agent.permissions
}

output "content" {
  value     = data.clusterproxy_rke2.agent.content
  sensitive = true
}

output "content_redacted" {
  value = data.clusterproxy_rke2.agent.content_redacted
}

# Write ca_files and the env file, then run the commands in order.
output "ca_files" {
  value = data.clusterproxy_rke2.agent.ca_files
}

output "commands" {
  value = data.clusterproxy_rke2.agent.commands
}
