terraform {
  required_providers {
    clusterproxy = {
      source = "registry.terraform.io/clusterproxy/clusterproxy"
    }
  }
}

# The provider takes no configuration.
provider "clusterproxy" {}
