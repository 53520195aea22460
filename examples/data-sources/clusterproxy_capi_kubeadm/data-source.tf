variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_capi_kubeadm" "workers" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  installation   = ["registry.corp.example"]
  pod_cidrs      = ["192.168.0.0/16"]
  service_cidrs  = ["10.96.0.0/12"]
  node_cidrs     = ["10.30.0.0/24"]
  apiserver_host = "api.prod-1.corp.example"
}

# Paste under spec.kubeadmConfigSpec (KubeadmControlPlane) or
# spec.template.spec (KubeadmConfigTemplate).
output "kubeadm_config_spec" {
  value     = data.clusterproxy_capi_kubeadm.workers.yaml
  sensitive = true
}

output "review" {
  value = data.clusterproxy_capi_kubeadm.workers.yaml_redacted
}
