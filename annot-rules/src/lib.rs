//! The rule language of annot, `when(<predicate>) => (<hints>)`: its syntax
//! tree, its parser and its checks, in one place for both of its front-ends.
//!
//! - The `#[mcp_tool]` macro (`annot-macros`) reads rules from attributes,
//!   checks them against the fields' Rust types and generates the constant
//!   tables the runtime evaluates. Its errors carry the compiler's spans.
//! - Rules written as text, such as a line of a configuration file, are read
//!   by the `text` module (feature `text`), checked against fields
//!   described by the tool's JSON Schema, and lowered to the same tables by
//!   `annot-runtime` (its `rule-text` feature). Their errors carry a line, a
//!   column and the offending snippet of the text.
//!
//! Both read the same tokens with the same [`parse`] functions, type them
//! with the same [`check`] and collect the same [`patterns`], so a rule
//! means the same and is refused with the same message wherever it is
//! written.
//!
//! # Why a crate of its own
//!
//! The language cannot live in the macro crate, which only a compiler can
//! load, nor in `annot-runtime`, whose default build must not carry `syn`
//! and which the macro does not depend on. `annot-model` is a `no_std`
//! lattice with no dependency; the parser needs `syn`. So the language sits
//! between them: the macro depends on it always, the runtime only behind
//! its `rule-text` feature. Text is lexed by `proc_macro2`, which works
//! outside a procedural macro; its `span-locations` feature (turned on by
//! this crate's `text` feature, never in the macro's build, which has its
//! own copy of the crate) gives each token its line and column.

pub mod check;
pub mod errors;
pub mod hints;
pub mod kind;
pub mod limits;
pub mod meta;
pub mod parse;
pub mod patterns;
pub mod suggest;
pub mod syntax;
pub mod template;
#[cfg(feature = "text")]
pub mod text;

pub use errors::Errors;
pub use kind::{Base, Kind};
pub use syntax::{
    AuthSpec, Comparison, FieldRef, Haystack, Literal, Predicate, SQL_CLASSES, SQL_DIALECTS,
    SqlTest, Test,
};
