//! Request budgets: one bucket per client address for anonymous calls, one per token (keyed by a
//! hash of the token, so the secret itself is never kept in memory here).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

/// Who a request is counted against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// An anonymous caller, by its address.
    Addr(IpAddr),
    /// A signed-in caller, by the blake3 hash of its bearer token or session secret.
    Credential([u8; 32]),
}

impl Client {
    /// The bucket key of a secret credential; only its hash is kept.
    pub fn credential(secret: &str) -> Client {
        Client::Credential(*blake3::hash(secret.as_bytes()).as_bytes())
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

/// A refused request: how long to wait before the next one is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted {
    pub limit: u32,
    pub retry_after_secs: u64,
}

type Keyed<C> = RateLimiter<Client, DefaultKeyedStateStore<Client>, C, StateInformationMiddleware>;

/// Both buckets; anonymous callers get `per_minute`, credentials twice that.
pub struct RateLimits<C: Clock = DefaultClock> {
    anonymous: Keyed<C>,
    signed_in: Keyed<C>,
    per_minute: NonZeroU32,
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
            per_minute,
        }
    }

    /// The anonymous figure, announced in `RateLimit-Policy`.
    pub fn policy(&self) -> String {
        format!("{};w=60", self.per_minute)
    }

    /// Counts one request against `client`'s bucket.
    pub fn check(&self, client: &Client) -> Result<Budget, Exhausted> {
        let limiter = match client {
            Client::Addr(_) => &self.anonymous,
            Client::Credential(_) => &self.signed_in,
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
        let token = Client::credential("catp_secret");
        assert_eq!(limits.check(&token).map(|b| b.limit), Ok(2));
        assert!(limits.check(&token).is_ok());
        assert!(limits.check(&token).is_err());
        assert_eq!(limits.policy(), "1;w=60");
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
