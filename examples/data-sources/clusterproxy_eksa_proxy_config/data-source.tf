variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_eksa_proxy_config" "prod" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-eksa"
  password   = var.proxy_password

  installation           = ["registry.corp.example", ".corp.example"]
  pod_cidrs              = ["192.168.0.0/16"]
  service_cidrs          = ["10.96.0.0/12"]
  control_plane_endpoint = "10.20.30.40"
}

# Merge into the Cluster spec for `eksctl anywhere create cluster -f`.
output "cluster_spec" {
  value     = data.clusterproxy_eksa_proxy_config.prod.cluster_spec_yaml
  sensitive = true
}

output "proxy_configuration" {
  value = data.clusterproxy_eksa_proxy_config.prod.proxy_configuration_redacted
}

# What EKS Anywhere writes onto the nodes.
output "node_no_proxy" {
  value = data.clusterproxy_eksa_proxy_config.prod.node_no_proxy
}
