//! The approvals page: the calls waiting for a person, each with its
//! preview, its resolved hints as badges and what decided them; each
//! upstream's tools; the decision log's latest calls. Served at
//! `/approvals` of `--http`, or of an address of its own for a host on stdio
//! (`http/page.rs`), when `[approvals]` or `--confirm page` turns it on,
//! behind `[auth]`'s issuer (a token with the approver scope signs in).

pub(crate) mod catalog;
mod routes;
mod sessions;
mod views;

pub(crate) use routes::router;
