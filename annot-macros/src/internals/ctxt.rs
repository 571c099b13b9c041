//! Error collection: every problem of one macro call is reported, not only the first.
//! The collector is the rule language's (`annot_rules::Errors`), so its
//! checks report into the same list.

pub use annot_rules::Errors;
