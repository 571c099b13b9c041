//! Requests in flight between the host and the upstreams: a host request
//! forwarded and its cancellation, the gateway's own questions to the host,
//! and the upstream's requests to the host.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::{Forwarding, Gateway, HOST_REQUEST, HostWaiter};

impl Gateway {
    /// Sends a host request upstream and gives back the upstream's answer
    /// under the host's id (or the gateway's error when none came).
    pub(crate) async fn forward(
        &self,
        index: usize,
        id: &Value,
        method: &str,
        params: Value,
    ) -> Value {
        self.begin_forward(index, id, method, params)
            .finish(self)
            .await
    }

    /// Sends a host request upstream now, in the order the host sent it.
    pub(crate) fn begin_forward(
        &self,
        index: usize,
        id: &Value,
        method: &str,
        params: Value,
    ) -> Forwarding {
        let upstream = self.upstream(index);
        let upstream_id = upstream.allocate_id();
        let pending = upstream.send_request(upstream_id, method, params);
        if pending.is_ok() {
            self.in_flight
                .lock()
                .expect("in-flight lock")
                .insert(id.to_string(), (index, upstream_id));
        }
        Forwarding {
            id: id.clone(),
            pending,
        }
    }

    /// Whether the host cancelled its request `id` while it was upstream.
    pub(crate) fn is_cancelled(&self, id: &Value) -> bool {
        self.cancelled
            .lock()
            .expect("cancelled lock")
            .contains(&id.to_string())
    }

    /// Sends the host a request of the gateway's own; the answer goes to the
    /// receiver.
    pub(crate) fn ask_host(
        &self,
        prefix: &str,
        method: &str,
        params: Value,
    ) -> (String, oneshot::Receiver<Value>) {
        let (sender, receiver) = oneshot::channel();
        let id = self.await_host_answer(prefix, HostWaiter::Gateway(sender));
        if let Ok(related) = HOST_REQUEST.try_with(Value::clone) {
            self.related
                .lock()
                .expect("related lock")
                .insert(id.clone(), related);
        }
        self.to_host(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        (id, receiver)
    }

    /// Forgets a request to the host that will not be waited for.
    pub(crate) fn forget_host_request(&self, id: &str) {
        self.waiters.lock().expect("waiters lock").remove(id);
        self.related.lock().expect("related lock").remove(id);
    }

    /// The id of the host request that the gateway's request `id` to the
    /// host (a confirmation) is about, while it waits for its answer.
    pub fn related_request(&self, id: &str) -> Option<Value> {
        self.related.lock().expect("related lock").get(id).cloned()
    }

    /// Handles what the upstream sends that is not a response.
    pub(crate) fn relay_from_upstream(&self, index: usize, mut message: Value) {
        if let Some(upstream_id) = message.get("id").cloned() {
            let waiter = HostWaiter::Upstream(index, upstream_id);
            message["id"] = json!(self.await_host_answer("annot-gateway-upstream", waiter));
        }
        self.to_host(&message);
    }

    /// A new id (`PREFIX-N`) for a request to the host, whose answer goes
    /// to `waiter`.
    fn await_host_answer(&self, prefix: &str, waiter: HostWaiter) -> String {
        let id = format!(
            "{prefix}-{}",
            self.next_host_id.fetch_add(1, Ordering::Relaxed)
        );
        self.waiters
            .lock()
            .expect("waiters lock")
            .insert(id.clone(), waiter);
        id
    }
}
