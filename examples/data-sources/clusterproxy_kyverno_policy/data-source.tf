variable "proxy_password" {
  type      = string
  sensitive = true
}

# For Kyverno 1.19 (the default kyverno_version): a MutatingPolicy and a
# GeneratingPolicy (policies.kyverno.io/v1).
data "clusterproxy_kyverno_policy" "pods" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-apps"
  password   = var.proxy_password
  trusted_ca = file("${path.module}/proxy-ca.pem")

  installation  = ["registry.corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]

  excluded_namespaces = ["kube-system", "flux-system"]
  opt_out_annotation  = "corp.example/no-proxy-env"
}

# kubectl apply -f, or a kubernetes_manifest with yamldecode().
output "policy" {
  value     = data.clusterproxy_kyverno_policy.pods.policy_yaml
  sensitive = true
}

output "policy_redacted" {
  value = data.clusterproxy_kyverno_policy.pods.policy_yaml_redacted
}

# The GeneratingPolicy that keeps the CA ConfigMap in every namespace.
output "generating_policy" {
  value = data.clusterproxy_kyverno_policy.pods.generating_policy_yaml
}

# The proxy URLs read from the Secret proxy-credentials, which the policy
# clones from the platform namespace into every namespace it does not exclude:
# the policy holds no credential.
data "clusterproxy_kyverno_policy" "pods_secret" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-apps"
  password   = var.proxy_password

  installation  = ["registry.corp.example"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]

  policy_name                  = "clusterproxy-proxy-env-secret"
  credentials_secret           = "proxy-credentials"
  credentials_secret_namespace = "platform"
}

output "policy_from_secret" {
  value     = data.clusterproxy_kyverno_policy.pods_secret.policy_yaml
  sensitive = true
}

output "generating_policy_from_secret" {
  value = data.clusterproxy_kyverno_policy.pods_secret.generating_policy_yaml
}

# Apply it in the platform namespace (or feed credentials_secret_data to
# kubernetes_secret_v1.data_wo, see the secret-free-state guide).
output "credentials_secret_redacted" {
  value = data.clusterproxy_kyverno_policy.pods_secret.credentials_secret_yaml_redacted
}

# Kyverno 1.13 to 1.16: one kyverno.io/v1 ClusterPolicy with the mutate and
# generate rules (Kyverno 1.19 still serves it, with a deprecation warning).
data "clusterproxy_kyverno_policy" "pods_legacy" {
  http_proxy = "http://proxy.corp.example:3128"
  trusted_ca = file("${path.module}/proxy-ca.pem")

  service_cidrs = ["10.96.0.0/12"]

  kyverno_version = "1.16"
}

output "cluster_policy" {
  value = data.clusterproxy_kyverno_policy.pods_legacy.policy_yaml_redacted
}
