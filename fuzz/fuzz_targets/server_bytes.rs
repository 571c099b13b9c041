//! The server entry point on arbitrary bytes: each line of the input is one
//! message to the same connection. Every answer must be valid JSON-RPC that
//! echoes a readable id, only notifications and responses may go unanswered,
//! and the connection must still answer a ping at the end.

#![no_main]

use annot_fuzz::{check_response, may_go_unanswered, readable_id, server};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut connection = server().connect();
    for message in data.split(|byte| *byte == b'\n') {
        match connection.handle(message) {
            Some(response) => {
                let parsed = serde_json::from_slice::<Value>(message).ok();
                check_response(parsed.as_ref().and_then(readable_id), &response);
            }
            None => assert!(
                may_go_unanswered(message),
                "no answer to {}",
                String::from_utf8_lossy(message)
            ),
        }
    }
    let ping = connection.handle(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    assert_eq!(
        ping.as_deref(),
        Some(&br#"{"jsonrpc":"2.0","id":"last","result":{}}"#[..])
    );
});
