//! A local `nats-server` with JetStream on 127.0.0.1, for tests, benchmarks and trying a
//! federation on one machine: started on a port of its choosing with its store in a given
//! folder (and a config file, for authorization or TLS); ready when it says so (its log is
//! read, nothing is slept on).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use anyhow::Context;

/// A running `nats-server`; killed when dropped.
pub struct LocalNats {
    child: Child,
    store: PathBuf,
    conf: Option<PathBuf>,
    port: u16,
    log: Arc<Mutex<String>>,
}

impl LocalNats {
    /// Start `nats-server -js` with its store in `store`, on a free port.
    pub fn start(store: &Path) -> anyhow::Result<LocalNats> {
        LocalNats::start_with(store, None)
    }

    /// The same, with `conf` as its config file (`-c`; the store and address given on the
    /// command line win over it).
    pub fn start_with(store: &Path, conf: Option<&Path>) -> anyhow::Result<LocalNats> {
        let conf = conf.map(Path::to_owned);
        let (child, port, log) = spawn(store, conf.as_deref(), None)?;
        Ok(LocalNats {
            child,
            store: store.to_owned(),
            conf,
            port,
            log,
        })
    }

    /// The port it listens on, on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How many messages the federation's stream holds now (once a hub made it): in a work
    /// queue, what was published and not yet acknowledged by its hub.
    pub fn messages_held(&self) -> anyhow::Result<u64> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting a runtime")?;
        runtime.block_on(async {
            let client = async_nats::connect(self.url())
                .await
                .context("connecting to nats-server")?;
            let js = crate::connect::jetstream(client);
            let mut stream = js
                .get_stream(crate::wire::STREAM)
                .await
                .context("opening the stream")?;
            Ok(stream.info().await?.state.messages)
        })
    }

    /// What the server logged so far.
    pub fn log(&self) -> String {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Kill the server (SIGKILL) and start it again on the same port, store and config.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.stop();
        let (child, port, log) = spawn(&self.store, self.conf.as_deref(), Some(self.port))?;
        anyhow::ensure!(port == self.port, "nats-server came back on port {port}");
        (self.child, self.log) = (child, log);
        Ok(())
    }

    /// Kill the server (SIGKILL), remove its store (a disk lost: every stream and consumer
    /// with it) and start it again on the same port and config.
    pub fn restart_with_empty_store(&mut self) -> anyhow::Result<()> {
        self.stop();
        std::fs::remove_dir_all(&self.store)
            .with_context(|| format!("removing {}", self.store.display()))?;
        self.restart()
    }

    fn stop(&mut self) {
        // Already gone is fine: the point is that it is not running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LocalNats {
    fn drop(&mut self) {
        self.stop();
    }
}

type Spawned = (Child, u16, Arc<Mutex<String>>);

fn spawn(store: &Path, conf: Option<&Path>, port: Option<u16>) -> anyhow::Result<Spawned> {
    let port_arg = port.map_or("-1".to_owned(), |p| p.to_string());
    let mut command = Command::new("nats-server");
    if let Some(conf) = conf {
        command.arg("-c").arg(conf);
    }
    let mut child = command
        .args(["-a", "127.0.0.1", "-p", &port_arg, "-js", "-sd"])
        .arg(store)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting nats-server (install it: apt-get install -y nats-server)")?;
    let log = Arc::new(Mutex::new(String::new()));
    let stderr = child.stderr.take().context("no stderr from nats-server")?;
    let mut lines = BufReader::new(stderr).lines();
    let mut listening = None;
    let mut ready = false;
    for line in lines.by_ref() {
        let line = line.context("reading nats-server's log")?;
        push(&log, &line);
        if let Some(address) = line.split("Listening for client connections on ").nth(1) {
            listening = address
                .trim()
                .rsplit(':')
                .next()
                .and_then(|p| p.parse().ok());
        }
        if line.contains("Server is ready") {
            ready = true;
            break;
        }
    }
    let port = match (ready, listening) {
        (true, Some(port)) => port,
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            let log = log.lock().map(|l| l.clone()).unwrap_or_default();
            anyhow::bail!("nats-server did not start:\n{log}");
        }
    };
    // Keep reading, so the server never blocks on a full pipe.
    let drained = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            push(&drained, &line);
        }
    });
    Ok((child, port, log))
}

fn push(log: &Mutex<String>, line: &str) {
    if let Ok(mut log) = log.lock() {
        log.push_str(line);
        log.push('\n');
    }
}
