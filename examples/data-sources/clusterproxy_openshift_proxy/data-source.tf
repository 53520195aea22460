variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_openshift_proxy" "ocp" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-ocp"
  password   = var.proxy_password
  trusted_ca = file("${path.module}/proxy-ca.pem")

  installation  = ["registry.corp.example", ".corp.example"]
  node_cidrs    = ["10.0.0.0/16"]   # networking.machineNetwork
  pod_cidrs     = ["10.128.0.0/14"] # networking.clusterNetwork
  service_cidrs = ["172.30.0.0/16"] # networking.serviceNetwork
  cloud         = "aws"
  aws_region    = "eu-west-1"

  api_internal_host   = "api-int.ocp.corp.example"
  readiness_endpoints = ["https://quay.io/"]
}

# Merge into install-config.yaml before `openshift-install create cluster`.
output "install_config" {
  value     = data.clusterproxy_openshift_proxy.ocp.install_config_yaml
  sensitive = true
}

# Or on a running cluster: `oc apply` the ConfigMap, then the Proxy.
output "proxy_redacted" {
  value = data.clusterproxy_openshift_proxy.ocp.proxy_yaml_redacted
}

output "ca_config_map" {
  value = data.clusterproxy_openshift_proxy.ocp.ca_config_map_yaml
}

# Compare with `oc get proxy cluster -o jsonpath='{.status.noProxy}'`.
output "status_no_proxy" {
  value = data.clusterproxy_openshift_proxy.ocp.status_no_proxy
}
