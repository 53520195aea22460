data "clusterproxy_no_proxy" "prod" {
  installation  = ["registry.corp.example", ".corp.example", "10.20.0.0/16"]
  pod_cidrs     = ["192.168.0.0/16"]
  service_cidrs = ["10.96.0.0/12"]
  node_cidrs    = ["10.30.0.0/24"]

  cluster_domain = "cluster.local"
  apiserver_host = "api.prod-1.corp.example"
  extra          = ["metrics.corp.example"]
}

output "no_proxy" {
  value = data.clusterproxy_no_proxy.prod.no_proxy
}
