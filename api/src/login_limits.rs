//! Signing in is the one request that costs real work on purpose: an argon2 verify takes a core
//! for tens of milliseconds and ~19 MiB. Unchecked, a burst of wrong passwords fills the blocking
//! pool that token authentication shares and takes every core. Three things bound it:
//!
//! - a budget per address (an IPv6 /64 counts as one) and per handle, checked before any hashing;
//! - a semaphore around hashing sized to leave a core for everything else, whose wait is bounded:
//!   past [`HASHING_WAIT`] the attempt is refused, never queued without end;
//! - both refusals answer `429 rate-limited` with `Retry-After`.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::ratelimit::group;

/// Sign-in attempts a minute for one handle, by default (`--login-attempts-per-minute`).
pub const LOGIN_PER_HANDLE_PER_MINUTE: u32 = 5;

/// Sign-in attempts a minute from one address are this many times the per-handle figure
/// (10 a minute by default): someone with two accounts behind one address may still sign in.
pub const LOGIN_ADDRESS_FACTOR: u32 = 2;

/// The longest an attempt waits for a free password-hashing slot before `429`.
pub const HASHING_WAIT: Duration = Duration::from_secs(2);

/// Password checks allowed at once: one fewer than the cores (at least one), so a burst of
/// sign-ins leaves a core for reads.
pub fn hashing_slots() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .max(1)
}

type Keyed<K> = RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock>;

/// The sign-in budgets and the hashing slots.
pub struct LoginLimits {
    by_addr: Keyed<IpAddr>,
    /// Keyed by a hash of the lowercased handle, so a flood of long made-up handles costs
    /// 32 bytes each.
    by_handle: Keyed<[u8; 32]>,
    hashing: Arc<Semaphore>,
}

impl LoginLimits {
    /// `per_handle` attempts a minute per handle, [`LOGIN_ADDRESS_FACTOR`] times that per address.
    pub fn new(per_handle: NonZeroU32) -> LoginLimits {
        let per_addr = per_handle
            .saturating_mul(NonZeroU32::new(LOGIN_ADDRESS_FACTOR).unwrap_or(NonZeroU32::MIN));
        LoginLimits {
            by_addr: RateLimiter::dashmap(Quota::per_minute(per_addr)),
            by_handle: RateLimiter::dashmap(Quota::per_minute(per_handle)),
            hashing: Arc::new(Semaphore::new(hashing_slots())),
        }
    }

    /// Counts one attempt against the address, then (if it had room) against the handle.
    pub fn admit(&self, addr: IpAddr, handle: &str) -> Result<(), ApiError> {
        let clock = DefaultClock::default();
        if let Err(wait) = self.by_addr.check_key(&group(addr)) {
            return Err(refused(
                "too many sign-in attempts from this address",
                wait.wait_time_from(clock.now()),
            ));
        }
        let key = *blake3::hash(handle.trim().to_lowercase().as_bytes()).as_bytes();
        if let Err(wait) = self.by_handle.check_key(&key) {
            return Err(refused(
                "too many sign-in attempts for this handle",
                wait.wait_time_from(clock.now()),
            ));
        }
        Ok(())
    }

    /// A hashing slot, waited for at most [`HASHING_WAIT`]. Hold it until the hashing ends.
    pub async fn hashing_slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        match tokio::time::timeout(HASHING_WAIT, self.hashing.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(ApiError::Throttled {
                message: format!(
                    "the server is busy checking other sign-ins (waited {} s): try again shortly",
                    HASHING_WAIT.as_secs()
                ),
                retry_after_secs: 1,
            }),
        }
    }

    /// Forgets budgets that are full again.
    pub fn forget_idle(&self) {
        self.by_addr.retain_recent();
        self.by_handle.retain_recent();
    }
}

fn refused(what: &str, wait: Duration) -> ApiError {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let secs = secs.max(1);
    ApiError::Throttled {
        message: format!("{what}: wait {secs} s"),
        retry_after_secs: secs,
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    #[test]
    fn handle_budget_then_address_budget() {
        let limits = LoginLimits::new(NonZeroU32::new(2).expect("positive"));
        let me = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        assert!(limits.admit(me, "dina").is_ok());
        assert!(limits.admit(me, "DINA ").is_ok());
        let third = limits.admit(me, "dina").expect_err("third for the handle");
        assert!(third.to_string().contains("handle"), "{third}");
        assert!(limits.admit(me, "other").is_ok());
        // Four from the address so far (the refused one counted): the address is spent.
        let spent = limits.admit(me, "third").expect_err("address spent");
        assert!(spent.to_string().contains("address"), "{spent}");
        assert!(
            limits
                .admit(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), "fourth")
                .is_ok()
        );
    }

    #[test]
    fn at_least_one_slot() {
        assert!(hashing_slots() >= 1);
    }
}
