//! rmcp's own client against `examples/rmcp_server.rs` over both of rmcp's
//! transports: the example as a child process on stdio, and its Streamable HTTP
//! endpoint on loopback. Every action of `manage_files` is resolved in every
//! dialect and checked against the tool's resolver and the static bound; every
//! action is called. Each test is bounded and kills the server it started.

use crate::rmcp_support;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp_support::client::{Client, exercise};
use rmcp_support::{Sandbox, example_binary};

/// Generous for a debug build on a loaded machine; a hang fails instead of
/// blocking the suite.
const BOUND: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_child_process() {
    let binary = example_binary();
    for client in Client::ALL {
        let sandbox = Sandbox::new("rmcp-stdio");
        let mut command = tokio::process::Command::new(&binary);
        command.arg("--stdio").arg("--root").arg(&sandbox.path);
        let transport = TokioChildProcess::new(command).expect("spawn the example");
        let session = async {
            let client = client.connect(transport).await;
            exercise(&client, &sandbox.path).await;
            client.cancel().await.expect("close the session");
        };
        tokio::time::timeout(BOUND, session)
            .await
            .unwrap_or_else(|_| panic!("{client:?} over stdio finished in time"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_on_loopback() {
    let sandbox = Sandbox::new("rmcp-http");
    let mut server = std::process::Command::new(example_binary())
        .args(["--http", "127.0.0.1:0", "--root"])
        .arg(&sandbox.path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the example");
    let stdout = server.stdout.take().expect("stdout");
    // Killed however the test ends.
    let _guard = KillOnDrop(&mut server);
    let url = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).map(|_| line)
    });
    let url = tokio::time::timeout(BOUND, url)
        .await
        .expect("the server printed its URL in time")
        .expect("join")
        .expect("read the URL");
    let url = url.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    for client in Client::ALL {
        let session = async {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            let client = client.connect(transport).await;
            exercise(&client, &sandbox.path).await;
            client.cancel().await.expect("close the session");
        };
        tokio::time::timeout(BOUND, session)
            .await
            .unwrap_or_else(|_| panic!("{client:?} over HTTP finished in time"));
    }
}

struct KillOnDrop<'a>(&'a mut std::process::Child);

impl Drop for KillOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
