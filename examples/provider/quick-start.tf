resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  no_proxy   = ["registry.corp.example", ".corp.example"]
}

# Rendered while Terraform plans: the containerd drop-in, with the merged NO_PROXY.
output "containerd_dropin" {
  value = provider::clusterproxy::render("systemd_dropin", clusterproxy_profile.corp.settings, {
    pod_cidrs     = ["192.168.0.0/16"]
    service_cidrs = ["10.96.0.0/12"]
  }).dropins[0].content
}
