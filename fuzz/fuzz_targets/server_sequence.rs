//! The server entry point on structured sessions: initialize with or without
//! the tool-resolution extension, then resolutions, calls, listings and
//! notifications with generated arguments. Checks the answer to each message
//! (see `annot_fuzz::sequence`). The bytes decode as `cargo test` decodes the
//! committed inputs, through `Session::from_bytes`.

#![no_main]

use annot_fuzz::sequence::{Session, run};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(session) = Session::from_bytes(data) {
        run(&session);
    }
});
