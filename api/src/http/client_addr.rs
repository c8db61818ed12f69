//! The caller's address: the socket's peer, or, only when that peer is the proxy the operator
//! named with `--trusted-proxy`, the address the proxy forwarded (`Forwarded: for=`, else the
//! last `X-Forwarded-For` entry, the one the trusted proxy itself appended). From anyone else
//! those headers are ignored: a client cannot pick its own rate-limit bucket.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;

/// The address requests are counted against, as [`resolve`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<ClientAddr>()
            .copied()
            .unwrap_or(ClientAddr(IpAddr::V6(Ipv6Addr::UNSPECIFIED))))
    }
}

/// The client's address for a request from `peer` (unspecified when the server runs without
/// connection info, as the in-process tests do).
pub fn resolve(
    peer: Option<&ConnectInfo<SocketAddr>>,
    headers: &HeaderMap,
    trusted_proxy: Option<IpAddr>,
) -> IpAddr {
    let peer = peer.map_or(IpAddr::V6(Ipv6Addr::UNSPECIFIED), |c| {
        c.0.ip().to_canonical()
    });
    match trusted_proxy {
        Some(proxy) if proxy.to_canonical() == peer => forwarded_for(headers).unwrap_or(peer),
        _ => peer,
    }
}

/// The address the proxy forwarded: the last `for=` of `Forwarded`, else the last entry of
/// `X-Forwarded-For`. `None` when neither names an address (an obfuscated `for=_hidden`, say).
pub fn forwarded_for(headers: &HeaderMap) -> Option<IpAddr> {
    let last = |name: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .last()
            .map(str::to_owned)
    };
    if let Some(element) = last("forwarded") {
        let value = element
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("for"))
            .map(|(_, v)| v.trim().trim_matches('"'));
        if let Some(addr) = value.and_then(parse_node) {
            return Some(addr);
        }
    }
    last("x-forwarded-for").and_then(|v| parse_node(v.trim()))
}

/// One node of a forwarding header: `192.0.2.1`, `192.0.2.1:443`, `2001:db8::1` or
/// `[2001:db8::1]:443`.
fn parse_node(text: &str) -> Option<IpAddr> {
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(sock) = text.parse::<SocketAddr>() {
        return Some(sock.ip().to_canonical());
    }
    let inner = text.strip_prefix('[')?.split(']').next()?;
    inner.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use proptest::prelude::*;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    fn peer(ip: &str) -> ConnectInfo<SocketAddr> {
        ConnectInfo(SocketAddr::new(ip.parse().expect("ip"), 5000))
    }

    #[test]
    fn forwarded_headers_count_only_from_the_trusted_proxy() {
        let h = headers(&[("x-forwarded-for", "203.0.113.9, 198.51.100.7")]);
        let proxy: IpAddr = "10.0.0.5".parse().expect("ip");
        assert_eq!(
            resolve(Some(&peer("10.0.0.5")), &h, Some(proxy)),
            "198.51.100.7".parse::<IpAddr>().expect("ip")
        );
        assert_eq!(
            resolve(Some(&peer("10.0.0.6")), &h, Some(proxy)),
            "10.0.0.6".parse::<IpAddr>().expect("ip")
        );
        assert_eq!(
            resolve(Some(&peer("10.0.0.5")), &h, None),
            "10.0.0.5".parse::<IpAddr>().expect("ip")
        );
    }

    #[test]
    fn forwarded_wins_and_its_forms_are_read() {
        let h = headers(&[
            (
                "forwarded",
                "for=192.0.2.43, for=\"[2001:db8:cafe::17]:4711\";proto=https",
            ),
            ("x-forwarded-for", "203.0.113.9"),
        ]);
        assert_eq!(
            forwarded_for(&h),
            Some("2001:db8:cafe::17".parse().expect("ip"))
        );
        let hidden = headers(&[
            ("forwarded", "for=_hidden"),
            ("x-forwarded-for", "203.0.113.9:80"),
        ]);
        assert_eq!(
            forwarded_for(&hidden),
            Some("203.0.113.9".parse().expect("ip"))
        );
        assert_eq!(
            forwarded_for(&headers(&[("x-forwarded-for", "nonsense")])),
            None
        );
    }

    proptest! {
        #[test]
        fn any_header_text_is_read_or_ignored(a in "\\PC{0,80}", b in "[ -~]{0,80}") {
            let mut h = HeaderMap::new();
            if let Ok(v) = HeaderValue::from_str(&a) {
                h.append("forwarded", v);
            }
            if let Ok(v) = HeaderValue::from_str(&b) {
                h.append("x-forwarded-for", v);
            }
            let _ = forwarded_for(&h);
        }

        #[test]
        fn any_address_round_trips(v4 in any::<[u8; 4]>(), v6 in any::<[u16; 8]>(), port in any::<u16>()) {
            let a = IpAddr::from(v4);
            let h = headers(&[("x-forwarded-for", &format!("1.1.1.1, {a}:{port}"))]);
            prop_assert_eq!(forwarded_for(&h), Some(a));
            let b = IpAddr::from(v6).to_canonical();
            let h = headers(&[("forwarded", &format!("for=\"[{b}]:{port}\""))]);
            prop_assert_eq!(forwarded_for(&h), Some(b));
        }
    }
}
