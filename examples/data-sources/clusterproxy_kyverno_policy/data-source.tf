variable "proxy_password" {
  type      = string
  sensitive = true
}

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
