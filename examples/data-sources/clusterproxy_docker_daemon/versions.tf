# The provider this example uses, so that the directory works on its own.
terraform {
  required_providers {
    clusterproxy = {
      source = "registry.terraform.io/clusterproxy/clusterproxy"
    }
  }
}
