data "clusterproxy_no_proxy" "prod" {
  installation  = ["registry.corp.example", ".corp.example", "10.20.0.0/16"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
  node_cidrs    = ["10.30.0.0/24"]

  cluster_domain = "cluster.local"
  apiserver_host = "api.prod-1.corp.example"
  cloud          = "aws"
  extra          = ["metrics.corp.example"]

  # The clients that run in this cluster: Go components, curl in scripts and
  # a Java application configured through http.nonProxyHosts.
  clients = ["go", "curl", "java"]

  # The plan fails if any client would proxy these, or the destinations
  # derived from the inputs (the kubernetes Service, pod and node addresses,
  # the apiserver, the cloud metadata endpoints).
  must_bypass = ["https://registry.corp.example/v2/", "10.20.1.5:5432"]
  fail_on_gap = true
}

output "no_proxy" {
  value = data.clusterproxy_no_proxy.prod.no_proxy
}

output "java_non_proxy_hosts" {
  value = data.clusterproxy_no_proxy.prod.renderings["java"]
}
