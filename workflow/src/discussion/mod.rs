//! Where people talk about the catalog, apart from changing it: the number space suggestions
//! and issues share (`threads`), issues (`issues`), the conversation on suggestions, issues and
//! talk pages (`conversation`: comments, reviews, review requests, the timeline), and each
//! person's inbox of what happened where they take part (`inbox`).
//!
//! Suggestions themselves (and merging) stay at the crate's top level: this folder records what
//! people said and were told, and never changes the catalog.

pub(crate) mod conversation;
pub(crate) mod inbox;
pub(crate) mod issues;
pub(crate) mod threads;
