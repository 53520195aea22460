//! terraform-provider-clusterproxy
