//! Lifting over rmcp's Streamable HTTP server: a tower wrapper that rewrites the
//! JSON-RPC results in its response bodies, plain JSON and server-sent events.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use serde_json::Value;

use super::LIFT_META;
use super::lift::lift_result;

/// Wraps rmcp's `StreamableHttpService` (or any tower service that answers MCP
/// over HTTP) so that results carrying `_meta[`[`LIFT_META`]`]` are lifted in the
/// response bodies, whether the server answers with `application/json` or with
/// an event stream, in stateful sessions and in stateless mode alike.
///
/// Every other response passes through untouched and unbuffered.
///
/// ```no_run
/// # use annot_runtime as annot;
/// # fn build<H: rmcp::ServerHandler + Clone>(server: H) {
/// use std::sync::Arc;
///
/// use annot::rmcp::LiftHttp;
/// use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
/// use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
///
/// let service = LiftHttp::new(StreamableHttpService::new(
///     move || Ok(server.clone()),
///     Arc::new(LocalSessionManager::default()),
///     StreamableHttpServerConfig::default(),
/// ));
/// // Serve `service` with hyper (hyper_util::service::TowerToHyperService) or axum.
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct LiftHttp<S> {
    inner: S,
}

impl<S> LiftHttp<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        LiftHttp { inner }
    }

    /// The wrapped service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, RequestBody, ResponseBody> tower_service::Service<Request<RequestBody>> for LiftHttp<S>
where
    S: tower_service::Service<Request<RequestBody>, Response = Response<ResponseBody>>,
    S::Future: Send + 'static,
    ResponseBody: Body<Data = Bytes> + Unpin,
{
    type Response = Response<LiftBody<ResponseBody>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let response = self.inner.call(request);
        Box::pin(async move { response.await.map(lift_response) })
    }
}

fn lift_response<B>(mut response: Response<B>) -> Response<LiftBody<B>> {
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mode = if content_type.starts_with("application/json") {
        Mode::Json
    } else if content_type.starts_with("text/event-stream") {
        Mode::EventStream
    } else {
        Mode::Passthrough
    };
    if mode != Mode::Passthrough {
        // The lifted body has another length.
        response.headers_mut().remove(CONTENT_LENGTH);
    }
    response.map(|inner| LiftBody {
        inner,
        mode,
        buffer: BytesMut::new(),
        queued: VecDeque::new(),
        inner_done: false,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Passthrough,
    /// One JSON-RPC message (or a batch): buffered whole, lifted at the end.
    Json,
    /// Server-sent events: lifted line by line as complete lines arrive.
    EventStream,
}

/// A response body of [`LiftHttp`]: the inner body with its JSON-RPC results
/// lifted.
#[derive(Debug)]
pub struct LiftBody<B> {
    inner: B,
    mode: Mode,
    /// Bytes not yet lifted: the whole JSON body, or an incomplete SSE line.
    buffer: BytesMut,
    /// Frames ready to go out, in order.
    queued: VecDeque<Frame<Bytes>>,
    inner_done: bool,
}

impl<B> Body for LiftBody<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = &mut *self;
        if this.mode == Mode::Passthrough {
            return Pin::new(&mut this.inner).poll_frame(cx);
        }
        loop {
            if let Some(frame) = this.queued.pop_front() {
                return Poll::Ready(Some(Ok(frame)));
            }
            if this.inner_done {
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(error))),
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.accept(&data),
                    Err(trailers) => {
                        this.flush();
                        this.queued.push_back(trailers);
                    }
                },
                Poll::Ready(None) => {
                    this.inner_done = true;
                    this.flush();
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self.mode {
            Mode::Passthrough => self.inner.is_end_stream(),
            _ => self.inner_done && self.queued.is_empty(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self.mode {
            Mode::Passthrough => self.inner.size_hint(),
            _ => SizeHint::default(),
        }
    }
}

impl<B> LiftBody<B> {
    fn accept(&mut self, data: &[u8]) {
        self.buffer.extend_from_slice(data);
        if self.mode == Mode::EventStream
            && let Some(end) = self.buffer.iter().rposition(|&byte| byte == b'\n')
        {
            let complete = self.buffer.split_to(end + 1);
            self.queued
                .push_back(Frame::data(lift_event_lines(&complete)));
        }
    }

    /// Emits whatever is buffered, lifted.
    fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let rest = self.buffer.split();
        let lifted = match self.mode {
            Mode::Json => lift_json_body(&rest),
            _ => lift_event_lines(&rest),
        };
        self.queued.push_back(Frame::data(lifted));
    }
}

/// A JSON body: one message or a batch.
fn lift_json_body(body: &[u8]) -> Bytes {
    if !contains(body, LIFT_META.as_bytes()) {
        return Bytes::copy_from_slice(body);
    }
    let Ok(mut message) = serde_json::from_slice::<Value>(body) else {
        return Bytes::copy_from_slice(body);
    };
    let lifted = match &mut message {
        Value::Array(batch) => batch
            .iter_mut()
            .fold(false, |lifted, message| lift_message(message) | lifted),
        message => lift_message(message),
    };
    match lifted.then(|| serde_json::to_vec(&message)) {
        Some(Ok(encoded)) => Bytes::from(encoded),
        _ => Bytes::copy_from_slice(body),
    }
}

fn lift_message(message: &mut Value) -> bool {
    message.get_mut("result").is_some_and(lift_result)
}

/// Complete SSE lines (each ending in `\n`, possibly `\r\n`); `data:` lines that
/// carry a JSON-RPC result with the key are lifted, every other byte is kept.
fn lift_event_lines(lines: &[u8]) -> Bytes {
    if !contains(lines, LIFT_META.as_bytes()) {
        return Bytes::copy_from_slice(lines);
    }
    let mut out = Vec::with_capacity(lines.len());
    for line in lines.split_inclusive(|&byte| byte == b'\n') {
        let content_end = line
            .iter()
            .rposition(|&byte| byte != b'\n' && byte != b'\r')
            .map_or(0, |last| last + 1);
        let (content, ending) = line.split_at(content_end);
        match lift_data_line(content) {
            Some(lifted) => {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(&lifted);
                out.extend_from_slice(ending);
            }
            None => out.extend_from_slice(line),
        }
    }
    Bytes::from(out)
}

fn lift_data_line(line: &[u8]) -> Option<Vec<u8>> {
    let payload = line.strip_prefix(b"data:")?;
    let payload = payload.strip_prefix(b" ").unwrap_or(payload);
    if !contains(payload, LIFT_META.as_bytes()) {
        return None;
    }
    let mut message: Value = serde_json::from_slice(payload).ok()?;
    if !lift_message(&mut message) {
        return None;
    }
    serde_json::to_vec(&message).ok()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn carrying_response(id: u64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{
            "name": "t",
            "inputSchema": {"type": "object"},
            "_meta": {LIFT_META: {"resolve": true}}
        }]}})
    }

    #[test]
    fn event_lines_are_lifted_and_other_bytes_kept() {
        let data = serde_json::to_string(&carrying_response(1)).unwrap();
        let stream = format!("id: 0\r\ndata: {data}\r\n\r\n: keep-alive\ndata:\n\n");
        let lifted = lift_event_lines(stream.as_bytes());
        let text = std::str::from_utf8(&lifted).unwrap();
        let mut lines = text.split("\r\n");
        assert_eq!(lines.next(), Some("id: 0"));
        let message: Value =
            serde_json::from_str(lines.next().unwrap().strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(message["result"]["tools"][0]["resolve"], json!(true));
        assert!(text.ends_with("\r\n\r\n: keep-alive\ndata:\n\n"), "{text}");
    }

    #[test]
    fn json_batches_are_lifted_and_other_json_is_byte_identical() {
        let batch = serde_json::to_vec(
            &json!([carrying_response(1), {"jsonrpc": "2.0", "id": 2, "result": {}}]),
        )
        .unwrap();
        let lifted: Value = serde_json::from_slice(&lift_json_body(&batch)).unwrap();
        assert_eq!(lifted[0]["result"]["tools"][0]["resolve"], json!(true));
        let plain = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        assert_eq!(&lift_json_body(plain)[..], &plain[..]);
    }

    struct Chunks(VecDeque<Bytes>);

    impl Body for Chunks {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.0.pop_front().map(|chunk| Ok(Frame::data(chunk))))
        }
    }

    fn collect<B: Body<Data = Bytes> + Unpin>(body: &mut B) -> Vec<u8>
    where
        B::Error: std::fmt::Debug,
    {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut out = Vec::new();
        while let Poll::Ready(Some(frame)) = Pin::new(&mut *body).poll_frame(&mut cx) {
            out.extend_from_slice(&frame.unwrap().into_data().unwrap());
        }
        out
    }

    #[test]
    fn an_event_split_across_chunks_is_lifted_whole() {
        let data = serde_json::to_string(&carrying_response(7)).unwrap();
        let stream = format!("data: {data}\n\n");
        let (a, b) = stream.as_bytes().split_at(stream.len() / 2);
        let response = Response::builder()
            .header(CONTENT_TYPE, "text/event-stream")
            .header(CONTENT_LENGTH, stream.len())
            .body(Chunks(VecDeque::from([
                Bytes::copy_from_slice(a),
                Bytes::copy_from_slice(b),
            ])))
            .unwrap();
        let lifted = lift_response(response);
        assert!(lifted.headers().get(CONTENT_LENGTH).is_none());
        let mut body = lifted.into_body();
        let text = String::from_utf8(collect(&mut body)).unwrap();
        assert!(body.is_end_stream());
        let message: Value =
            serde_json::from_str(text.strip_prefix("data: ").unwrap().trim_end()).unwrap();
        assert_eq!(message["result"]["tools"][0]["resolve"], json!(true));
    }

    #[test]
    fn other_content_types_pass_through() {
        let response = Response::builder()
            .header(CONTENT_TYPE, "text/plain")
            .body(Chunks(VecDeque::from([Bytes::from_static(
                b"dev.annot/lift",
            )])))
            .unwrap();
        assert_eq!(
            collect(&mut lift_response(response).into_body()),
            b"dev.annot/lift"
        );
    }
}
