//! The JSON entry point of the `sql` example tool.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    annot_fuzz::check_tool_json::<annot_fuzz::sql::Sql>(data);
});
