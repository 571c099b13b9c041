//! Nothing but a home for `tests/ui.rs`: see `Cargo.toml`.
