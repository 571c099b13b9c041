//! Servers started ahead of the observations that need them. Each
//! observation wants a server on a verified clean sandbox; starting one is
//! mostly waiting (an interpreter loading, a launcher resolving a package),
//! so the next ones start on their own sandboxes while the current one is
//! observed. What an observation sees is unchanged: a fresh sandbox seeded
//! from the fixture, checked against the baseline before the server starts,
//! and the state after start-up taken when the observation begins.

use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::Scope;

use tempfile::TempDir;

use crate::session::{Connection, Launch, Offer, Server};
use crate::snapshot::{self, Snapshot};

/// Servers ready beyond the one in use: one waiting in the channel, one
/// more held by the starter while it waits to hand it over.
const WAITING: usize = 1;

/// A running server from a verified clean state.
pub struct Fresh {
    // Field order is drop order: the server stops before its sandbox goes.
    pub server: Server,
    pub connection: Connection,
    /// The state after start-up, which a call is judged from.
    pub before: Snapshot,
    sandbox: TempDir,
}

impl Fresh {
    pub fn sandbox(&self) -> &Path {
        self.sandbox.path()
    }
}

/// A server started, connected, not yet observed.
pub struct Started {
    server: Server,
    connection: Connection,
    sandbox: TempDir,
}

/// Where fresh servers come from.
pub enum Starter<'a> {
    /// Started ahead on a thread.
    Ahead(Receiver<Result<Started, String>>),
    /// Started when asked: an HTTP server binds a fixed port, which two
    /// servers can share only in two namespaces, and a namespace may not be
    /// had.
    OnDemand {
        launch: &'a Launch,
        fixture: &'a Path,
        baseline: &'a Snapshot,
    },
}

impl Starter<'_> {
    /// Starts servers ahead on a thread of `scope`, until the starter is dropped.
    pub fn new<'scope>(
        scope: &'scope Scope<'scope, '_>,
        launch: &'scope Launch,
        fixture: &'scope Path,
        baseline: &'scope Snapshot,
    ) -> Starter<'scope> {
        if launch.url.is_some() {
            return Starter::OnDemand {
                launch,
                fixture,
                baseline,
            };
        }
        let (sender, ready) = sync_channel(WAITING);
        scope.spawn(move || keep_starting(&sender, launch, fixture, baseline));
        Starter::Ahead(ready)
    }

    /// The next server, its state after start-up taken now.
    pub fn fresh(&self) -> Result<Fresh, String> {
        let started = match self {
            Starter::Ahead(ready) => ready
                .recv()
                .map_err(|_| "the server starter stopped".to_owned())??,
            Starter::OnDemand {
                launch,
                fixture,
                baseline,
            } => start(launch, fixture, baseline)?,
        };
        let before = Snapshot::take(started.sandbox.path())?;
        Ok(Fresh {
            server: started.server,
            connection: started.connection,
            before,
            sandbox: started.sandbox,
        })
    }
}

fn keep_starting(
    sender: &SyncSender<Result<Started, String>>,
    launch: &Launch,
    fixture: &Path,
    baseline: &Snapshot,
) {
    loop {
        // A failure is handed over like a server: the observation that
        // takes it reports it, and dropping the starter ends this loop.
        if sender.send(start(launch, fixture, baseline)).is_err() {
            return;
        }
    }
}

/// Seeds a new sandbox, verifies it against the baseline, starts the server
/// in it and connects.
fn start(launch: &Launch, fixture: &Path, baseline: &Snapshot) -> Result<Started, String> {
    let sandbox = tempfile::Builder::new()
        .prefix("annot-audit-")
        .tempdir()
        .map_err(|e| format!("cannot make a sandbox: {e}"))?;
    snapshot::seed(fixture, sandbox.path()).map_err(|e| format!("cannot seed a sandbox: {e}"))?;
    let seeded = Snapshot::take(sandbox.path())?;
    if seeded != *baseline {
        return Err(format!(
            "the sandbox did not reset cleanly: {}",
            baseline.change_to(&seeded).describe()
        ));
    }
    let mut server = Server::start(launch, sandbox.path())?;
    let connection = server.connect(Offer::Extension)?;
    Ok(Started {
        server,
        connection,
        sandbox,
    })
}
