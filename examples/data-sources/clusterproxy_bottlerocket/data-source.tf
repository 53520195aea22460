variable "proxy_password" {
  type      = string
  sensitive = true
}

# An EKS node group on Bottlerocket behind an HTTPS proxy: the instance
# metadata address (cloud = "aws"), the API server, the VPC and the
# cluster's networks bypass it.
data "clusterproxy_bottlerocket" "eks" {
  https_proxy = "http://proxy.corp.example:3128"
  username    = "svc-eks"
  password    = var.proxy_password
  trusted_ca  = file("${path.module}/proxy-ca.pem")

  installation   = ["registry.corp.example", ".corp.example", ".internal"]
  cloud          = "aws"
  apiserver_host = "0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com"
  node_cidrs     = ["10.0.0.0/16"]
  service_cidrs  = ["172.20.0.0/16"]
  cluster_domain = "cluster.local"
}

# Append to the node group's TOML user data, beside [settings.kubernetes].
output "user_data" {
  value     = data.clusterproxy_bottlerocket.eks.user_data
  sensitive = true
}

output "user_data_redacted" {
  value = data.clusterproxy_bottlerocket.eks.user_data_redacted
}

# On a running node, from the admin or control container.
output "apiclient_command_redacted" {
  value = data.clusterproxy_bottlerocket.eks.apiclient_command_redacted
}
