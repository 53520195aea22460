# Terraform >= 1.10 (Terraform 1.0.3 does not know `ephemeral` blocks).
# A gate before a password rotation: bump proxy_password_version together with
# the new proxy_password. Terraform opens the check while it plans, so a
# password the proxy refuses fails the plan before anything is applied.
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

# Where the pipeline cannot reach the proxy: false reports with a warning.
variable "gate" {
  type    = bool
  default = true
}

# The fields directly, not the profile's settings: known at plan time, so
# checked at plan time (a check with unknown inputs is opened at apply).
ephemeral "clusterproxy_proxy_check" "rotation" {
  http_proxy    = var.proxy.http_proxy
  username      = var.proxy.username
  password      = var.proxy_password
  url           = var.check_url
  timeout       = 10
  fail_on_error = var.gate
}

resource "clusterproxy_profile" "corp" {
  name                = "corp"
  http_proxy          = var.proxy.http_proxy
  username            = var.proxy.username
  password_wo         = var.proxy_password
  password_wo_version = var.proxy_password_version
  no_proxy            = ["registry.corp.example", ".corp.example"]

  lifecycle {
    # Where var.gate is false, a password the proxy refuses still stops
    # the rotation; an unreachable proxy does not.
    precondition {
      condition     = ephemeral.clusterproxy_proxy_check.rotation.status_code != 407
      error_message = "The proxy refuses the new password: rotation stopped."
    }
  }
}
