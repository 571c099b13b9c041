//! What a request is owed, decided per session or per request: the protocol
//! version and what it changes (`versions`), the dialects the server offers
//! and the one a resolution gets (`dialects`), and the 2026-07-28 era, whose
//! requests carry their version and capabilities themselves (`era`).

pub(crate) mod dialects;
pub(crate) mod era;
pub(crate) mod versions;
