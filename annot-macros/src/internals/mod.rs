//! The first phase: the item and its attributes read into one typed model
//! (`ast`), with every problem found on the way recorded in one list
//! (`ctxt`) rather than stopping at the first.
//!
//! `attr` parses the macros' own attributes, `serde_attr` the `#[serde]`
//! keys the macro honours, `meta` the value after any key; `hints` is the
//! ten hints as written, `result_claims` the `results(...)` claims, `types`
//! the classes of field types every later step reads, `case` serde's
//! renaming, and `suggest` the "did you mean" of unknown keys. Rules are read
//! by `crate::rules`.

pub mod ast;
pub mod attr;
pub mod case;
pub mod ctxt;
pub mod hints;
pub mod meta;
pub mod result_claims;
pub mod serde_attr;
pub mod suggest;
pub mod types;
