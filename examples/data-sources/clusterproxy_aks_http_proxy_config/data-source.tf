data "clusterproxy_aks_http_proxy_config" "prod" {
  http_proxy = "http://proxy.corp.example:3128"
  # The CA of the TLS-inspecting proxy (AKS wants a subjectAltName on it).
  trusted_ca = <<-EOT
    -----BEGIN CERTIFICATE-----
    MIIBpzCCAUygAwIBAgIUBKOBEUXzT2EiF2IOK+hjhqQyhYowCgYIKoZIzj0EAwIw
    GDEWMBQGA1UEAwwNQ29ycCBQcm94eSBDQTAgFw0yNjExMjMwOTA0NTVaGA8yMTI2
    MTAzMDA5MDQ1NVowGDEWMBQGA1UEAwwNQ29ycCBQcm94eSBDQTBZMBMGByqGSM49
    AgEGCCqGSM49AwEHA0IABHYD2AZDSNeEGMi8jVpbP2RBrmWFZHFFJX8zLabCd7FX
    NTxhkr0ETsWLleyTzXaJxOl7SxomrKsJZgX9VKp/dsajcjBwMB0GA1UdDgQWBBRU
    wj2ssCjMIHiV8nhl/kWJgtp4cDAfBgNVHSMEGDAWgBRUwj2ssCjMIHiV8nhl/kWJ
    gtp4cDAPBgNVHRMBAf8EBTADAQH/MB0GA1UdEQQWMBSCEnByb3h5LmNvcnAuZXhh
    bXBsZTAKBggqhkjOPQQDAgNJADBGAiEAlDn22gPlJa9is1q9HFOFbYbtjLFvR1yI
    yfOBrsld7h0CIQCaCXEKfRF6vVOLOXTvdNriLSUvIzP5wSc9WC1FiAvvQQ==
    -----END CERTIFICATE-----
    EOT

  installation = ["registry.corp.example", ".corp.example"]
  # The cluster facts AKS adds to noProxy itself, spelled as AKS reports them
  # (`az aks show --query httpProxyConfig.effectiveNoProxy`): the node subnet
  # (or the managed VNet's range), pod and service CIDRs, and the apiserver
  # FQDN (`azurerm_kubernetes_cluster.fqdn`; leave it null until the cluster exists).
  node_cidrs     = ["10.224.0.0/16"]
  pod_cidrs      = ["192.168.0.0/16"]
  service_cidrs  = ["10.96.0.0/12"]
  apiserver_host = "prod-abc123.hcp.westeurope.azmk8s.io"
  cloud          = "azure"
}

locals {
  # Give these to azurerm_kubernetes_cluster; after apply the plan stays empty:
  #   http_proxy_config {
  #     http_proxy  = local.aks_proxy.http_proxy
  #     https_proxy = local.aks_proxy.https_proxy
  #     no_proxy    = local.aks_proxy.no_proxy
  #     trusted_ca  = local.aks_proxy.trusted_ca
  #   }
  aks_proxy = data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config
}

output "azurerm_http_proxy_config" {
  value = local.aks_proxy
}

# For `az aks create --http-proxy-config aks-proxy.json` (same noProxy).
output "az_http_proxy_config_json" {
  value = data.clusterproxy_aks_http_proxy_config.prod.json
}

# What `az aks show` will report as effectiveNoProxy: the same set as no_proxy.
output "effective_no_proxy" {
  value = data.clusterproxy_aks_http_proxy_config.prod.effective_no_proxy
}
