locals {
  no_proxy = "cluster.local,.svc,10.96.0.0/12"
}

output "go_reaches_service_ip_directly" {
  value = provider::clusterproxy::no_proxy_bypasses(local.no_proxy, "https://10.96.0.1/", "go") # true
}

output "python_reaches_service_ip_directly" {
  value = provider::clusterproxy::no_proxy_bypasses(local.no_proxy, "https://10.96.0.1/", "python") # false: urllib has no CIDR support
}
