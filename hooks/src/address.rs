//! Where catalog may post: the guard against server-side request forgery (decisions §9).
//!
//! A hook's address must be `https://` and every address its host resolves to must be public:
//! no loopback, private, link-local, shared, documentation, multicast or reserved ranges, in IPv4
//! or IPv6 (IPv4 inside IPv6 is judged as the IPv4 it carries). The check runs when a hook is
//! added and again at every delivery, inside the HTTP client's own resolver ([`Checked`]): the
//! addresses it approves are the only ones the client connects to, so a name that answers a
//! public address to the check and a private one to the connection (DNS rebinding) gets nowhere.
//! `--allow-http-webhooks` ([`Policy::allow_http`]) also admits `http://` and loopback, for local
//! tests only; private ranges stay refused even then.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use crate::error::{Error, Result};

/// The longest hook address taken.
pub const MAX_URL_CHARS: usize = 2000;

/// What the operator allows beyond public `https://` addresses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// `http://` addresses and loopback targets (`serve --allow-http-webhooks`, local tests).
    pub allow_http: bool,
}

/// A hook address that passed the checks that need no DNS: scheme, host, no credentials, length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookUrl(Url);

impl HookUrl {
    /// Reads `text` as a hook address under `policy`.
    pub fn parse(text: &str, policy: Policy) -> Result<HookUrl> {
        let bad = |reason: &str| Error::BadUrl {
            url: text.chars().take(200).collect(),
            reason: reason.to_owned(),
        };
        if text.chars().count() > MAX_URL_CHARS {
            return Err(bad(&format!("longer than {MAX_URL_CHARS} characters")));
        }
        let url = Url::parse(text).map_err(|e| bad(&e.to_string()))?;
        match url.scheme() {
            "https" => {}
            "http" if policy.allow_http => {}
            "http" => return Err(bad("only https:// addresses are allowed")),
            _ => return Err(bad("only https:// addresses are allowed")),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad(
                "an address with a user name or password is not allowed",
            ));
        }
        if url.fragment().is_some() {
            return Err(bad("an address with a #fragment is not allowed"));
        }
        match url.host() {
            None => return Err(bad("the address names no host")),
            Some(Host::Ipv4(ip)) => check_ip(IpAddr::V4(ip), policy).map_err(bad)?,
            Some(Host::Ipv6(ip)) => check_ip(IpAddr::V6(ip), policy).map_err(bad)?,
            Some(Host::Domain(name)) => {
                let local = policy.allow_http && name == "localhost";
                if !local && !name.contains('.') {
                    return Err(bad("the host is not a public domain name"));
                }
            }
        }
        Ok(HookUrl(url))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn url(&self) -> &Url {
        &self.0
    }

    /// Resolves the host and checks every address it gives; the addresses when all pass.
    pub async fn resolve(&self, policy: Policy) -> Result<Vec<SocketAddr>> {
        let port = self.0.port_or_known_default().unwrap_or(443);
        let bad = |reason: String| Error::BadUrl {
            url: self.0.as_str().chars().take(200).collect(),
            reason,
        };
        match self.0.host() {
            Some(Host::Ipv4(ip)) => Ok(vec![SocketAddr::new(IpAddr::V4(ip), port)]),
            Some(Host::Ipv6(ip)) => Ok(vec![SocketAddr::new(IpAddr::V6(ip), port)]),
            Some(Host::Domain(name)) => resolve_checked(name, port, policy).await.map_err(bad),
            None => Err(bad("the address names no host".into())),
        }
    }
}

/// Resolves `name` and refuses the lot when any address is not allowed (a name with one private
/// address among public ones is refused: which one a connection gets is not ours to choose).
async fn resolve_checked(
    name: &str,
    port: u16,
    policy: Policy,
) -> std::result::Result<Vec<SocketAddr>, String> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name, port))
        .await
        .map_err(|e| format!("cannot resolve {name}: {e}"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{name} resolves to no address"));
    }
    for addr in &addrs {
        check_ip(addr.ip(), policy)
            .map_err(|why| format!("{name} resolves to {}: {why}", addr.ip()))?;
    }
    Ok(addrs)
}

/// Why `ip` may not be posted to, if it may not.
pub fn check_ip(ip: IpAddr, policy: Policy) -> std::result::Result<(), &'static str> {
    if policy.allow_http && ip.to_canonical().is_loopback() {
        return Ok(());
    }
    if is_public(ip) {
        Ok(())
    } else {
        Err("not a public address")
    }
}

/// True for addresses on the public internet: globally routed unicast, nothing special-purpose.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0
        // Shared address space (carrier-grade NAT), 100.64.0.0/10.
        || (a == 100 && (64..128).contains(&b))
        // IETF protocol assignments, 192.0.0.0/24.
        || (a == 192 && b == 0 && c == 0)
        // Benchmarking, 198.18.0.0/15.
        || (a == 198 && (b == 18 || b == 19))
        // Reserved, 240.0.0.0/4.
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible forms carry an IPv4
    // address that is what a connection reaches.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last 32 bits.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4] {
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    // Only global unicast (2000::/3) is public; inside it, leave out documentation
    // (2001:db8::/32), Teredo (2001::/32), 6to4 (2002::/16, which tunnels to any IPv4 address)
    // and the other IETF assignments of 2001::/23.
    (s[0] & 0xe000) == 0x2000
        && !(s[0] == 0x2001 && s[1] == 0x0db8)
        && !(s[0] == 0x2001 && s[1] < 0x0200)
        && s[0] != 0x2002
}

/// The HTTP client's resolver: resolves like the system and then refuses any name with an
/// address [`check_ip`] refuses, so the checked addresses are the ones connected to.
#[derive(Debug, Clone, Copy)]
pub struct Checked(pub Policy);

impl Resolve for Checked {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0;
        Box::pin(async move {
            // The port is the connector's to fill in; only the addresses are used.
            let addrs = resolve_checked(name.as_str(), 0, policy).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const STRICT: Policy = Policy { allow_http: false };
    const LOCAL: Policy = Policy { allow_http: true };

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fe80::1",
            "fc00::1",
            "fd12::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2001:db8::1",
            "2001::1",
            "2002:7f00:1::1",
            "100::1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(!is_public(ip), "{ip}");
        }
    }

    #[test]
    fn public_addresses_are_public() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001::1",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(is_public(ip), "{ip}");
        }
    }

    #[test]
    fn only_https_unless_the_operator_allows_http() {
        assert!(HookUrl::parse("https://hooks.example.org/catalog", STRICT).is_ok());
        for bad in [
            "http://hooks.example.org/",
            "ftp://hooks.example.org/",
            "https://user:pw@hooks.example.org/",
            "https://hooks.example.org/#x",
            "https://localhost/",
            "https://intranet/",
            "https://127.0.0.1/",
            "https://[::1]:8443/",
            "https://10.0.0.7/",
            "https://169.254.169.254/latest/meta-data",
            "not a url",
        ] {
            let err = HookUrl::parse(bad, STRICT).unwrap_err();
            assert!(matches!(err, Error::BadUrl { .. }), "{bad}: {err}");
        }
        assert!(HookUrl::parse("http://127.0.0.1:9000/hook", LOCAL).is_ok());
        assert!(HookUrl::parse("http://localhost:9000/hook", LOCAL).is_ok());
        // Private ranges stay refused with the local flag.
        assert!(HookUrl::parse("http://10.0.0.7/", LOCAL).is_err());
        let long = format!("https://a.example/{}", "x".repeat(MAX_URL_CHARS));
        assert!(HookUrl::parse(&long, STRICT).is_err());
    }

    #[tokio::test]
    async fn a_name_is_judged_by_every_address_it_resolves_to() {
        // `localhost` resolves to loopback only: refused without the flag, taken with it.
        let url = HookUrl::parse("http://localhost:9/", LOCAL).unwrap();
        assert!(url.resolve(STRICT).await.is_err());
        let addrs = url.resolve(LOCAL).await.unwrap();
        assert!(addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 9));
    }

    /// The client's own resolver refuses a name with a non-public address, so a connection
    /// never reaches an address the check did not pass.
    #[tokio::test]
    async fn the_clients_resolver_refuses_what_the_check_refuses() {
        let name: Name = "localhost".parse().unwrap();
        assert!(Checked(STRICT).resolve(name).await.is_err());
        let name: Name = "localhost".parse().unwrap();
        let addrs: Vec<SocketAddr> = Checked(LOCAL).resolve(name).await.unwrap().collect();
        assert!(!addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback()));
    }

    proptest! {
        /// Every IPv4 address judges the same bare and mapped into IPv6, and loopback is allowed
        /// exactly when the operator allows local hooks.
        #[test]
        fn mapped_addresses_judge_as_their_ipv4(bits in any::<u32>()) {
            let v4 = Ipv4Addr::from(bits);
            prop_assert_eq!(is_public(IpAddr::V4(v4)), is_public(IpAddr::V6(v4.to_ipv6_mapped())));
            if v4.is_loopback() {
                prop_assert!(check_ip(IpAddr::V4(v4), STRICT).is_err());
                prop_assert!(check_ip(IpAddr::V4(v4), LOCAL).is_ok());
            }
            if v4.is_private() || v4.is_link_local() {
                prop_assert!(check_ip(IpAddr::V4(v4), LOCAL).is_err());
            }
        }

        /// An address typed into a URL is judged like the same address resolved.
        #[test]
        fn literal_hosts_are_judged_like_resolved_ones(bits in any::<u32>()) {
            let v4 = Ipv4Addr::from(bits);
            let parsed = HookUrl::parse(&format!("https://{v4}/hook"), STRICT);
            prop_assert_eq!(parsed.is_ok(), is_public(IpAddr::V4(v4)));
        }

        #[test]
        fn ipv6_outside_global_unicast_is_never_public(bits in any::<u128>()) {
            let v6 = Ipv6Addr::from(bits);
            if (v6.segments()[0] & 0xe000) != 0x2000 && v6.to_ipv4_mapped().is_none()
                && !(v6.segments()[0] == 0x64 && v6.segments()[1] == 0xff9b)
            {
                prop_assert!(!is_public(IpAddr::V6(v6)));
            }
        }
    }
}
