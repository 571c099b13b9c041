//! From bytes to answered messages and back: the stdio transport, the
//! JSON-RPC envelope, a request's params, the session that dispatches each
//! request ([`Connection`](crate::server::Connection)), and the calls that run
//! beside it.

pub(crate) mod connection;
pub(crate) mod in_flight;
pub(crate) mod jsonrpc;
pub(crate) mod request_params;
pub(crate) mod stdio;
