//! A tiny HTTP/1.1 server on 127.0.0.1 for the HTTP guard's tests: it logs
//! every request it receives (so a test sees that a refused one was never
//! sent) and answers by path.
//!
//! - `/redirect?status=N&to=URL` answers `N` with `Location: URL`;
//! - `/loop` answers `302` with `Location: /loop`;
//! - anything else answers `200` with `METHOD PATH BODY` as its body.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

/// A running server: its address and the requests it has received, each as
/// `METHOD PATH BODY`.
pub struct HttpServer {
    pub address: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
}

impl HttpServer {
    /// Starts a server on a free port of 127.0.0.1; it runs until the test
    /// process ends.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let address = listener.local_addr().expect("an address");
        let log = Arc::new(Mutex::new(Vec::new()));
        let served = Arc::clone(&log);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&served);
                thread::spawn(move || {
                    let _ = answer(stream, &log);
                });
            }
        });
        HttpServer { address, log }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// `127.0.0.1:PORT`.
    pub fn host(&self) -> String {
        self.address.to_string()
    }

    /// The requests received so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

fn answer(stream: TcpStream, log: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default().to_owned();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    log.lock()
        .unwrap()
        .push(format!("{method} {path} {body}").trim_end().to_owned());
    let (status, location, text) = if path == "/loop" {
        ("302".to_owned(), Some("/loop".to_owned()), String::new())
    } else if path == "/redirect" {
        let parameter = |name: &str| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
                .unwrap_or_default()
                .to_owned()
        };
        (parameter("status"), Some(parameter("to")), String::new())
    } else {
        (
            "200".to_owned(),
            None,
            format!("{method} {path} {body}").trim_end().to_owned(),
        )
    };
    let mut stream = stream;
    let location = location.map_or_else(String::new, |to| format!("Location: {to}\r\n"));
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n{location}\r\n{text}",
        text.len()
    )?;
    stream.flush()
}
