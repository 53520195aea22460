# Adopting a fleet (Terraform >= 1.14): `terraform query` lists the clusters
# of ./clusters (fleet.tfquery.hcl), and
#
#   terraform query -generate-config-out=fleet.tf
#
# writes one `clusterproxy_profile` resource and one `import` block per
# cluster into fleet.tf. `terraform plan` then imports them: "N to import,
# 0 to add, 0 to change, 0 to destroy". See docs/guides/fleet-adoption.md.
terraform {
  required_providers {
    clusterproxy = {
      source = "registry.terraform.io/clusterproxy/clusterproxy"
    }
  }
}

provider "clusterproxy" {}
