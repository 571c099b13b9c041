//! A server's own network namespace, whatever starts it: a shim that execs
//! the interpreter, `#!/usr/bin/env`, `npx`, `uvx`, `uv run`, or a server
//! that serves from a forked child. The namespace is held by a descriptor,
//! not found through one process's command line, and its counters cover
//! every process in it: the whole tree the launcher starts.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::fd::AsRawFd;
use std::process::ChildStderr;
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

/// What the namespace's setup prints on stderr once it is ready, just before
/// it execs the server: the one signal of readiness (no polling).
const READY: &str = "annot-audit: network namespace ready";

/// The shell that readies a fresh network namespace before running the
/// server: loopback up and a default route, so that a connection out leaves
/// a trace in the counters instead of failing before any packet is counted.
pub const SETUP: &str = "ip link set lo up || exit 97; \
    if ip link add audit0 type dummy 2>/dev/null; then ip link set audit0 up && ip route add default dev audit0; \
    else ip route add default dev lo; fi || exit 97; \
    echo 'annot-audit: network namespace ready' >&2; exec \"$@\"";

/// A network namespace, held open for as long as the audit needs it.
#[derive(Clone, Debug)]
pub struct Namespace(Arc<File>);

impl Namespace {
    /// Waits for the setup's ready line on the child's stderr (`unshare` or
    /// `ip` failing closes it first), then holds the namespace of `pid`.
    /// The rest of stderr (the server's own) is drained and dropped.
    pub fn await_ready(stderr: ChildStderr, pid: u32, wait: Duration) -> Result<Namespace, String> {
        let (sender, ready) = channel();
        std::thread::spawn(move || {
            let mut said = Vec::new();
            let mut lines = BufReader::new(stderr).lines();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if line == READY {
                    let _ = sender.send(Ok(()));
                    // The server's own stderr: read so that it never blocks.
                    for _ in lines {}
                    return;
                }
                said.push(line);
            }
            let _ = sender.send(Err(said.join("; ")));
        });
        match ready.recv_timeout(wait) {
            Ok(Ok(())) => {}
            Ok(Err(said)) if said.is_empty() => return Err("unshare or ip failed".into()),
            Ok(Err(said)) => return Err(format!("unshare or ip failed: {said}")),
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!("not ready within {} s", wait.as_secs()));
            }
            Err(RecvTimeoutError::Disconnected) => return Err("unshare or ip failed".into()),
        }
        let file = File::open(format!("/proc/{pid}/ns/net"))
            .map_err(|error| format!("cannot hold the namespace of {pid}: {error}"))?;
        Ok(Namespace(Arc::new(file)))
    }

    /// Runs `work` on a thread moved into this namespace (`setns(2)` moves
    /// only the calling thread).
    pub fn run<T: Send>(
        &self,
        work: impl FnOnce() -> Result<T, String> + Send,
    ) -> Result<T, String> {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    self.enter()?;
                    work()
                })
                .join()
                .unwrap_or_else(|_| Err("the worker in the namespace failed".to_owned()))
        })
    }

    #[allow(unsafe_code)]
    fn enter(&self) -> Result<(), String> {
        // SAFETY: setns only reads a valid, open descriptor and a flag.
        let status = unsafe { libc::setns(self.0.as_raw_fd(), libc::CLONE_NEWNET) };
        if status == 0 {
            Ok(())
        } else {
            Err(format!(
                "cannot enter the server's network namespace: {}",
                std::io::Error::last_os_error()
            ))
        }
    }

    /// `TCP ActiveOpens + UDP OutDatagrams` of the namespace: every process
    /// in it counts, whichever of them the launcher made the server.
    pub fn counter(&self) -> Option<u64> {
        let text = self
            .run(|| {
                std::fs::read_to_string("/proc/thread-self/net/snmp").map_err(|e| e.to_string())
            })
            .ok()?;
        Some(snmp_field(&text, "Tcp:", "ActiveOpens")? + snmp_field(&text, "Udp:", "OutDatagrams")?)
    }
}

/// One number of `/proc/net/snmp`, whose lines come in pairs: names, values.
pub fn snmp_field(text: &str, prefix: &str, name: &str) -> Option<u64> {
    let mut lines = text.lines().filter(|line| line.starts_with(prefix));
    let names = lines.next()?.split_whitespace();
    let values = lines.next()?.split_whitespace();
    names
        .zip(values)
        .find(|(key, _)| *key == name)
        .and_then(|(_, value)| value.parse().ok())
}

/// Kills the process group `leader` leads: the launcher and everything it
/// started (a child that outlives its parent would keep the pipes open).
#[allow(unsafe_code)]
pub fn kill_group(leader: u32) {
    let Ok(group) = i32::try_from(leader) else {
        return;
    };
    if group > 0 {
        // SAFETY: kill takes two integers; a negative pid names a group.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}
