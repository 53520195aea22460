# Quickstart: merge the installation-wide NO_PROXY of a corporate network with
# what one Kubernetes cluster needs, and print the result.

terraform {
  required_providers {
    clusterproxy = {
      source = "registry.terraform.io/clusterproxy/clusterproxy"
    }
  }
}

provider "clusterproxy" {}

data "clusterproxy_no_proxy" "cluster" {
  # Installation-wide entries, shared by every cluster.
  installation = ["registry.corp.example", ".corp.example", "10.20.0.0/16"]

  # What this cluster needs on top.
  pod_cidrs      = ["192.168.0.0/16"]
  service_cidrs  = ["10.96.0.0/12"]
  cluster_domain = "cluster.local"
  apiserver_host = "api.prod-1.corp.example"
}

output "no_proxy" {
  description = "The merged NO_PROXY value, ready for any Go-based component."
  value       = data.clusterproxy_no_proxy.cluster.no_proxy
}

output "entries" {
  value = data.clusterproxy_no_proxy.cluster.entries
}
