//! Shared set-up for the benchmarks in `benches/benches/` (fixtures that make logs and items).
