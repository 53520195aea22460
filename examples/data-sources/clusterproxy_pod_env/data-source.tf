variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_pod_env" "apps" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-apps"
  password   = var.proxy_password

  installation  = ["registry.corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
}

# kubernetes_deployment ... container { dynamic "env" { for_each = data.clusterproxy_pod_env.apps.env ... } }
output "env" {
  value     = data.clusterproxy_pod_env.apps.env
  sensitive = true
}

output "env_redacted" {
  value = data.clusterproxy_pod_env.apps.env_redacted
}
