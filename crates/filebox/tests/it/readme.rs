//! The README's story, run as written: the `sh` blocks of the README from `## Set up` on, then
//! of the pages it continues in (`STORY`), in order, as one bash script in one folder (a copy
//! of what the blocks use from the repository), with `filebox` on PATH.
//!
//! What the test does besides running the blocks, each said where it is done:
//! - a line starting `cargo install` is left out (the binary under test is on PATH), and a
//!   `filebox ... watch` line, which runs until interrupted (`wait.rs` tests it);
//! - a block after `<!-- story: serves ADDR, its address first in FILE -->` starts a server in
//!   the background: it runs with ADDR as `127.0.0.1:0` (tests bind port 0), and once FILE
//!   names the address it took, ADDR means that address in every later block;
//! - a block after `<!-- story: nats-server at ADDR -->` is run by the test itself, with a
//!   `nats-server` of its own (as `federation.rs` does): ADDR means that server's address;
//! - a block after `<!-- story: not run: WHY -->` is not run (it needs what the test does not
//!   have, said in WHY; rare);
//! - the background processes still running when the script ends are stopped.

use std::path::{Path, PathBuf};
use std::process::Command;

use filebox_federation::local_nats::LocalNats;

/// The pages the README's story goes on in, in the order the README lists them.
const STORY: [&str; 7] = [
    "README.md",
    "docs/wake.md",
    "docs/hub.md",
    "docs/human.md",
    "docs/federation.md",
    "docs/transcripts.md",
    "docs/teams.md",
];

/// What the blocks use from the repository, copied to the same place beside `my-project`.
const USED: [&str; 2] = ["docs/examples", "tests/bridges/fixtures/claude"];

/// The marker comment that says how the test treats the block after it.
const MARKER: &str = "<!-- story: ";

/// One `sh` block: where it is, and what its marker said.
struct Block {
    place: String,
    text: String,
    marker: Option<String>,
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `sh` blocks of `page` (the README's from `## Set up` on: above it are the two commands
/// that build and test the repository).
fn blocks(page: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(repository().join(page)).expect(page);
    let start = if page == "README.md" {
        text.find("## Set up")
            .expect("the README has a Set up section")
    } else {
        0
    };
    let mut blocks = Vec::new();
    let mut lines = text[start..].lines().enumerate().peekable();
    let first_line = text[..start].lines().count();
    let mut marker = None;
    while let Some((number, line)) = lines.next() {
        if let Some(said) = line.strip_prefix(MARKER) {
            marker = Some(said.trim_end_matches("-->").trim().to_owned());
            continue;
        }
        if line != "```sh" {
            if !line.trim().is_empty() {
                marker = None;
            }
            continue;
        }
        let mut body = String::new();
        for (_, line) in lines.by_ref() {
            if line == "```" {
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        blocks.push(Block {
            place: format!("{page}:{}", first_line + number + 1),
            text: body,
            marker: marker.take(),
        });
    }
    blocks
}

/// bash that runs `text` after replacing each address a server took for the one the docs
/// write (`STORY_FROM[i]` → `STORY_TO[i]`).
fn run_rewritten(text: &str, n: usize) -> String {
    format!(
        "STORY_TEXT=$(cat <<'STORY_BLOCK_{n}'\n{text}STORY_BLOCK_{n}\n)\nstory_rewrite\neval \"$STORY_TEXT\"\n"
    )
}

/// The script's start: strict mode, the address map, and stopping what is left running.
const PRELUDE: &str = r#"set -eu -o pipefail
STORY_FROM=(); STORY_TO=()
trap 'for pid in $(jobs -p); do kill "$pid" 2>/dev/null || true; done; wait' EXIT
story_rewrite() {
  local i
  for i in "${!STORY_FROM[@]}"; do STORY_TEXT=${STORY_TEXT//"${STORY_FROM[$i]}"/"${STORY_TO[$i]}"}; done
}
story_map() {
  local i
  for i in "${!STORY_FROM[@]}"; do
    if [ "${STORY_FROM[$i]}" = "$1" ]; then STORY_TO[$i]=$2; return; fi
  done
  STORY_FROM+=("$1"); STORY_TO+=("$2")
}
# Wait (a hang guard of 2 minutes, not a timing) until $2 names the 127.0.0.1 address the
# server took, and map $1 to it.
story_address() {
  local found="" tries=0
  until found=$(grep -o -m1 '127\.0\.0\.1:[1-9][0-9]*' "$2" 2>/dev/null); do
    tries=$((tries + 1))
    if [ "$tries" -gt 1200 ]; then echo "story: no address in $2" >&2; cat "$2" >&2 || true; return 1; fi
    sleep 0.1
  done
  story_map "$1" "$found"
}
"#;

/// The whole story as one script; the number of blocks it runs, and the blocks it does not
/// run with why.
fn script(nats: &str) -> (String, usize, Vec<String>) {
    let mut script = String::from(PRELUDE);
    script.push_str(&format!("story_map 127.0.0.1:4222 {nats}\n"));
    let (mut run, mut not_run) = (0, Vec::new());
    for (n, block) in STORY.iter().flat_map(|page| blocks(page)).enumerate() {
        let kept: String = block
            .text
            .lines()
            .filter(|line| !line.starts_with("cargo install") && !line.contains(" watch "))
            .map(|line| format!("{line}\n"))
            .collect();
        script.push_str(&format!("echo '--- story: {}' >&2\n", block.place));
        match block.marker.as_deref() {
            None => script.push_str(&run_rewritten(&kept, n)),
            Some(marker) if marker.starts_with("serves ") => {
                let (address, file) = marker["serves ".len()..]
                    .split_once(", its address first in ")
                    .unwrap_or_else(|| {
                        panic!("{}: a serves marker names ADDR and FILE", block.place)
                    });
                assert_eq!(
                    kept.matches(address).count(),
                    1,
                    "{}: a serves block names its address once, on the server's line",
                    block.place
                );
                // The file is new, so the address read from it is the one this server took.
                script.push_str(&format!("rm -f {file}\n"));
                script.push_str(&run_rewritten(&kept.replace(address, "127.0.0.1:0"), n));
                script.push_str(&format!("story_address {address} {file}\n"));
            }
            Some(marker) if marker.starts_with("nats-server at ") => {
                assert!(
                    marker.ends_with("127.0.0.1:4222"),
                    "{}: the test's nats-server stands for 127.0.0.1:4222",
                    block.place
                );
                script.push_str("echo 'story: the test runs its own nats-server' >&2\n");
            }
            Some(marker) if marker.starts_with("not run: ") => {
                not_run.push(format!(
                    "{} ({})",
                    block.place,
                    &marker["not run: ".len()..]
                ));
                continue;
            }
            Some(marker) => panic!("{}: unknown story marker {marker:?}", block.place),
        }
        run += 1;
    }
    (script, run, not_run)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn the_readme_story_runs_as_written_in_order_in_one_folder() {
    let nats_dir = tempfile::tempdir().unwrap();
    let nats = LocalNats::start(&nats_dir.path().join("jetstream")).unwrap_or_else(|e| {
        panic!("{e:#} (scripts/test-all installs it: apt-get install -y nats-server)")
    });
    let (script, run, not_run) = script(&nats.url().replace("nats://", ""));
    let dir = tempfile::tempdir().unwrap();
    for used in USED {
        copy_tree(&repository().join(used), &dir.path().join(used));
    }
    let binary = Path::new(env!("CARGO_BIN_EXE_filebox"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .env_remove("FILEBOX_CONFIG")
        .env_remove("FILEBOX_AGENT")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_TEAM_NAME")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let coverage = format!(
        "{run} blocks of {} pages run; not run: {}",
        STORY.len(),
        if not_run.is_empty() {
            "none".to_owned()
        } else {
            not_run.join(", ")
        }
    );
    assert!(
        out.status.success(),
        "the story failed ({coverage}; the last `--- story:` line on stderr names the block)\n\
         --- script\n{script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(run >= 20 && not_run.len() <= 2, "{coverage}");
    assert!(!stderr.contains("error"), "{coverage}\n{stderr}");
    // What the blocks say they print.
    for (what, printed) in [
        ("a reply to its Reply To", " -> lead\n"),
        ("the reply to the sender", " -> dev\n"),
        (
            "the webhook, verified by the receiver",
            "\"reply\": \"Called back\"",
        ),
        ("the human's answer", "8080, as before"),
        ("bob's answer from the other hub", "Done in 1.2"),
        ("the federation status", "connected"),
        (
            "one agent, counted in the singular",
            "ci-1: 1 agent known here",
        ),
    ] {
        assert!(stdout.contains(printed), "{what} ({coverage}):\n{stdout}");
    }
}
