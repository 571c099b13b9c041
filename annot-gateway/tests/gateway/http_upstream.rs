//! A Streamable HTTP upstream: annot's `rmcp_server --http`, reached by URL.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;

use crate::support::{Host, example, exported, refused_at_start, text};

/// `rmcp_server --http` on a free port over `root`; its process and URL.
fn rmcp_server(root: &std::path::Path) -> (std::process::Child, String) {
    let binary = example("rmcp_server");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let mut child = Command::new(binary)
        .args(["--http", &format!("127.0.0.1:{port}"), "--root"])
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Its first line on stdout is the endpoint, once it listens.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line.trim().to_owned())
}

#[test]
fn a_streamable_http_upstream_resolves_and_is_decided_per_call() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    let (mut server, url) = rmcp_server(&root);
    let config = directory.path().join("gateway.toml");
    std::fs::write(&config, format!("[upstream]\nurl = \"{url}\"\n")).unwrap();
    let log = directory.path().join("log.sqlite3");
    let mut host = Host::start(&[
        "--config",
        config.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--profile",
        "read-only",
        "--confirm",
        "host",
    ]);
    host.initialize(json!({}));
    let names: Vec<String> = host.tools().into_iter().map(|(name, _)| name).collect();
    assert!(names.contains(&"manage_files".to_owned()), "{names:?}");
    let read = host.call(
        "manage_files",
        json!({"action": "read", "path": "notes.txt"}),
    );
    assert_eq!(text(&read), "hello\n", "{read}");
    let delete = host.call(
        "manage_files",
        json!({"action": "delete", "path": "notes.txt"}),
    );
    assert_eq!(delete["isError"], json!(true), "{delete}");
    assert!(root.join("notes.txt").exists());
    host.finish();
    server.kill().unwrap();
    server.wait().unwrap();
    let calls = exported(&log);
    assert!(
        calls[0]["source"].as_str().unwrap().contains("resolved by"),
        "{}",
        calls[0]
    );
}

/// A certificate authority the test makes, and a certificate it signs for
/// `127.0.0.1`: the authority's PEM, and the server's chain and key.
fn certificates() -> (
    String,
    rustls_pki_types::CertificateDer<'static>,
    rustls_pki_types::PrivateKeyDer<'static>,
) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let authority_key = KeyPair::generate().unwrap();
    let mut authority = CertificateParams::new(Vec::<String>::new()).unwrap();
    authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let authority_pem = authority.self_signed(&authority_key).unwrap().pem();
    let server_key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&server_key, &Issuer::new(authority, authority_key))
        .unwrap();
    let key = rustls_pki_types::PrivateKeyDer::try_from(server_key.serialize_der()).unwrap();
    (authority_pem, server.der().clone(), key)
}

/// A TLS front on a free port of 127.0.0.1 for the plain HTTP server at
/// `backend`: it ends TLS with `chain` and `key` and passes the bytes on.
/// Its port.
fn tls_front(
    backend: std::net::SocketAddr,
    chain: rustls_pki_types::CertificateDer<'static>,
    key: rustls_pki_types::PrivateKeyDer<'static>,
) -> u16 {
    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
        tokio_rustls::rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![chain], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((client, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut client) = acceptor.accept(client).await else {
                        return;
                    };
                    if let Ok(mut server) = tokio::net::TcpStream::connect(backend).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
    });
    port
}

/// An `https://` upstream behind a certificate authority of its own: trusted
/// through `ca_file`, and refused without it (the system's roots do not know
/// it), before any call reaches it.
#[test]
fn an_https_upstream_is_verified_against_the_system_and_its_ca_file() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    let (mut server, url) = rmcp_server(&root);
    let backend: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (authority, chain, key) = certificates();
    let port = tls_front(backend, chain, key);
    let authority_file = directory.path().join("authority.pem");
    std::fs::write(&authority_file, authority).unwrap();
    let https = format!("https://127.0.0.1:{port}/mcp");

    let start = |config: String| {
        let path = directory.path().join("gateway.toml");
        std::fs::write(&path, config).unwrap();
        let log = directory.path().join("log.sqlite3");
        Host::start(&[
            "--config",
            path.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--confirm",
            "host",
        ])
    };
    let mut host = start(format!(
        "[upstream]\nurl = \"{https}\"\nca_file = \"{}\"\n",
        authority_file.display()
    ));
    host.initialize(json!({}));
    let read = host.call(
        "manage_files",
        json!({"action": "read", "path": "notes.txt"}),
    );
    assert_eq!(text(&read), "hello\n", "{read}");
    host.finish();

    // The same upstream without its authority: the gateway cannot open it.
    let mut host = start(format!("[upstream]\nurl = \"{https}\"\n"));
    let answer = host.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "tls-test", "version": "1"}}),
    );
    assert!(answer.get("error").is_some(), "{answer}");
    host.finish();
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn a_url_that_is_not_http_or_a_bad_ca_file_is_refused_at_start() {
    let (code, stderr) = refused_at_start("[upstream]\nurl = \"ftp://example.com/mcp\"\n");
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("not an http:// or https:// URL"),
        "{stderr}"
    );
    let (code, stderr) = refused_at_start(
        "[upstream]\nurl = \"https://example.com/mcp\"\nca_file = \"Cargo.toml\"\n",
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no certificate in it") || stderr.contains("not PEM"),
        "{stderr}"
    );
    let (code, stderr) = refused_at_start(
        "[upstream]\nurl = \"https://example.com/mcp\"\nca_file = \"no-such-file.pem\"\n",
    );
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no-such-file.pem"), "{stderr}");
}
