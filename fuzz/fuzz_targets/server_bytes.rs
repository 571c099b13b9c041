//! The server entry point on arbitrary bytes: each line of the input is one
//! message to the same connection (see `annot_fuzz::check_server_bytes`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    annot_fuzz::check_server_bytes(data);
});
