# The same inputs as the cluster's clusterproxy_no_proxy, read to review what
# is behind its list.
data "clusterproxy_no_proxy_report" "prod" {
  installation   = ["registry.corp.example", ".corp.example", "10.20.0.0/16"]
  pod_cidrs      = ["192.168.0.0/16"]
  service_cidrs  = ["10.96.0.0/12"]
  apiserver_host = "api.prod-1.corp.example"
  extra          = ["metrics.corp.example"]

  clients     = ["go", "python", "java"]
  must_bypass = ["https://registry.corp.example/v2/"]
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
