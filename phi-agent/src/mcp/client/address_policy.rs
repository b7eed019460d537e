//! Where the OAuth requests phi-agent sends itself may go. The token endpoint and the other
//! addresses come from metadata the MCP server's side published, so a hostile or compromised
//! server could point them at the client's own network (a cloud metadata service, an admin page
//! on loopback). These requests (the machine grants' and, with DPoP, every OAuth request) are
//! held to the rule rmcp's own OAuth client keeps:
//!
//! - a loopback address only when the MCP server's URL is loopback itself (`localhost`,
//!   `127.0.0.1`, `[::1]`), a private one (`10/8`, `172.16/12`, `192.168/16`, `fc00::/7`) only
//!   when the server's URL is a private address;
//! - never link-local (`169.254/16`, where clouds serve instance credentials, `fe80::/10`),
//!   unspecified, broadcast, multicast, shared (`100.64/10`) or benchmarking (`198.18/15`)
//!   addresses, nor a cloud metadata host name.
//!
//! Names are checked after they resolve (the resolver drops what the rule refuses), IP literals
//! and redirects before the request goes. A proxy from the environment is not checked: it is the
//! operator's.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Host names that clouds answer instance metadata (and credentials) at.
const METADATA_HOSTS: &[&str] = &[
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
];

/// Most redirects an OAuth request follows.
const MAX_REDIRECTS: usize = 10;

/// Which address classes an MCP server's OAuth requests may reach; see the [module](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AddressPolicy {
    loopback: bool,
    private: bool,
}

/// What an address is, for the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Public,
    Loopback,
    Private,
    Refused,
}

impl AddressPolicy {
    /// The policy for the MCP server at `server_url`: its own class is allowed.
    pub(super) fn for_server(server_url: &str) -> Self {
        let class = Url::parse(server_url)
            .ok()
            .and_then(|url| url.host().map(|host| host_class(&host)));
        Self {
            loopback: class == Some(Class::Loopback),
            private: class == Some(Class::Private),
        }
    }

    fn allows(self, class: Class) -> bool {
        match class {
            Class::Public => true,
            Class::Loopback => self.loopback,
            Class::Private => self.private,
            Class::Refused => false,
        }
    }

    /// Whether a request may go to `url` as far as its host alone tells (an IP literal, a
    /// loopback or metadata name); a name's addresses are checked when it resolves.
    pub(super) fn allows_url(self, url: &Url) -> bool {
        url.host()
            .is_some_and(|host| self.allows(host_class(&host)))
    }

    /// A reqwest client for OAuth requests under this policy, following redirects the policy
    /// allows (up to ten) when `follow` is set.
    pub(super) fn client(
        self,
        follow: bool,
        timeout: std::time::Duration,
    ) -> Result<reqwest::Client, String> {
        let redirect = if follow {
            reqwest::redirect::Policy::custom(move |attempt| {
                if !self.allows_url(attempt.url()) {
                    let refused = format!(
                        "a redirect to {} was refused: the address is not one the MCP server's \
                         OAuth requests may reach",
                        attempt.url()
                    );
                    attempt.error(refused)
                } else if attempt.previous().len() > MAX_REDIRECTS {
                    attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
                } else {
                    attempt.follow()
                }
            })
        } else {
            reqwest::redirect::Policy::none()
        };
        reqwest::Client::builder()
            .user_agent(concat!("phi-agent/", env!("CARGO_PKG_VERSION")))
            .timeout(timeout)
            .redirect(redirect)
            .dns_resolver(Arc::new(FilteringResolver(self)))
            .build()
            .map_err(|e| format!("could not set up the HTTP client for OAuth: {e}"))
    }

    /// Refuses `url` up front when its host alone breaks the rule, with a message that says so.
    pub(super) fn check(self, url: &str) -> Result<(), String> {
        match Url::parse(url) {
            Ok(parsed) if self.allows_url(&parsed) => Ok(()),
            Ok(_) => Err(refusal(&format!("`{url}`"))),
            Err(e) => Err(format!("`{url}` is not a URL: {e}")),
        }
    }
}

fn refusal(what: &str) -> String {
    format!(
        "{what} is at a loopback, private, link-local or metadata address that the MCP server's \
         OAuth requests may not reach (only a server that is itself at such an address may name \
         one)"
    )
}

/// Resolves names with the system's resolver and keeps the addresses the policy allows.
struct FilteringResolver(AddressPolicy);

impl Resolve for FilteringResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found
                .into_iter()
                .filter(|addr| policy.allows(ip_class(addr.ip())))
                .collect();
            if kept.is_empty() {
                return Err(refusal(&format!("`{host}`")).into());
            }
            let addrs: Addrs = Box::new(kept.into_iter());
            Ok(addrs)
        })
    }
}

fn host_class(host: &Host<&str>) -> Class {
    match host {
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                Class::Loopback
            } else if METADATA_HOSTS.contains(&name.as_str()) {
                Class::Refused
            } else {
                Class::Public
            }
        }
        Host::Ipv4(addr) => ipv4_class(*addr),
        Host::Ipv6(addr) => ipv6_class(*addr),
    }
}

fn ip_class(ip: IpAddr) -> Class {
    match ip {
        IpAddr::V4(addr) => ipv4_class(addr),
        IpAddr::V6(addr) => ipv6_class(addr),
    }
}

fn ipv4_class(addr: Ipv4Addr) -> Class {
    let [a, b, ..] = addr.octets();
    if addr.is_loopback() {
        Class::Loopback
    } else if addr.is_private() {
        Class::Private
    } else if addr.is_link_local()
        || addr.is_unspecified()
        || addr.is_broadcast()
        || addr.is_multicast()
        || a == 0
        || (a == 100 && (64..=127).contains(&b))
        || (a == 198 && (b == 18 || b == 19))
    {
        Class::Refused
    } else {
        Class::Public
    }
}

fn ipv6_class(addr: Ipv6Addr) -> Class {
    let s = addr.segments();
    // IPv4 carried inside IPv6 (mapped, NAT64, 6to4) is judged as the IPv4 address it carries.
    let embedded = match s {
        [0, 0, 0, 0, 0, 0xffff, g, h] | [0x64, 0xff9b, 0, 0, 0, 0, g, h] => {
            Some(Ipv4Addr::from((u32::from(g) << 16) | u32::from(h)))
        }
        [0x2002, b, c, ..] => Some(Ipv4Addr::from((u32::from(b) << 16) | u32::from(c))),
        _ => None,
    };
    if let Some(v4) = embedded {
        return ipv4_class(v4);
    }
    if addr.is_loopback() {
        Class::Loopback
    } else if (s[0] & 0xfe00) == 0xfc00 {
        Class::Private
    } else if addr.is_unspecified()
        || addr.is_multicast()
        || (s[0] & 0xffc0) == 0xfe80
        || s[..2] == [0x2001, 0]
        || s[..3] == [0x64, 0xff9b, 1]
    {
        Class::Refused
    } else {
        Class::Public
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_server_reaches_no_loopback_private_or_metadata_address() {
        let policy = AddressPolicy::for_server("https://mcp.example.com/mcp");
        for url in [
            "http://127.0.0.1/token",
            "http://localhost:8080/token",
            "http://10.0.0.9/token",
            "http://169.254.169.254/latest/meta-data/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://[::ffff:127.0.0.1]/token",
            "http://[fe80::1]/token",
            "http://[fd00::1]/token",
            "http://100.64.0.1/token",
        ] {
            assert!(policy.check(url).is_err(), "{url} was allowed");
        }
        assert!(policy.check("https://auth.example.com/token").is_ok());
        assert!(policy.check("https://93.184.216.34/token").is_ok());
    }

    #[test]
    fn a_server_at_a_loopback_or_private_address_may_name_its_own_class() {
        let local = AddressPolicy::for_server("http://127.0.0.1:8808/mcp");
        assert!(local.check("http://localhost:9000/token").is_ok());
        assert!(local.check("http://10.0.0.9/token").is_err());
        let corp = AddressPolicy::for_server("http://10.1.2.3/mcp");
        assert!(corp.check("http://10.0.0.9/token").is_ok());
        assert!(corp.check("http://127.0.0.1/token").is_err());
        // Link-local stays refused for everyone.
        assert!(local.check("http://169.254.169.254/").is_err());
        assert!(corp.check("http://169.254.169.254/").is_err());
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused_for_a_public_server() {
        let policy = AddressPolicy::for_server("https://mcp.example.com/mcp");
        let resolver = FilteringResolver(policy);
        let name: Name = "localhost".parse().expect("a name");
        let error = resolver.resolve(name).await.err().expect("refused");
        assert!(error.to_string().contains("may not reach"), "{error}");
        let local = FilteringResolver(AddressPolicy::for_server("http://localhost:1/mcp"));
        let found = local
            .resolve("localhost".parse().expect("a name"))
            .await
            .expect("allowed");
        assert!(found.into_iter().all(|addr| addr.ip().is_loopback()));
    }
}
