variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_pod_env" "apps" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-apps"
  password   = var.proxy_password

  # The proxy's CA, for clients that verify the certificates it re-signs.
  trusted_ca      = file("${path.module}/proxy-ca.pem")
  config_map_name = "proxy-ca"
  namespace       = "apps"

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

# Apply the ConfigMap in the pods' namespace; add volumes_yaml to the pod spec
# and volume_mounts_yaml to each container.
output "ca_config_map" {
  value = data.clusterproxy_pod_env.apps.ca_config_map_yaml
}

output "volumes" {
  value = data.clusterproxy_pod_env.apps.volumes_yaml
}

output "volume_mounts" {
  value = data.clusterproxy_pod_env.apps.volume_mounts_yaml
}
