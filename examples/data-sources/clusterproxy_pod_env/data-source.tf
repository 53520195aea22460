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

# The same env with the proxy URLs read from a Secret: env, env_secret_refs
# and env_yaml hold no credential. Create the Secret in the pods' namespace
# from credentials_secret_data, e.g. kubernetes_secret_v1.data_wo (see the
# secret-free-state guide).
data "clusterproxy_pod_env" "apps_secret" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-apps"
  password   = var.proxy_password

  credentials_secret           = "proxy-credentials"
  credentials_secret_namespace = "apps"

  installation  = ["registry.corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
}

# container {
#   dynamic "env" { for_each = data.clusterproxy_pod_env.apps_secret.env ... value = env.value.value }
#   dynamic "env" {
#     for_each = data.clusterproxy_pod_env.apps_secret.env_secret_refs
#     content {
#       name = env.value.name
#       value_from {
#         secret_key_ref {
#           name = env.value.secret_name
#           key  = env.value.key
#         }
#       }
#     }
#   }
# }
output "env_secret_refs" {
  value = data.clusterproxy_pod_env.apps_secret.env_secret_refs
}

output "env_yaml_from_secret" {
  value = data.clusterproxy_pod_env.apps_secret.env_yaml_redacted
}

output "credentials_secret_data" {
  value     = data.clusterproxy_pod_env.apps_secret.credentials_secret_data
  sensitive = true
}

output "credentials_secret_redacted" {
  value = data.clusterproxy_pod_env.apps_secret.credentials_secret_yaml_redacted
}
