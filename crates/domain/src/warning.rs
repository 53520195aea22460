//! The kinds of warning the renderers and the NO_PROXY merge give, each
//! with a stable identifier: what `acknowledge_warnings` of the `render`
//! functions names (with the attribute path), so that rewording a message
//! never breaks a configuration.

/// Declares [`Warning`] and its table: variant, identifier, documentation,
/// and the summaries the warning had when acknowledgements were built from
/// the summary (the deprecated form, still accepted).
macro_rules! warnings {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $code:literal, legacy [$($legacy:literal),*]; )+) => {
        /// A kind of warning.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Warning {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl Warning {
            /// Every kind, in the documented order.
            pub const ALL: &'static [Warning] = &[$(Warning::$variant),+];

            /// The stable identifier, e.g. `unit_name_typo`.
            pub fn code(self) -> &'static str {
                match self {
                    $( Warning::$variant => $code, )+
                }
            }

            /// What the warning is about, in one line.
            pub fn doc(self) -> &'static str {
                match self {
                    $( Warning::$variant => concat!($($doc),+).trim_ascii(), )+
                }
            }

            /// The summaries of the deprecated acknowledgement form (`{client}`
            /// stands for a NO_PROXY client's name).
            pub fn legacy_summaries(self) -> &'static [&'static str] {
                match self {
                    $( Warning::$variant => &[$($legacy),*], )+
                }
            }
        }
    };
}

warnings! {
    /// A unit name one letter away from a well-known unit (`kublet`).
    UnitNameTypo = "unit_name_typo", legacy ["Unit name looks like a typo"];
    /// A drop-in line long enough to come near systemd's line limit.
    LongDropinLine = "long_dropin_line", legacy ["Very long drop-in line"];
    /// cert-manager's `no_proxy` cannot list the `kubernetes` Service ClusterIP without `service_cidrs`.
    CertManagerServiceIp = "cert_manager_service_ip", legacy ["cert-manager needs the kubernetes ClusterIP"];
    /// kubespray 2.30 writes a garbled NO_PROXY to the nodes.
    KubesprayGarbledNoProxy = "kubespray_garbled_no_proxy", legacy ["kubespray 2.30 writes a garbled NO_PROXY to the nodes"];
    /// User data larger than EC2 accepts.
    UserDataTooLarge = "user_data_too_large", legacy ["User data larger than EC2 accepts"];
    /// The bracketed IPv6 forms some clients need are left out of the list.
    BracketedIpv6LeftOut = "bracketed_ipv6_left_out", legacy ["Bracketed IPv6 forms left out"];
    /// An RKE2/k3s agent with scope `all` would send in-cluster traffic to the proxy.
    InClusterTrafficProxied = "in_cluster_traffic_proxied", legacy ["In-cluster traffic would go to the proxy"];
    /// A NO_PROXY entry was rewritten to the form every client reads.
    NoProxyEntryRewritten = "no_proxy_entry_rewritten", legacy ["NO_PROXY entry rewritten"];
    /// NO_PROXY contains `*`.
    NoProxyStar = "no_proxy_star", legacy ["NO_PROXY contains `*`"];
    /// CIDR aggregation was skipped because a client does not match CIDR blocks.
    CidrAggregationSkipped = "cidr_aggregation_skipped", legacy ["CIDR aggregation skipped"];
    /// A NO_PROXY client rejects the whole shared value.
    ClientRejectsNoProxy = "client_rejects_no_proxy", legacy ["{client} rejects this NO_PROXY value"];
    /// AKS receives the proxy URL without its trailing `/`.
    AksTrailingSlash = "aks_trailing_slash", legacy ["AKS receives the proxy URL without its trailing `/`"];
}

impl Warning {
    /// The kind whose identifier is `code`.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|w| w.code() == code)
    }

    /// Deprecated: the kind a warning's summary named in the former
    /// acknowledgement form (`units[0]: Unit name looks like a typo`);
    /// `is_client` says which names a `{client}` in a summary stands for.
    pub fn from_legacy_summary(summary: &str, is_client: impl Fn(&str) -> bool) -> Option<Self> {
        Self::ALL.iter().copied().find(|w| {
            w.legacy_summaries()
                .iter()
                .any(|legacy| match legacy.split_once("{client}") {
                    Some((before, after)) => summary
                        .strip_prefix(before)
                        .and_then(|s| s.strip_suffix(after))
                        .is_some_and(&is_client),
                    None => *legacy == summary,
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_unique_snake_case_and_documented() {
        for (i, warning) in Warning::ALL.iter().enumerate() {
            let code = warning.code();
            assert!(
                code.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{code}"
            );
            assert!(!warning.doc().is_empty(), "{code}");
            assert_eq!(Warning::from_code(code), Some(*warning));
            assert!(
                Warning::ALL[..i].iter().all(|w| w.code() != code),
                "{code} twice"
            );
        }
    }

    #[test]
    fn legacy_summaries_name_their_kind() {
        let is_client = |name: &str| name == "python";
        assert_eq!(
            Warning::from_legacy_summary("Unit name looks like a typo", is_client),
            Some(Warning::UnitNameTypo)
        );
        assert_eq!(
            Warning::from_legacy_summary("python rejects this NO_PROXY value", is_client),
            Some(Warning::ClientRejectsNoProxy)
        );
        assert_eq!(
            Warning::from_legacy_summary("cobol rejects this NO_PROXY value", is_client),
            None
        );
        assert_eq!(
            Warning::from_legacy_summary("unit_name_typo", is_client),
            None
        );
    }
}
