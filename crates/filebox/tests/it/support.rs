//! The one test helper: a temp dir with a config and mailboxes, and the real `filebox` binary
//! run in it.
//!
//! ```ignore
//! let t = Test::new().agents(["qa", "dev"]);
//! let id = t.as_agent("qa").args(["send", "dev", "ER", "hi"]).success();
//! let listing = t.as_agent("dev").args(["list", "inbox"]).success();
//! let err = t.as_agent("dev").args(["read", "inbox", "nope"]).failure(); // exit 1, stderr
//! ```
//!
//! Every run gets `FILEBOX_CONFIG` pointing at the test's config, `FILEBOX_AGENT` removed and
//! `HOME`/`XDG_CONFIG_HOME` inside the temp dir, so nothing outside the dir is read or written.
//! Mailboxes live at `<dir>/mailboxes/<id>`; the config at `<dir>/config.json`.

#![allow(dead_code)] // each test module uses a different part of this

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// The folders of a mailbox, as the binary creates them.
pub(crate) const FOLDERS: [&str; 5] = ["inbox", "outbox", "done", "cancel", "hold"];

/// What follows a planted header ([`Test::plant`]) to open its body: the separator and the
/// content's heading.
pub(crate) const WHOLE: &str = "\n---\n\n## Original Request/Content\n\n";

/// A temp dir with a FileBox config. Dropping it removes everything.
pub(crate) struct Test {
    dir: tempfile::TempDir,
    config: Value,
}

impl Test {
    /// An empty config (no agents) in a new temp dir.
    pub(crate) fn new() -> Test {
        let dir = tempfile::Builder::new()
            .prefix("filebox-it-")
            .tempdir()
            .expect("temp dir");
        let test = Test {
            dir,
            config: json!({ "agents": {} }),
        };
        test.write_config();
        test
    }

    /// Add agents with mailboxes at `mailboxes/<id>` (folders created); the first agent added
    /// becomes `current_agent_id`.
    pub(crate) fn agents<I, S>(mut self, ids: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for id in ids {
            let id = id.as_ref();
            let root = self.mailbox(id);
            for folder in FOLDERS.iter().chain(&["tmp"]) {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(root.join(folder))
                    .expect("mailbox folder");
            }
            self.config["agents"][id] = json!({ "mailbox_path": format!("mailboxes/{id}") });
            if self.config.get("current_agent_id").is_none() {
                self.config["current_agent_id"] = json!(id);
            }
        }
        self.write_config();
        self
    }

    /// Set a top-level config key (e.g. `max_body_bytes`).
    pub(crate) fn config(mut self, key: &str, value: Value) -> Test {
        self.config[key] = value;
        self.write_config();
        self
    }

    fn write_config(&self) {
        let text = serde_json::to_string_pretty(&self.config).expect("config json");
        fs::write(self.config_path(), text).expect("write config");
    }

    /// The temp dir.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn config_path(&self) -> PathBuf {
        self.path().join("config.json")
    }

    /// A copy of `tests/bridges/fixtures/NAME` (a folder) at `<dir>/NAME`, returned.
    pub(crate) fn fixture(&self, name: &str) -> PathBuf {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/bridges/fixtures")
            .join(name);
        let target = self.path().join(name);
        copy_tree(&source, &target);
        target
    }

    /// An agent's mailbox root.
    pub(crate) fn mailbox(&self, agent: &str) -> PathBuf {
        self.path().join("mailboxes").join(agent)
    }

    /// A folder of an agent's mailbox (`inbox`, `done`, ..., or `tmp`).
    pub(crate) fn folder(&self, agent: &str, folder: &str) -> PathBuf {
        self.mailbox(agent).join(folder)
    }

    /// The names of the files in a folder, sorted (every file, not only `.md`).
    pub(crate) fn files(&self, agent: &str, folder: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.folder(agent, folder))
            .expect("read folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Write a file into a folder of a mailbox, as another tool would.
    pub(crate) fn put(
        &self,
        agent: &str,
        folder: &str,
        name: &str,
        bytes: impl AsRef<[u8]>,
    ) -> PathBuf {
        let path = self.folder(agent, folder).join(name);
        fs::write(&path, bytes).expect("put file");
        path
    }

    /// A command run as `agent` (`--agent` is passed).
    pub(crate) fn as_agent(&self, agent: &str) -> Run<'_> {
        self.run().args(["--agent", agent])
    }

    /// A command with no `--agent` (the config's current agent).
    pub(crate) fn run(&self) -> Run<'_> {
        Run {
            test: self,
            args: Vec::new(),
            stdin: None,
            umask: None,
            binary: None,
        }
    }

    /// Send as `from` and return the new Message ID.
    pub(crate) fn send(&self, from: &str, to: &str, kind: &str, body: &str) -> String {
        let out = self
            .as_agent(from)
            .args(["send", to, kind, "-"])
            .stdin(body)
            .success();
        out.trim().to_owned()
    }

    /// A message file another tool put in `agent`'s inbox: `# ER: TITLE`, a header from
    /// `sender` with the Message ID `id`, then `rest` (the `---` and the sections, or not;
    /// [`WHOLE`] starts them). Nothing FileBox writes is in the way: a title may hold anything.
    pub(crate) fn plant(&self, agent: &str, id: &str, sender: &str, title: &str, rest: &str) {
        let text = format!(
            "# ER: {title}\n\n**Message ID:** {id}\n**Sender:** {sender}\n**Receiver:** {agent}\n\
             **Timestamp:** 2026-01-01T00:00:00Z\n{rest}"
        );
        let name = format!("20260101T000000-ER-planted-{}.md", &id[..8]);
        // Written beside, then renamed in whole, as a careful tool does.
        let staged = self.path().join(&name);
        fs::write(&staged, text).unwrap();
        let inbox = self.folder(agent, "inbox");
        fs::create_dir_all(&inbox).unwrap();
        fs::rename(staged, inbox.join(name)).unwrap();
    }

    /// `read <folder> <reference> --json` as `agent`, parsed.
    pub(crate) fn read_json(&self, agent: &str, folder: &str, reference: &str) -> Value {
        let out = self
            .as_agent(agent)
            .args(["--json", "read", folder, reference])
            .success();
        serde_json::from_str(&out).expect("read --json prints JSON")
    }
}

/// One invocation of the binary, built up and then run once.
/// The session id of the Claude Code session the team fixtures' `session-1a2b3c4d` belongs to.
pub(crate) const SESSION_ID: &str = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";

/// Run `command` as Claude Code runs a command inside that session (no teammate's team name).
pub(crate) fn in_session(command: &mut std::process::Command) -> &mut std::process::Command {
    command
        .env_remove("CLAUDE_CODE_TEAM_NAME")
        .env("CLAUDE_CODE_SESSION_ID", SESSION_ID)
}

pub(crate) struct Run<'t> {
    test: &'t Test,
    args: Vec<std::ffi::OsString>,
    stdin: Option<Vec<u8>>,
    umask: Option<u32>,
    binary: Option<PathBuf>,
}

impl Run<'_> {
    /// Append arguments.
    pub(crate) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Bytes for standard input (otherwise stdin is empty).
    pub(crate) fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.stdin = Some(bytes.as_ref().to_vec());
        self
    }

    /// Run the binary under this umask (through `sh -c 'umask ...; exec ...'`).
    pub(crate) fn umask(mut self, mask: u32) -> Self {
        self.umask = Some(mask);
        self
    }

    /// Run the binary from `path` (a link to it or a copy, placed where an installer puts it).
    pub(crate) fn binary(mut self, path: impl Into<PathBuf>) -> Self {
        self.binary = Some(path.into());
        self
    }

    /// The `std::process::Command` this would run, for tests that spawn and kill processes.
    /// Stdout and stderr are piped, stdin is null.
    pub(crate) fn command(&self) -> Command {
        // The crash campaign's long batches run a copy of the binary (release or debug), so
        // rebuilding meanwhile does not change it under them.
        let binary = match &self.binary {
            Some(path) => path.clone().into_os_string(),
            None => std::env::var_os("FILEBOX_TEST_BIN")
                .unwrap_or_else(|| env!("CARGO_BIN_EXE_filebox").into()),
        };
        let mut command = match self.umask {
            None => Command::new(binary),
            Some(mask) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!("umask {mask:03o} && exec \"$0\" \"$@\""))
                    .arg(binary);
                sh
            }
        };
        command
            .args(&self.args)
            .current_dir(self.test.path())
            .env("FILEBOX_CONFIG", self.test.config_path())
            .env_remove("FILEBOX_AGENT")
            // Logging as the test asks, not as the shell that runs the tests does.
            .env_remove("FILEBOX_LOG")
            .env_remove("RUST_LOG")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env("HOME", self.test.path())
            .env("XDG_CONFIG_HOME", self.test.path().join("xdg"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Run to completion and return the raw output (any exit code).
    pub(crate) fn output(self) -> Output {
        let mut command = assert_cmd::Command::from_std(self.command());
        command.write_stdin(self.stdin.clone().unwrap_or_default());
        // A hang fails its test (the process is killed) instead of stalling the suite.
        command.timeout(std::time::Duration::from_secs(120));
        command.output().expect("run filebox")
    }

    /// Run, assert exit code 0, return stdout.
    pub(crate) fn success(self) -> String {
        self.expect_code(0).0
    }

    /// Run, assert exit code 1 (a failure, or a partial success), return stderr.
    pub(crate) fn failure(self) -> String {
        self.expect_code(1).1
    }

    /// Run, assert exit code 2 (a usage error), return stderr.
    pub(crate) fn usage_error(self) -> String {
        self.expect_code(2).1
    }

    /// Run, assert the exit code, return (stdout, stderr).
    pub(crate) fn expect_code(self, code: i32) -> (String, String) {
        let shown = format!("{:?}", self.args);
        let out = self.output();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(code),
            "filebox {shown}: expected exit code {code}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
        );
        (stdout, stderr)
    }
}

fn copy_tree(source: &Path, target: &Path) {
    fs::create_dir_all(target).expect("fixture folder");
    for entry in fs::read_dir(source).expect("fixture exists") {
        let entry = entry.expect("fixture entry");
        let to = target.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &to);
        } else {
            fs::copy(entry.path(), &to).expect("copy fixture file");
        }
    }
}
