//! The server entry point on structured sessions: initialize with or without
//! the tool-resolution extension, then resolutions, calls, listings and
//! notifications with generated arguments. Checks the answer to each message
//! (see `annot_fuzz::sequence`).

#![no_main]

use annot_fuzz::sequence::{Session, run};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|session: Session| {
    run(&session);
});
