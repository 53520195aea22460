# Each cluster not in the state yet is imported from its artifact, by the
# identity the data source gives (Terraform >= 1.12, OpenTofu >= 1.12); an
# import block for a profile already in the state does nothing.
terraform {
  required_version = ">= 1.12"
}

import {
  for_each = local.clusters
  to       = clusterproxy_profile.fleet[each.key]
  identity = each.value.identity
}
