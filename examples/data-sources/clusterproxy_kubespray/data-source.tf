variable "proxy_password" {
  type      = string
  sensitive = true
}

data "clusterproxy_kubespray" "cluster" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password

  # group_vars gets https_proxy_cert_file, the RHEL trust store; ca_files
  # and ca_commands add the CA to it in a play that runs before cluster.yml.
  trusted_ca = file("${path.module}/proxy-ca.pem")
  os_family  = "rhel"

  # The release decides the NO_PROXY kubespray generates.
  kubespray_version = "2.31"

  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = ["10.233.64.0/18"]
  service_cidrs = ["10.233.0.0/18"]

  # The inventory, so that effective_no_proxy shows what kubespray generates.
  inventory_hosts = {
    cp1   = "10.0.0.11"
    node1 = "10.0.0.21"
  }
  loadbalancer_apiserver_address = "10.0.0.10"
}

# Write to inventory/<cluster>/group_vars/all/proxy.yml.
output "group_vars" {
  value     = data.clusterproxy_kubespray.cluster.group_vars
  sensitive = true
}

output "group_vars_redacted" {
  value = data.clusterproxy_kubespray.cluster.group_vars_redacted
}

output "effective_no_proxy" {
  value = data.clusterproxy_kubespray.cluster.effective_no_proxy
}

output "ca_files" {
  value = data.clusterproxy_kubespray.cluster.ca_files
}

output "ca_commands" {
  value = data.clusterproxy_kubespray.cluster.ca_commands
}
