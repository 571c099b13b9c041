//! "Did you mean ...?" for unknown attribute keys: the rule language's, so a
//! rule and an attribute suggest alike.

pub use annot_rules::suggest::did_you_mean;
