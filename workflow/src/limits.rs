//! Caps on input that multiplies work: how deep item data may nest, how many items one
//! suggestion may hold. Each figure is public so the API and the docs quote the same number.

use catalog_schemas::nesting::depth;
use serde_json::Value;

use crate::error::{Limit, Result, Wording};
use catalog_identity::Principal;

/// Most items one suggestion may hold. Every check, the review view, approval and the one
/// commit it becomes cost in proportion to it. Past it, putting one more item is `400`.
pub const MAX_SUGGESTION_ITEMS: usize = 5_000;
/// Most items one suggestion may hold when made with a `bot:` token (imports).
pub const MAX_BOT_SUGGESTION_ITEMS: usize = 50_000;

/// How many items a suggestion made by `principal` may hold.
pub(crate) fn max_items(principal: &Principal) -> usize {
    if principal.is_bot() {
        MAX_BOT_SUGGESTION_ITEMS
    } else {
        MAX_SUGGESTION_ITEMS
    }
}

/// Refuses a suggestion of `count` items when `principal` may make one of at most fewer.
pub(crate) fn check_item_count(principal: &Principal, count: usize) -> Result<()> {
    let max = max_items(principal);
    if count > max {
        let wording = Wording::SuggestionItems;
        return Err(Limit::new("items", 0..=max, count, wording).into());
    }
    Ok(())
}

/// Most levels of arrays and objects item `data` may nest (the data object itself is level 1).
/// A commit wraps data three levels deeper (commit, `changes`, change), and every reader of the
/// log decodes commits with serde_json's recursion limit of 128: data past that could be merged
/// but never read back. 32 leaves room for every real shape (a body's segments nest a few
/// levels) and keeps far from the reader's limit.
pub const MAX_DATA_DEPTH: usize = 32;

/// Refuses item data nested deeper than [`MAX_DATA_DEPTH`].
pub(crate) fn check_data_depth(data: &Value) -> Result<()> {
    let got = depth(data, MAX_DATA_DEPTH);
    if got > MAX_DATA_DEPTH {
        return Err(Limit::new("data", 0..=MAX_DATA_DEPTH, got, Wording::Nesting).into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::Error;

    fn nested(levels: usize) -> Value {
        let mut value = json!({});
        for n in 1..levels {
            value = if n % 2 == 0 {
                json!({ "a": value })
            } else {
                json!([1, value])
            };
        }
        value
    }

    #[test]
    fn data_at_the_limit_passes_and_one_past_it_is_refused() {
        assert!(check_data_depth(&nested(MAX_DATA_DEPTH)).is_ok());
        let err = check_data_depth(&nested(MAX_DATA_DEPTH + 1)).unwrap_err();
        assert!(matches!(err, Error::Limit(_)));
        assert!(err.to_string().contains("32 levels"), "{err}");
    }
}
