variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_helm_values" "charts" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-charts"
  password   = var.proxy_password
  trusted_ca = file("${path.module}/proxy-ca.pem")

  installation  = ["registry.corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
  clients       = ["go"]

  # The ConfigMap with the CA, in cert-manager's namespace.
  config_map_name = "proxy-ca"
  namespace       = "cert-manager"
}

output "ca_config_map" {
  value = data.clusterproxy_helm_values.charts.ca_config_map_yaml
}

# helm_release "cert-manager" { values = [data.clusterproxy_helm_values.charts.cert_manager_yaml] }
output "cert_manager" {
  value     = data.clusterproxy_helm_values.charts.cert_manager_yaml
  sensitive = true
}

output "cert_manager_redacted" {
  value = data.clusterproxy_helm_values.charts.cert_manager_yaml_redacted
}

output "giantswarm_global_redacted" {
  value = data.clusterproxy_helm_values.charts.giantswarm_global_yaml_redacted
}

output "giantswarm_cluster_redacted" {
  value = data.clusterproxy_helm_values.charts.giantswarm_cluster_yaml_redacted
}

output "global_proxy_redacted" {
  value = data.clusterproxy_helm_values.charts.global_proxy_yaml_redacted
}

output "extra_env_redacted" {
  value = data.clusterproxy_helm_values.charts.extra_env_yaml_redacted
}

# cert-manager and extraEnv reading the proxy URLs from a Secret in the
# chart's namespace: those values hold no credential.
data "clusterproxy_helm_values" "charts_secret" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-charts"
  password   = var.proxy_password

  installation  = ["registry.corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
  clients       = ["go"]

  credentials_secret           = "proxy-credentials"
  credentials_secret_namespace = "cert-manager"
}

output "cert_manager_from_secret" {
  value     = data.clusterproxy_helm_values.charts_secret.cert_manager_yaml
  sensitive = true
}

output "extra_env_from_secret" {
  value     = data.clusterproxy_helm_values.charts_secret.extra_env_yaml
  sensitive = true
}

output "credentials_secret_data" {
  value     = data.clusterproxy_helm_values.charts_secret.credentials_secret_data
  sensitive = true
}
