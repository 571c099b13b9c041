//! Shapes of `#[mcp_tool]` and `#[mcp_actions]` a user writes, compiled as part
//! of this binary (a mistake in the macro fails the build) and run: their
//! compile errors are the trybuild suite's, in `ui-tests/`.

// The tools' fields are what a handler reads; most of these tests read only
// their annotations. `full_tool` reads them all and denies every warning.
#![allow(dead_code)]

mod derive_deserialize;
mod full_tool;
mod read_only_with_write_defaults;
mod rules;
mod soundness;
