variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_tkg_config" "workload" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  trusted_ca = file("${path.module}/proxy-ca.pem")

  installation   = ["registry.corp.example", "vcenter.corp.example"]
  pod_cidrs      = ["100.96.0.0/11"]
  service_cidrs  = ["100.64.0.0/13"]
  vsphere_server = "vcenter.corp.example"

  # Node components (containerd, kubelet) are Go programs; curl runs in scripts.
  clients = ["go", "curl"]
}

# The lines to add to the cluster configuration file.
output "cluster_config" {
  value     = data.clusterproxy_tkg_config.workload.yaml
  sensitive = true
}

# For a class-based cluster: the `proxy` variable of spec.topology.variables,
# for review (pass cluster_class_variable itself to the cluster).
output "cluster_class_variable_review" {
  value = jsondecode(data.clusterproxy_tkg_config.workload.cluster_class_variable_redacted)
}

output "variables_review" {
  value = data.clusterproxy_tkg_config.workload.variables_redacted
}

# For a class-based cluster: the `trust` variable of spec.topology.variables.
output "cluster_class_trust_variable" {
  value = jsondecode(data.clusterproxy_tkg_config.workload.cluster_class_trust_variable)
}

output "tkg_no_proxy" {
  value = data.clusterproxy_tkg_config.workload.no_proxy
}

output "appended_by_tkg" {
  value = data.clusterproxy_tkg_config.workload.appended_by_tkg
}
