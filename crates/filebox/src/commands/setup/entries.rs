//! What `filebox setup` writes for a host: the MCP server entry and the hook groups, each with
//! the key path it goes to, and how to recognise FileBox's own hook among the user's.

use serde_json::{Value, json};

use super::hosts::{HookShape, Host, HostFile};
use super::launcher::Launcher;

/// The name of FileBox's server in every host's server list.
pub(crate) const SERVER_NAME: &str = "filebox";

/// What FileBox runs: this binary (or the launcher it was installed with), the config and the
/// agent.
#[derive(Debug, Clone)]
pub(crate) struct Invocation {
    /// What starts filebox (`launcher.rs`): its absolute path, or `npx -y filebox`.
    pub(crate) launcher: Launcher,
    pub(crate) config: String,
    pub(crate) agent: String,
}

impl Invocation {
    /// The arguments that come before a subcommand.
    fn globals(&self) -> [&str; 4] {
        ["--config", &self.config, "--agent", &self.agent]
    }

    /// A shell command line running `filebox ... WORDS`.
    fn command_line(&self, words: &[&str]) -> String {
        std::iter::once(self.launcher.program.as_str())
            .chain(self.launcher.args.iter().map(String::as_str))
            .chain(self.globals())
            .chain(words.iter().copied())
            .map(shell_quote)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One thing a host needs in one of its files.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    /// A value at a key path (the MCP server entry).
    Value {
        file: HostFile,
        path: Vec<String>,
        value: Value,
    },
    /// A matcher group in the list of a hook event, FileBox's own replaced in place.
    Hook {
        file: HostFile,
        path: Vec<String>,
        group: Value,
        flavour: &'static str,
    },
}

impl Entry {
    pub(crate) fn file(&self) -> &HostFile {
        match self {
            Entry::Value { file, .. } | Entry::Hook { file, .. } => file,
        }
    }

    /// The key path, as shown (`mcpServers.filebox`, `hooks.Stop`).
    pub(crate) fn key(&self) -> String {
        match self {
            Entry::Value { path, .. } | Entry::Hook { path, .. } => path.join("."),
        }
    }
}

/// Everything `host` needs for `invocation`.
pub(crate) fn entries(host: &Host, invocation: &Invocation) -> Vec<Entry> {
    let launcher = &invocation.launcher;
    let mut args: Vec<&str> = launcher.args.iter().map(String::as_str).collect();
    args.extend(invocation.globals());
    args.push("mcp");
    let mut server = json!({ "command": launcher.program, "args": args });
    if let Some(kind) = host.server_type {
        server["type"] = json!(kind);
    }
    let mut entries = vec![Entry::Value {
        file: host.mcp,
        path: vec![host.servers_key.to_owned(), SERVER_NAME.to_owned()],
        value: server,
    }];
    if let Some(hooks) = &host.hooks {
        let command = invocation.command_line(&["hook", hooks.flavour]);
        if hooks.shape == HookShape::Commands {
            entries.push(Entry::Value {
                file: hooks.file,
                path: vec!["version".to_owned()],
                value: json!(1),
            });
        }
        for event in hooks.events {
            let group = match hooks.shape {
                HookShape::Groups => {
                    let mut hook = json!({ "type": "command", "command": command });
                    if let Some(timeout) = event.rewake_timeout {
                        hook["async"] = json!(true);
                        hook["asyncRewake"] = json!(true);
                        hook["timeout"] = json!(timeout);
                    }
                    json!({ "hooks": [hook] })
                }
                HookShape::Commands => json!({ "type": "command", "bash": command }),
            };
            entries.push(Entry::Hook {
                file: hooks.file,
                path: vec!["hooks".to_owned(), event.name.to_owned()],
                group,
                flavour: hooks.flavour,
            });
        }
    }
    entries
}

/// Whether an element of an event's hook list (a matcher group's hooks, or a Copilot hook
/// itself) runs `filebox hook FLAVOUR` (written by an earlier setup, perhaps for another agent
/// or binary).
pub(crate) fn is_filebox_hook(element: &Value, flavour: &str) -> bool {
    let suffix = format!(" hook {flavour}");
    let grouped = element["hooks"].as_array().into_iter().flatten();
    grouped
        .filter_map(|hook| hook["command"].as_str())
        .chain(element["bash"].as_str())
        .any(|command| command.contains("filebox") && command.ends_with(&suffix))
}

/// `word` as one shell word: as it is when it holds nothing a shell reads, else quoted.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::commands::setup::hosts;

    fn invocation() -> Invocation {
        Invocation {
            launcher: Launcher::path(Path::new("/opt/file box/filebox")),
            config: "/p/.filebox/config.json".into(),
            agent: "dev".into(),
        }
    }

    #[test]
    fn claude_code_gets_a_server_and_three_hooks_the_stop_one_waking_in_the_background() {
        let host = hosts::find("claude-code").unwrap();
        let entries = entries(host, &invocation());
        let keys: Vec<String> = entries.iter().map(Entry::key).collect();
        assert_eq!(
            keys,
            [
                "mcpServers.filebox",
                "hooks.SessionStart",
                "hooks.UserPromptSubmit",
                "hooks.Stop"
            ]
        );
        let Entry::Hook { group, .. } = &entries[3] else {
            panic!("a hook")
        };
        let hook = &group["hooks"][0];
        assert_eq!(
            hook["command"],
            "'/opt/file box/filebox' --config /p/.filebox/config.json --agent dev hook claude-code"
        );
        assert_eq!(
            (&hook["async"], &hook["asyncRewake"]),
            (&json!(true), &json!(true))
        );
        assert!(is_filebox_hook(group, "claude-code"));
        assert!(!is_filebox_hook(group, "codex"));
    }

    #[test]
    fn a_launcher_s_own_arguments_come_before_filebox_s() {
        let invocation = Invocation {
            launcher: Launcher {
                program: "npx".into(),
                args: vec!["-y".into(), "filebox".into()],
            },
            ..invocation()
        };
        let host = hosts::find("claude-code").unwrap();
        let entries = entries(host, &invocation);
        let Entry::Value { value, .. } = &entries[0] else {
            panic!("the server entry")
        };
        assert_eq!(value["command"], "npx");
        assert_eq!(
            value["args"],
            json!([
                "-y",
                "filebox",
                "--config",
                "/p/.filebox/config.json",
                "--agent",
                "dev",
                "mcp"
            ])
        );
        let Entry::Hook { group, .. } = &entries[1] else {
            panic!("a hook")
        };
        assert_eq!(
            group["hooks"][0]["command"],
            "npx -y filebox --config /p/.filebox/config.json --agent dev hook claude-code"
        );
        assert!(is_filebox_hook(group, "claude-code"));
    }

    #[test]
    fn shell_quoting_keeps_plain_words_and_quotes_the_rest() {
        assert_eq!(shell_quote("/usr/bin/filebox"), "/usr/bin/filebox");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
