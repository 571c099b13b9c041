//! The third phase: code generation, from the checked model alone. Every
//! generated item lives in `const _: () = { ... };`, every path goes through
//! `<crate>::__private`, and every generated identifier starts with `__`.
//!
//! `tool` writes the `AnnotatedTool` impl of a `#[mcp_tool]` item and
//! `actions` the `AnnotatedActions` impl of an `#[mcp_actions]` enum. Their
//! parts: the `inputSchema` (`input_schema` for fields, `shape_schemas` for
//! each shape, built as `schema_json`), the reader of a request's split
//! members (`from_members`, over `member_slots`), and the rules' code
//! (`crate::rules`).

mod actions;
mod from_members;
mod input_schema;
pub(crate) mod member_slots;
mod schema_json;
mod shape_schemas;
mod tool;

use proc_macro2::TokenStream;
use syn::{Data, DeriveInput, Fields};

use crate::internals::attr::OptionsOf;
pub use actions::actions;
pub use tool::tool;

/// The impl emitted beside errors, when the item's shape allows one.
pub fn fallback(
    of: OptionsOf,
    item: &DeriveInput,
    krate: Option<&syn::Path>,
) -> Option<TokenStream> {
    if !item.generics.params.is_empty() {
        return None;
    }
    match of {
        OptionsOf::Tool => Some(tool::tool_fallback(&item.ident, krate)),
        OptionsOf::Actions => {
            let unit_enum = matches!(&item.data, Data::Enum(data)
                if data.variants.iter().all(|variant| matches!(variant.fields, Fields::Unit)));
            unit_enum.then(|| actions::actions_fallback(&item.ident, &item.attrs, krate))
        }
    }
}
