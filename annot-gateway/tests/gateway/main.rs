//! `annot-gateway` end to end: the real binary between a scripted host and
//! real upstream servers (annot's `manage_files`, and `plain_server`, a
//! server written without annot that can misbehave on demand).

mod approvals;
mod confirmations;
mod eras;
mod forwarding;
mod host_resolution;
mod hostile;
mod http;
mod http_scaleout;
mod http_upstream;
mod log;
mod oauth;
mod pins;
mod resolving;
mod rules;
mod shared_store;
mod store_api;
mod store_down;
mod stores;
mod support;
mod tokens;
mod upstreams;
