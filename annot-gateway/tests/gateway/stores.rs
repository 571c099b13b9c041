//! The stores a test runs on: a SQLite file in a temporary directory, or a
//! fresh database on a throwaway PostgreSQL server that this test binary
//! starts once (Debian's binaries, on a unix socket in a temporary
//! directory, stopped when the binary exits).
//!
//! Without PostgreSQL installed the PostgreSQL variants say so and pass,
//! unless `ANNOT_REQUIRE_POSTGRES=1` (CI sets it after installing it), which
//! makes them fail instead.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where one test's store is.
pub struct TestStore {
    /// What `--store` is given: a file's path or a `postgresql://` URL.
    pub url: String,
    /// Holds the SQLite file's directory while the test runs.
    _directory: Option<tempfile::TempDir>,
    /// The PostgreSQL server and the database's name.
    postgres: Option<(&'static Server, String)>,
}

impl TestStore {
    /// A SQLite file of its own.
    pub fn sqlite() -> TestStore {
        let directory = tempfile::tempdir().unwrap();
        let url = directory.path().join("store.sqlite3");
        TestStore {
            url: url.to_str().unwrap().to_owned(),
            _directory: Some(directory),
            postgres: None,
        }
    }

    /// A fresh database on the test binary's PostgreSQL server; `None`
    /// (with a note) when PostgreSQL is not installed and not required.
    pub fn postgres() -> Option<TestStore> {
        let server = SERVER.get_or_init(Server::start).as_ref()?;
        let name = format!(
            "annot_test_{}",
            NEXT_DATABASE.fetch_add(1, Ordering::Relaxed)
        );
        server.psql(&format!("CREATE DATABASE {name}"));
        Some(TestStore {
            url: server.url(&name),
            _directory: None,
            postgres: Some((server, name)),
        })
    }

    /// The PostgreSQL database's name.
    pub fn database(&self) -> &str {
        &self.postgres.as_ref().expect("a PostgreSQL store").1
    }

    /// Runs `sql` on the PostgreSQL server as its superuser (to take the
    /// database away from the gateway and give it back).
    pub fn admin(&self, sql: &str) {
        self.postgres
            .as_ref()
            .expect("a PostgreSQL store")
            .0
            .psql(sql);
    }
}

/// Runs each named test function (`fn(&TestStore)`) on SQLite and on
/// PostgreSQL, as `sqlite::NAME` and `postgres::NAME`.
macro_rules! on_each_store {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $test() {
                    super::$test(&crate::stores::TestStore::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $test() {
                    if let Some(store) = crate::stores::TestStore::postgres() {
                        super::$test(&store);
                    }
                }
            )*
        }
    };
}
pub(crate) use on_each_store;

static SERVER: OnceLock<Option<Server>> = OnceLock::new();
static NEXT_DATABASE: AtomicUsize = AtomicUsize::new(1);

/// The port only names the socket file in the server's own directory.
const PORT: u16 = 5432;

/// How long the server may take to start.
const STARTUP_PATIENCE: Duration = Duration::from_secs(60);

pub struct Server {
    bin: PathBuf,
    socket_directory: PathBuf,
    /// The server's keeper reads its stdin: it stops the server when the
    /// pipe closes, which it does when this test binary exits, however it
    /// exits (a static is never dropped, so it is never waited for here).
    _keeper: Mutex<Child>,
}

/// Debian's PostgreSQL binaries (`/usr/lib/postgresql/VERSION/bin`, the
/// newest), or those of `pg_config --bindir`.
fn postgres_bin() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| bin.join("initdb").exists())
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let output = Command::new("pg_config").arg("--bindir").output().ok()?;
    let bin = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    bin.join("initdb").exists().then_some(bin)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// `program` as the user the server runs as: `postgres` when this test runs
/// as root (PostgreSQL refuses to run as root), else this user.
fn as_server_user(program: &Path, root: bool) -> Command {
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

impl Server {
    fn start() -> Option<Server> {
        let required = std::env::var("ANNOT_REQUIRE_POSTGRES").is_ok_and(|value| value == "1");
        let Some(bin) = postgres_bin() else {
            assert!(
                !required,
                "ANNOT_REQUIRE_POSTGRES=1 but no PostgreSQL server binaries were found \
                 (apt-get install postgresql)"
            );
            eprintln!(
                "note: PostgreSQL is not installed, so this test ran on SQLite only \
                 (set ANNOT_REQUIRE_POSTGRES=1 to make that a failure)"
            );
            return None;
        };
        let root = is_root();
        // Kept past this binary's end only until the keeper removes it.
        let directory = tempfile::Builder::new()
            .prefix("annot-postgres-")
            .tempdir()
            .unwrap()
            .keep();
        let (data, socket_directory) = (directory.join("data"), directory.join("socket"));
        std::fs::create_dir(&socket_directory).unwrap();
        if root {
            let chown = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&directory)
                .status()
                .unwrap();
            assert!(chown.success(), "chown the server's directory to postgres");
        }
        let initdb = as_server_user(&bin.join("initdb"), root)
            .args(["--auth=trust", "--username=postgres", "--no-sync", "-D"])
            .arg(&data)
            .stdout(Stdio::null())
            .output()
            .expect("initdb runs");
        assert!(
            initdb.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&initdb.stderr)
        );
        // The keeper: starts the server, and stops it (fast shutdown) and
        // removes its directory when its stdin closes.
        let script = r#"
            "$1/postgres" -D "$2/data" -k "$2/socket" -p "$3" -c listen_addresses= \
                -c fsync=off -c max_connections=200 &
            server=$!
            read -r _
            kill -INT "$server"
            wait "$server"
            rm -rf "$2"
        "#;
        let mut keeper = as_server_user(Path::new("sh"), root)
            .args(["-c", script, "keeper"])
            .arg(&bin)
            .arg(&directory)
            .arg(PORT.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        // The server's log goes to this test's stderr, for a failure's story.
        let log = keeper.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(log).lines().map_while(Result::ok) {
                eprintln!("postgres: {line}");
            }
        });
        let server = Server {
            bin,
            socket_directory,
            _keeper: Mutex::new(keeper),
        };
        let deadline = Instant::now() + STARTUP_PATIENCE;
        while !server.try_psql("SELECT 1") {
            assert!(
                Instant::now() < deadline,
                "PostgreSQL did not start within {STARTUP_PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(server)
    }

    fn psql_command(&self, sql: &str) -> Command {
        let mut command = Command::new(self.bin.join("psql"));
        command
            .arg("-h")
            .arg(&self.socket_directory)
            .args(["-p", &PORT.to_string(), "-U", "postgres", "-d", "postgres"])
            .args(["-v", "ON_ERROR_STOP=1", "-q", "-c", sql]);
        command
    }

    fn try_psql(&self, sql: &str) -> bool {
        self.psql_command(sql)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    fn psql(&self, sql: &str) {
        let output = self.psql_command(sql).output().expect("psql runs");
        assert!(
            output.status.success(),
            "psql -c {sql}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// The URL of database `name`, over the unix socket.
    fn url(&self, name: &str) -> String {
        format!(
            "postgresql:///{name}?host={}&port={PORT}&user=postgres",
            self.socket_directory.display()
        )
    }
}
