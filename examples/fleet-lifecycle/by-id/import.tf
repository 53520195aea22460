# Each cluster not in the state yet is imported from its artifact, by the
# import ID the data source gives (Terraform and OpenTofu 1.11, which import
# no identity, and every later one); an import block for a profile already
# in the state does nothing. One `import` per target: by identity or by ID,
# never both in one directory.
terraform {
  required_version = ">= 1.11"
}

import {
  for_each = local.clusters
  to       = clusterproxy_profile.fleet[each.key]
  id       = each.value.import_id
}
