//! Guards at a handler's edge: wrappers that refuse every effect a call's
//! resolved annotations did not claim.

#[cfg(feature = "guard-sqlite")]
pub mod sqlite;
