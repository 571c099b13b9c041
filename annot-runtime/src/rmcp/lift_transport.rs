//! A transport wrapper that lifts outgoing results.

use std::borrow::Cow;
use std::future::Future;

use ::rmcp::RoleServer;
use ::rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use ::rmcp::transport::{IntoTransport, Transport};

use super::lift::lift_server_message;

/// An rmcp server transport whose outgoing results are lifted by
/// [`lift_server_message`]: the SEP-1984 hints, the tool markers and the
/// capabilities rmcp's types cannot hold reach the wire where the protocol puts
/// them. Built by [`lifted`].
#[derive(Debug)]
pub struct Lifted<T> {
    inner: T,
}

/// Wraps any rmcp server transport (`rmcp::transport::stdio()`, a TCP stream, an
/// `(AsyncRead, AsyncWrite)` pair, a [`Transport`]) so that what
/// [`Annotated`](super::Annotated) carries in `_meta` is lifted on the way out.
///
/// ```no_run
/// # use annot_runtime as annot;
/// use rmcp::transport::IntoTransport;
/// use rmcp::{RoleServer, ServerHandler, ServiceExt};
///
/// // `transport` is `rmcp::transport::stdio()` with rmcp's `transport-io` feature.
/// async fn run<E, A>(
///     server: impl ServerHandler,
///     transport: impl IntoTransport<RoleServer, E, A>,
/// ) -> Result<(), Box<dyn std::error::Error>>
/// where
///     E: std::error::Error + Send + Sync + 'static,
/// {
///     let running = server.serve(annot::rmcp::lifted(transport)).await?;
///     running.waiting().await?;
///     Ok(())
/// }
/// ```
pub fn lifted<T, E, A>(transport: T) -> Lifted<impl Transport<RoleServer, Error = E> + 'static>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Lifted {
        inner: transport.into_transport(),
    }
}

impl<T> Transport<RoleServer> for Lifted<T>
where
    T: Transport<RoleServer>,
{
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(lift_server_message(item))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
