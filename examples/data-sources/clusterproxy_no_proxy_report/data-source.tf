# One object holds the cluster's NO_PROXY inputs, so that the report is made
# from exactly the arguments of the list it explains.
locals {
  prod = {
    installation   = ["registry.corp.example", ".corp.example", "10.20.0.0/16"]
    pod_cidrs      = ["192.168.0.0/16"]
    service_cidrs  = ["10.96.0.0/12"]
    apiserver_host = "api.prod-1.corp.example"
    extra          = ["metrics.corp.example"]
    clients        = ["go", "python", "java"]
  }
}

# Read for every cluster: the list and the renderings.
data "clusterproxy_no_proxy" "prod" {
  installation   = local.prod.installation
  pod_cidrs      = local.prod.pod_cidrs
  service_cidrs  = local.prod.service_cidrs
  apiserver_host = local.prod.apiserver_host
  extra          = local.prod.extra
  clients        = local.prod.clients
}

# Read for the clusters under review: what is behind that list, and which
# destinations each client would still proxy.
data "clusterproxy_no_proxy_report" "prod" {
  installation   = local.prod.installation
  pod_cidrs      = local.prod.pod_cidrs
  service_cidrs  = local.prod.service_cidrs
  apiserver_host = local.prod.apiserver_host
  extra          = local.prod.extra
  clients        = local.prod.clients

  # Checked besides the destinations derived from the inputs.
  must_bypass = ["https://registry.corp.example/v2/"]
}

output "no_proxy" {
  value = data.clusterproxy_no_proxy.prod.no_proxy
}

# Every destination the coverage check tried.
output "checked" {
  value = data.clusterproxy_no_proxy_report.prod.checked
}

# Python's urllib has no CIDR support: it proxies the pod network.
output "gaps" {
  value = data.clusterproxy_no_proxy_report.prod.gaps_by_client
}

# The entries dropped because another entry covers them.
output "subsumed" {
  value = data.clusterproxy_no_proxy_report.prod.subsumed_by
}

# What each client cannot express, one line per client and remark.
output "warnings" {
  value = [for w in data.clusterproxy_no_proxy_report.prod.client_warnings : "${w.client}: ${w.message}"]
}
