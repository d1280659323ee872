//! The command a host starts FileBox with: the way the user installed it where that way runs it
//! from a cache that may be cleaned at any time (npx, uvx), else this executable's absolute path.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The variable the npm package's launcher sets when it runs the binary out of npx's cache:
/// `npx:<the binary's path>`. The path makes it the word of that launcher about this binary
/// only: a filebox started by something the launched one started (a runner, a shell) has
/// another path or the same one, and in either case the word is still true or ignored.
const LAUNCHER_VAR: &str = "FILEBOX_LAUNCHER";

/// What decides the launcher besides the executable's path: the environment's say.
#[derive(Debug, Default)]
struct Surroundings {
    /// `FILEBOX_LAUNCHER`.
    launcher: Option<OsString>,
    /// `UV_CACHE_DIR`, `XDG_CACHE_HOME` and `HOME`: where uv keeps the environments `uvx` runs.
    uv_cache_dir: Option<PathBuf>,
    xdg_cache_home: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Surroundings {
    fn of_this_process() -> Surroundings {
        let path = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Surroundings {
            launcher: std::env::var_os(LAUNCHER_VAR),
            uv_cache_dir: path("UV_CACHE_DIR"),
            xdg_cache_home: path("XDG_CACHE_HOME"),
            home: path("HOME"),
        }
    }

    /// The folders uv may keep its cache in (its default on Unix, and the override).
    fn uv_caches(&self) -> Vec<PathBuf> {
        let default = match (&self.xdg_cache_home, &self.home) {
            (Some(xdg), _) if xdg.is_absolute() => Some(xdg.join("uv")),
            (_, Some(home)) => Some(home.join(".cache/uv")),
            _ => None,
        };
        self.uv_cache_dir.iter().cloned().chain(default).collect()
    }
}

/// The program a host starts and the arguments that come before FileBox's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launcher {
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
}

impl Launcher {
    /// The executable at `exe`, by its path.
    pub(crate) fn path(exe: &Path) -> Launcher {
        Launcher {
            program: exe.display().to_string(),
            args: Vec::new(),
        }
    }

    /// `program ARGS...`, for the launchers of package managers.
    fn words(program: &str, args: &[&str]) -> Launcher {
        Launcher {
            program: program.to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        }
    }
}

/// What starts this filebox for a host.
pub(crate) fn of_this_process() -> anyhow::Result<Launcher> {
    let exe = std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .context("cannot tell where this filebox binary is")?;
    Ok(launcher(&exe, &Surroundings::of_this_process()))
}

/// What starts `exe` (a canonical path) for a host, in `surroundings`.
fn launcher(exe: &Path, surroundings: &Surroundings) -> Launcher {
    if launched_by_npx(exe, surroundings) {
        Launcher::words("npx", &["-y", "filebox"])
    } else if surroundings
        .uv_caches()
        .iter()
        .filter_map(|cache| cache.canonicalize().ok())
        .any(|cache| exe.starts_with(cache))
    {
        // `uvx filebox` runs the wheel's binary from an environment in uv's cache; `uv tool
        // install` and pipx keep it in a folder of their own, which lasts: its path is stable.
        Launcher::words("uvx", &["filebox"])
    } else {
        Launcher::path(exe)
    }
}

fn launched_by_npx(exe: &Path, surroundings: &Surroundings) -> bool {
    let Some(value) = surroundings.launcher.as_ref().and_then(|v| v.to_str()) else {
        return false;
    };
    value
        .strip_prefix("npx:")
        .and_then(|named| Path::new(named).canonicalize().ok())
        .is_some_and(|named| named == exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temp folder holding `relative` as an empty file, and the file's canonical path.
    fn planted(relative: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(relative);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "").unwrap();
        let file = file.canonicalize().unwrap();
        (dir, file)
    }

    #[test]
    fn a_binary_named_by_the_npx_launcher_is_started_with_npx() {
        let (_dir, exe) = planted("_npx/0a1b/node_modules/@filebox/cli-linux-x64/bin/filebox");
        let surroundings = Surroundings {
            launcher: Some(format!("npx:{}", exe.display()).into()),
            ..Surroundings::default()
        };
        assert_eq!(
            launcher(&exe, &surroundings),
            Launcher::words("npx", &["-y", "filebox"])
        );
    }

    #[test]
    fn an_npx_word_about_another_binary_or_malformed_is_ignored() {
        let (dir, exe) = planted("bin/filebox");
        let other = dir.path().join("other");
        std::fs::write(&other, "").unwrap();
        for value in [
            format!("npx:{}", other.display()),
            format!("npx:{}/missing", dir.path().display()),
            "npx".to_owned(),
            format!("uvx:{}", exe.display()),
        ] {
            let surroundings = Surroundings {
                launcher: Some(value.clone().into()),
                ..Surroundings::default()
            };
            assert_eq!(
                launcher(&exe, &surroundings),
                Launcher::path(&exe),
                "{value}"
            );
        }
    }

    #[test]
    fn a_binary_in_uv_s_cache_is_started_with_uvx_wherever_the_cache_is() {
        let (dir, exe) = planted("home/.cache/uv/archive-v0/x1/bin/filebox");
        let root = dir.path();
        let elsewhere = Some(root.join("elsewhere"));
        for surroundings in [
            Surroundings {
                home: Some(root.join("home")),
                ..Surroundings::default()
            },
            Surroundings {
                xdg_cache_home: Some(root.join("home/.cache")),
                home: elsewhere.clone(),
                ..Surroundings::default()
            },
            Surroundings {
                uv_cache_dir: Some(root.join("home/.cache/uv")),
                home: elsewhere,
                ..Surroundings::default()
            },
        ] {
            assert_eq!(
                launcher(&exe, &surroundings),
                Launcher::words("uvx", &["filebox"]),
                "{surroundings:?}"
            );
        }
    }

    #[test]
    fn a_tool_folder_of_uv_or_pipx_or_cargo_s_bin_gets_the_absolute_path() {
        let (dir, _) = planted("home/.cache/uv/archive-v0/x1/bin/filebox");
        let surroundings = Surroundings {
            home: Some(dir.path().join("home")),
            ..Surroundings::default()
        };
        for place in [
            "home/.local/share/uv/tools/filebox/bin/filebox",
            "home/.local/share/pipx/venvs/filebox/bin/filebox",
            "home/.cargo/bin/filebox",
        ] {
            let exe = dir.path().join(place);
            std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
            std::fs::write(&exe, "").unwrap();
            let exe = exe.canonicalize().unwrap();
            assert_eq!(
                launcher(&exe, &surroundings),
                Launcher::path(&exe),
                "{place}"
            );
        }
    }
}
