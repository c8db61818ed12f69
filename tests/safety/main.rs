//! Hostile but ordinary input, end to end against a real `catalog serve`: item data nested
//! past the cap (and a merge at the cap that the log, a restart, `rebuild` and `verify` all
//! read back), suggestions and organize plans past their item caps, mentions and references
//! past their caps, drafts that nobody but their author and stewards may see, and the
//! per-account quotas.
//!
//! Layout:
//! - `main.rs` — the shared demo server and its people.
//! - `nesting.rs` — how deep item data may nest (a server of its own: it is restarted).
//! - `drafts.rs` — drafts answer 404 to everyone but their author and stewards.
//! - `sizes.rs` — items per suggestion, items per organize plan, the bounded review view.
//! - `mentions.rs` — mentions and references per comment.
//! - `quotas.rs` — open drafts, items in drafts, issues and comments a day.

#[path = "../common/mod.rs"]
mod common;
mod drafts;
mod mentions;
mod nesting;
mod quotas;
mod sizes;

use std::sync::OnceLock;

use common::Shared;
use common::http::Api;
use serde_json::{Value, json};

pub(crate) fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(
                extra,
                &[
                    "author",
                    "other",
                    "mentioned",
                    "drafter",
                    "issuer",
                    "talker",
                ],
            );
            // A token whose name starts with `bot:`: a bot's suggestions may hold more items.
            let bot = common::unique("bot");
            dir.add_account(&bot, false, false, None);
            extra.insert("bot".into(), dir.add_bot_token(&bot));
            extra.insert("bot-handle".into(), bot);
        })
    })
}

pub(crate) fn person(role: &str) -> Api {
    s().token(role)
}

/// A fresh topic's data: topics need only a name and a slug.
pub(crate) fn topic(slug: &str) -> Value {
    json!({ "name": { "he": "נושא", "en": slug }, "slug": slug })
}

/// `{"a": {"a": … }}`: an object `levels` deep (the outer one counts as the first).
pub(crate) fn nested(levels: usize) -> Value {
    let mut value = json!({ "leaf": true });
    for _ in 1..levels {
        value = json!({ "a": value });
    }
    value
}
