data "clusterproxy_aks_http_proxy_config" "prod" {
  http_proxy = "http://proxy.corp.example:3128"

  installation   = ["registry.corp.example", ".corp.example"]
  node_cidrs     = ["10.224.0.0/16"]
  pod_cidrs      = ["192.168.0.0/16"]
  service_cidrs  = ["10.96.0.0/12"]
  apiserver_host = "prod-abc123.hcp.westeurope.azmk8s.io"
  cloud          = "azure"
}

# For `az aks create --http-proxy-config aks-proxy.json`.
output "az_http_proxy_config_json" {
  value = data.clusterproxy_aks_http_proxy_config.prod.json
}

# azurerm_kubernetes_cluster:
#   http_proxy_config {
#     http_proxy  = data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config.http_proxy
#     https_proxy = data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config.https_proxy
#     no_proxy    = data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config.no_proxy
#   }
output "effective_no_proxy" {
  value = data.clusterproxy_aks_http_proxy_config.prod.effective_no_proxy
}
