# Terraform >= 1.14 (earlier versions do not know `action` blocks).
# The gate at the moment of the roll: Terraform checks the new password
# against the proxy right before the resource that rolls it onto the nodes
# changes, and a password the proxy refuses halts the apply there. Bump
# proxy_password_version together with the new proxy_password.
variable "proxy_password" {
  type      = string
  ephemeral = true
}

variable "proxy_password_version" {
  type    = number
  default = 1
}

variable "proxy" {
  type = object({ http_proxy = string, username = string })
  default = {
    http_proxy = "http://proxy.corp.example:3128"
    username   = "svc-k8s"
  }
}

# What the nodes pull through the proxy.
variable "check_url" {
  type    = string
  default = "https://registry-1.docker.io/v2/"
}

# An ephemeral password reaches the check and no saved plan.
action "clusterproxy_proxy_check" "rollout" {
  config {
    http_proxy = var.proxy.http_proxy
    username   = var.proxy.username
    password   = var.proxy_password
    url        = var.check_url
    timeout    = 10
  }
}

resource "clusterproxy_profile" "corp" {
  name                = "corp"
  http_proxy          = var.proxy.http_proxy
  username            = var.proxy.username
  password_wo         = var.proxy_password
  password_wo_version = var.proxy_password_version
  no_proxy            = ["registry.corp.example", ".corp.example"]
}

# Stands for what rolls the credentials onto the nodes (a node pool, a
# KubeadmControlPlane, a drop-in's manifest): it changes with the profile's
# revision, and the check runs right before it does.
resource "terraform_data" "rollout" {
  input = clusterproxy_profile.corp.revision

  lifecycle {
    action_trigger {
      events  = [before_create, before_update]
      actions = [action.clusterproxy_proxy_check.rollout]
    }
  }
}

# On demand, changing nothing:
#   terraform apply -invoke=action.clusterproxy_proxy_check.rollout
