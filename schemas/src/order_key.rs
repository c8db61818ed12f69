//! [`OrderKey`]: fractional indexing over base 62, so an item can be placed between two others
//! without renumbering anything.
//!
//! A key is an integer part followed by a fraction. The integer part's first character (its
//! head) gives its length: `a`..`z` are non-negative integers of 1..26 digits, `Z`..`A` negative
//! ones of 1..26 digits, so longer positive integers sort after shorter ones and longer negative
//! ones before. The fraction never ends in `0`, which keeps every key's spelling unique and leaves
//! room below any key. This is the scheme of the widely used `fractional-indexing` library, so
//! keys made elsewhere with the same alphabet interoperate.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::SchemaError;

/// The digits in ASCII order, so keys compare as plain byte strings.
const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ZERO: u8 = b'0';
const LAST: u8 = b'z';
/// The smallest integer part. No key can be placed below it, so it may not be a key itself.
const SMALLEST_INTEGER: &str = "A00000000000000000000000000";

/// A position in an ordered list. `Ord` is byte order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderKey(String);

impl OrderKey {
    /// Reads a key and checks it is in canonical form.
    pub fn parse(s: &str) -> Result<OrderKey, SchemaError> {
        check(s).map_err(|reason| SchemaError::order_key(s, reason))?;
        Ok(OrderKey(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key of an empty list's first item.
    pub fn first() -> OrderKey {
        OrderKey("a0".to_owned())
    }

    /// A key strictly between `a` and `b`; `None` stands for the open end of the list. Fails only
    /// when `a` is not before `b`.
    pub fn between(a: Option<&OrderKey>, b: Option<&OrderKey>) -> Result<OrderKey, SchemaError> {
        if let (Some(a), Some(b)) = (a, b)
            && a >= b
        {
            return Err(SchemaError::order_key(
                a.as_str(),
                format!("is not before {:?}", b.as_str()),
            ));
        }
        let key = match (a, b) {
            (None, None) => "a0".to_owned(),
            (None, Some(b)) => before(b.as_str()),
            (Some(a), None) => after(a.as_str()),
            (Some(a), Some(b)) => strictly_between(a.as_str(), b.as_str()),
        };
        debug_assert!(check(&key).is_ok(), "made a bad key {key:?}");
        Ok(OrderKey(key))
    }

    /// `n` keys in order, strictly between `a` and `b`, spread so that the keys stay short.
    pub fn n_between(
        a: Option<&OrderKey>,
        b: Option<&OrderKey>,
        n: usize,
    ) -> Result<Vec<OrderKey>, SchemaError> {
        match n {
            0 => {
                // Still refuse a reversed pair, so the answer does not depend on n.
                if let (Some(a), Some(b)) = (a, b)
                    && a >= b
                {
                    return OrderKey::between(Some(a), Some(b)).map(|_| Vec::new());
                }
                Ok(Vec::new())
            }
            1 => Ok(vec![OrderKey::between(a, b)?]),
            _ if b.is_none() => {
                // Open-ended: step forward one integer at a time, which stays short.
                let mut out = Vec::with_capacity(n);
                let mut last = a.cloned();
                for _ in 0..n {
                    let next = OrderKey::between(last.as_ref(), None)?;
                    out.push(next.clone());
                    last = Some(next);
                }
                Ok(out)
            }
            _ if a.is_none() => {
                let mut out = Vec::with_capacity(n);
                let mut last = b.cloned();
                for _ in 0..n {
                    let next = OrderKey::between(None, last.as_ref())?;
                    out.push(next.clone());
                    last = Some(next);
                }
                out.reverse();
                Ok(out)
            }
            _ => {
                let mid = n / 2;
                let c = OrderKey::between(a, b)?;
                let mut out = OrderKey::n_between(a, Some(&c), mid)?;
                out.push(c.clone());
                out.extend(OrderKey::n_between(Some(&c), b, n - mid - 1)?);
                Ok(out)
            }
        }
    }
}

fn digit_value(c: u8) -> Option<usize> {
    DIGITS.iter().position(|&d| d == c)
}

/// Length of the integer part announced by its head character, head included.
fn integer_length(head: u8) -> Option<usize> {
    match head {
        b'a'..=b'z' => Some(usize::from(head - b'a') + 2),
        b'A'..=b'Z' => Some(usize::from(b'Z' - head) + 2),
        _ => None,
    }
}

fn check(s: &str) -> Result<(), String> {
    let bytes = s.as_bytes();
    let Some(&head) = bytes.first() else {
        return Err("is empty".to_owned());
    };
    if let Some(bad) = s.chars().find(|c| !c.is_ascii_alphanumeric()) {
        return Err(format!("{bad:?} is not a base-62 digit"));
    }
    let length = integer_length(head)
        .ok_or_else(|| format!("starts with {:?}, not a letter", char::from(head)))?;
    if bytes.len() < length {
        return Err(format!("integer part needs {length} characters"));
    }
    if s == SMALLEST_INTEGER {
        return Err("is the smallest integer, which is reserved".to_owned());
    }
    if bytes.len() > length && bytes.last() == Some(&ZERO) {
        return Err("fraction ends in 0".to_owned());
    }
    Ok(())
}

/// A fraction strictly between `a` and `b` (`None` = 1). Neither ends in `0`; `a` < `b`.
fn midpoint(a: &[u8], b: Option<&[u8]>) -> Vec<u8> {
    if let Some(b) = b {
        // Keep the common prefix, reading a missing digit of `a` as 0.
        let n = b
            .iter()
            .enumerate()
            .take_while(|&(i, &bd)| a.get(i).copied().unwrap_or(ZERO) == bd)
            .count();
        if n > 0 {
            let rest_a = a.get(n..).unwrap_or(&[]);
            let mut out = b[..n].to_vec();
            out.extend(midpoint(rest_a, Some(&b[n..])));
            return out;
        }
    }
    let digit_a = a.first().map_or(0, |&c| digit_value(c).unwrap_or(0));
    let digit_b = b
        .and_then(|b| b.first())
        .map_or(DIGITS.len(), |&c| digit_value(c).unwrap_or(DIGITS.len()));
    if digit_b - digit_a > 1 {
        // Round half up, as the reference library does, so keys agree with it.
        vec![DIGITS[(digit_a + digit_b).div_ceil(2)]]
    } else if let Some(b) = b.filter(|b| b.len() > 1) {
        vec![b[0]]
    } else {
        let mut out = vec![DIGITS[digit_a]];
        out.extend(midpoint(a.get(1..).unwrap_or(&[]), None));
        out
    }
}

fn increment_integer(x: &[u8]) -> Option<Vec<u8>> {
    let head = x[0];
    let mut digits = x[1..].to_vec();
    let mut carry = true;
    for d in digits.iter_mut().rev() {
        let v = digit_value(*d)? + 1;
        if v == DIGITS.len() {
            *d = ZERO;
        } else {
            *d = DIGITS[v];
            carry = false;
            break;
        }
    }
    if !carry {
        return Some([&[head], &digits[..]].concat());
    }
    match head {
        b'Z' => Some(b"a0".to_vec()),
        b'z' => None,
        _ => {
            let h = head + 1;
            if h > b'a' {
                digits.push(ZERO);
            } else {
                digits.pop();
            }
            Some([&[h], &digits[..]].concat())
        }
    }
}

fn decrement_integer(x: &[u8]) -> Option<Vec<u8>> {
    let head = x[0];
    let mut digits = x[1..].to_vec();
    let mut borrow = true;
    for d in digits.iter_mut().rev() {
        let v = digit_value(*d)?;
        if v == 0 {
            *d = LAST;
        } else {
            *d = DIGITS[v - 1];
            borrow = false;
            break;
        }
    }
    if !borrow {
        return Some([&[head], &digits[..]].concat());
    }
    match head {
        b'a' => Some(vec![b'Z', LAST]),
        b'A' => None,
        _ => {
            let h = head - 1;
            if h < b'Z' {
                digits.push(LAST);
            } else {
                digits.pop();
            }
            Some([&[h], &digits[..]].concat())
        }
    }
}

fn split(key: &str) -> (&[u8], &[u8]) {
    let bytes = key.as_bytes();
    // Keys reaching here passed `check`, so the head is a letter and the length fits.
    let n = integer_length(bytes[0]).unwrap_or(1).min(bytes.len());
    bytes.split_at(n)
}

fn text(bytes: Vec<u8>) -> String {
    // Built only from DIGITS, which are ASCII.
    bytes.into_iter().map(char::from).collect()
}

fn before(b: &str) -> String {
    let (int_b, frac_b) = split(b);
    if int_b == SMALLEST_INTEGER.as_bytes() {
        return text([int_b, &midpoint(&[], Some(frac_b))].concat());
    }
    if !frac_b.is_empty() {
        return text(int_b.to_vec());
    }
    match decrement_integer(int_b) {
        Some(i) if i != SMALLEST_INTEGER.as_bytes() => text(i),
        // Stepping down onto the reserved integer: use a fraction of it instead.
        _ => text([SMALLEST_INTEGER.as_bytes(), &midpoint(&[], None)].concat()),
    }
}

fn after(a: &str) -> String {
    let (int_a, frac_a) = split(a);
    match increment_integer(int_a) {
        Some(i) => text(i),
        None => text([int_a, &midpoint(frac_a, None)].concat()),
    }
}

fn strictly_between(a: &str, b: &str) -> String {
    let (int_a, frac_a) = split(a);
    let (int_b, frac_b) = split(b);
    if int_a == int_b {
        return text([int_a, &midpoint(frac_a, Some(frac_b))].concat());
    }
    match increment_integer(int_a) {
        Some(i) if i.as_slice() < b.as_bytes() => text(i),
        _ => text([int_a, &midpoint(frac_a, None)].concat()),
    }
}

impl fmt::Display for OrderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for OrderKey {
    type Err = SchemaError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OrderKey::parse(s)
    }
}

impl Serialize for OrderKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for OrderKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        OrderKey::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[path = "order_key_tests.rs"]
mod tests;
