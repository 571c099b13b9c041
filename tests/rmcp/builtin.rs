//! rmcp 3.9's own client against the built-in server (`examples/manage_files`,
//! no rmcp inside) over stdio, in each of its lifecycles: `initialize` at
//! 2025-11-25, and `server/discover` at 2026-07-28 with capabilities on every
//! request; with and without the tool-resolution extension. Every action of
//! `manage_files` is listed, resolved in every dialect the session allows,
//! checked against the tool's resolver and the static bound, and called.

use crate::rmcp_support;
use std::time::Duration;

use rmcp::transport::TokioChildProcess;
use rmcp_support::client::{Client, exercise_server};
use rmcp_support::{Sandbox, example};

/// Generous for a debug build on a loaded machine.
const BOUND: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_against_the_built_in_stdio_server() {
    let binary = example("manage_files");
    for client in Client::ALL {
        let sandbox = Sandbox::new("rmcp-builtin");
        let mut command = tokio::process::Command::new(&binary);
        command.arg(&sandbox.path);
        let transport = TokioChildProcess::new(command).expect("spawn the example");
        let session = async {
            let client = client.connect(transport).await;
            exercise_server(&client, &sandbox.path).await;
            client.cancel().await.expect("close the session");
        };
        tokio::time::timeout(BOUND, session)
            .await
            .unwrap_or_else(|_| panic!("{client:?} against the built-in server finished in time"));
    }
}
