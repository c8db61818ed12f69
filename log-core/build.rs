//! Intentionally empty: it makes `[build-dependencies]` count, see the note in Cargo.toml.
fn main() {}
