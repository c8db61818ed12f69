//! Request budgets: one bucket per client address for anonymous calls (an IPv6 address counts by
//! its /64, the block one subscriber usually holds), one per account for signed-in calls (so two
//! tokens of one person share one bucket).

use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::time::Duration;

use axum::http::HeaderValue;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

/// Who a request is counted against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// An anonymous caller, by its address grouped with [`Client::addr`].
    Addr(IpAddr),
    /// A signed-in caller, by account: every token and session of one person.
    Account(u64),
}

impl Client {
    /// The bucket of an address: IPv4 as it is, IPv6 by its /64 (an IPv4-mapped IPv6 address
    /// counts as the IPv4 address it carries).
    pub fn addr(addr: IpAddr) -> Client {
        Client::Addr(group(addr))
    }
}

/// The address a bucket is kept for: a whole IPv6 /64 is one client, since one subscriber
/// usually holds all of it and could otherwise take a fresh bucket per request.
pub fn group(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// What the caller has left after an allowed request, for the `RateLimit` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset_secs: u64,
}

impl Budget {
    /// The `RateLimit` header: `limit=600, remaining=599, reset=1`. Written on the stack: every
    /// answer carries one.
    pub fn header(&self) -> HeaderValue {
        use std::io::Write as _;
        // Three numbers of at most 20 digits and the 29 bytes around them.
        let mut buf = [0u8; 96];
        let mut rest = &mut buf[..];
        let written = write!(
            rest,
            "limit={}, remaining={}, reset={}",
            self.limit, self.remaining, self.reset_secs
        );
        debug_assert!(written.is_ok());
        let len = 96 - rest.len();
        HeaderValue::from_bytes(&buf[..len]).expect("digits and `=, ` make a header value")
    }
}

/// A refused request: how long to wait before the next one is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted {
    pub limit: u32,
    pub retry_after_secs: u64,
}

type Keyed<C> = RateLimiter<Client, DefaultKeyedStateStore<Client>, C, StateInformationMiddleware>;

/// Both buckets; anonymous callers get `per_minute`, signed-in callers twice that.
pub struct RateLimits<C: Clock = DefaultClock> {
    anonymous: Keyed<C>,
    signed_in: Keyed<C>,
    /// `RateLimit-Policy` for an address's bucket and an account's, made once: every answer
    /// carries one.
    policy_addr: HeaderValue,
    policy_account: HeaderValue,
}

impl RateLimits<DefaultClock> {
    /// Budgets on the real clock.
    pub fn new(per_minute: NonZeroU32) -> Self {
        Self::with_clock(per_minute, DefaultClock::default())
    }
}

impl<C: Clock + Clone> RateLimits<C> {
    /// Budgets on a given clock (tests use a fake one).
    pub fn with_clock(per_minute: NonZeroU32, clock: C) -> Self {
        let doubled = per_minute.saturating_mul(NonZeroU32::MIN.saturating_add(1));
        let limiter = |n: NonZeroU32| {
            RateLimiter::dashmap_with_clock(Quota::per_minute(n), clock.clone())
                .with_middleware::<StateInformationMiddleware>()
        };
        RateLimits {
            anonymous: limiter(per_minute),
            signed_in: limiter(doubled),
            policy_addr: header_value(format!("{per_minute};w=60")),
            policy_account: header_value(format!("{doubled};w=60")),
        }
    }

    /// The `RateLimit-Policy` of `client`'s own bucket: `600;w=60` for an address,
    /// `1200;w=60` for an account at the default figure.
    pub fn policy(&self, client: &Client) -> &HeaderValue {
        match client {
            Client::Addr(_) => &self.policy_addr,
            Client::Account(_) => &self.policy_account,
        }
    }

    /// Counts one request against `client`'s bucket.
    pub fn check(&self, client: &Client) -> Result<Budget, Exhausted> {
        let limiter = match client {
            Client::Addr(_) => &self.anonymous,
            Client::Account(_) => &self.signed_in,
        };
        match limiter.check_key(client) {
            Ok(snapshot) => {
                let limit = snapshot.quota().burst_size().get();
                let remaining = snapshot.remaining_burst_capacity();
                let used = u64::from(limit - remaining.min(limit));
                let per_cell = snapshot.quota().replenish_interval();
                let reset = per_cell.saturating_mul(u32::try_from(used).unwrap_or(u32::MAX));
                Ok(Budget {
                    limit,
                    remaining,
                    reset_secs: ceil_secs(reset),
                })
            }
            Err(not_until) => Err(Exhausted {
                limit: not_until.quota().burst_size().get(),
                retry_after_secs: ceil_secs(not_until.wait_time_from(limiter.clock().now())).max(1),
            }),
        }
    }

    /// Forgets buckets that are full again, so idle clients do not hold memory.
    pub fn forget_idle(&self) {
        self.anonymous.retain_recent();
        self.signed_in.retain_recent();
    }
}

fn header_value(text: String) -> HeaderValue {
    HeaderValue::try_from(text).expect("digits and `;w=` make a header value")
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use governor::clock::FakeRelativeClock;

    use super::*;

    fn limits(n: u32) -> (RateLimits<FakeRelativeClock>, FakeRelativeClock) {
        let clock = FakeRelativeClock::default();
        let n = NonZeroU32::new(n).expect("positive");
        (RateLimits::with_clock(n, clock.clone()), clock)
    }

    #[test]
    fn anonymous_bucket_empties_then_refills() {
        let (limits, clock) = limits(3);
        let me = Client::Addr(IpAddr::V4(Ipv4Addr::LOCALHOST));
        let remaining: Vec<u32> = (0..3)
            .map(|_| limits.check(&me).expect("within budget").remaining)
            .collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = limits.check(&me).expect_err("fourth request in a minute");
        assert_eq!(refused.limit, 3);
        assert_eq!(refused.retry_after_secs, 20);
        clock.advance(Duration::from_secs(20));
        assert!(limits.check(&me).is_ok());
    }

    #[test]
    fn clients_do_not_share_buckets_and_tokens_get_double() {
        let (limits, _clock) = limits(1);
        let a = Client::Addr(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)));
        let b = Client::Addr(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));
        assert!(limits.check(&a).is_ok());
        assert!(limits.check(&a).is_err());
        assert!(limits.check(&b).is_ok());
        let account = Client::Account(7);
        assert_eq!(limits.check(&account).map(|b| b.limit), Ok(2));
        assert!(limits.check(&account).is_ok());
        assert!(limits.check(&account).is_err());
        assert_eq!(limits.policy(&a), "1;w=60");
        assert_eq!(limits.policy(&account), "2;w=60");
    }

    #[test]
    fn the_budget_header_holds_the_largest_numbers() {
        let b = Budget {
            limit: 600,
            remaining: 599,
            reset_secs: 1,
        };
        assert_eq!(b.header(), "limit=600, remaining=599, reset=1");
        let most = Budget {
            limit: u32::MAX,
            remaining: u32::MAX,
            reset_secs: u64::MAX,
        };
        assert_eq!(
            most.header(),
            format!(
                "limit={}, remaining={}, reset={}",
                u32::MAX,
                u32::MAX,
                u64::MAX
            )
            .as_str()
        );
    }

    #[test]
    fn ipv6_counts_by_its_64_and_mapped_ipv4_as_ipv4() {
        let one: IpAddr = "2001:db8:1:2:aaaa::1".parse().expect("v6");
        let same_64: IpAddr = "2001:db8:1:2:ffff::9".parse().expect("v6");
        let next_64: IpAddr = "2001:db8:1:3::1".parse().expect("v6");
        assert_eq!(Client::addr(one), Client::addr(same_64));
        assert_ne!(Client::addr(one), Client::addr(next_64));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().expect("mapped");
        assert_eq!(
            Client::addr(mapped),
            Client::Addr(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)))
        );
    }

    #[test]
    fn reset_counts_the_used_cells() {
        let (limits, _clock) = limits(60);
        let me = Client::Addr(IpAddr::V4(Ipv4Addr::LOCALHOST));
        let first = limits.check(&me).expect("allowed");
        assert_eq!(
            (first.limit, first.remaining, first.reset_secs),
            (60, 59, 1)
        );
    }
}
