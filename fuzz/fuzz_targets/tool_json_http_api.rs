//! The JSON entry point of the `http_api` example tool.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    annot_fuzz::check_tool_json::<annot_fuzz::http_api::HttpApi>(data);
});
