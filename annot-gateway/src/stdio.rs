//! The host on stdin and stdout: one session, one line a message.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::StartError;
use crate::config::Settings;
use crate::gateway::{Gateway, Shared};
use crate::message::{MAX_MESSAGE_SIZE, code, error_response, read_line};

/// Serves one host on stdin and stdout in front of `settings.upstream`,
/// until the host closes stdin; answers every request still in flight
/// before returning.
pub async fn serve_stdio(settings: Settings) -> Result<(), StartError> {
    let shared = Shared::open(settings).await?;
    if let Some(listen) = shared
        .settings
        .approvals
        .as_ref()
        .and_then(|page| page.listen)
    {
        crate::http::serve_page_alone(Arc::clone(&shared), listen).await?;
    }
    let (host, mut to_host) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(bytes) = to_host.recv().await {
            if bytes.is_empty() {
                break;
            }
            if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let gateway = Gateway::start(shared, host);
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(StartError::Signal)?;
    loop {
        let line = tokio::select! {
            line = read_line(&mut stdin, MAX_MESSAGE_SIZE) => line,
            // SIGTERM or Ctrl-C: stop reading, answer what is in flight, stop
            // the upstreams, as at the end of input.
            _ = terminate.recv() => break,
            _ = tokio::signal::ctrl_c() => break,
        };
        match line {
            Ok(Some(Ok(bytes))) => gateway.from_host(&bytes),
            Ok(Some(Err(length))) => gateway.to_host(&error_response(
                &serde_json::Value::Null,
                code::INVALID_REQUEST,
                format!(
                    "a message of {length} bytes is past the gateway's cap of {MAX_MESSAGE_SIZE}"
                ),
            )),
            Ok(None) | Err(_) => break,
        }
    }
    gateway
        .drain(gateway.settings.timeout + Duration::from_secs(1))
        .await;
    let _ = writer.await;
    gateway.close();
    Ok(())
}
