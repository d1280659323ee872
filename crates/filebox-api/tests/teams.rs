//! The team verbs (`list_teams`, `team_inbox`, `read_team_inbox`, `send_team_message`) over a
//! Claude Code folder made here: results, partial delivery as warnings, typed errors, and the
//! Claude folder that a JSON caller cannot redirect.

use std::fs;
use std::path::{Path, PathBuf};

use filebox_api::verbs::{ListTeams, ReadTeamInbox, SendTeamMessage, TeamInbox};
use filebox_api::{
    ListTeamsArgs, ReadTeamInboxArgs, SendTeamMessageArgs, Standalone, TeamInboxArgs, Verb,
    VerbContext, advice, verbs,
};
use serde_json::{Value, json};

/// `{dir}/teams/crew` with a roster of `team-lead`, `ann` and `bob`; returns the Claude folder.
fn claude(dir: &tempfile::TempDir) -> PathBuf {
    let root = dir.path().join("claude");
    let team = root.join("teams/crew");
    fs::create_dir_all(team.join("inboxes")).unwrap();
    let members: Vec<Value> = ["team-lead", "ann", "bob"]
        .iter()
        .map(|name| json!({"agentId": format!("{name}@crew"), "name": name, "joinedAt": 1}))
        .collect();
    let config = json!({"name": "crew", "createdAt": 1, "leadAgentId": "team-lead@crew", "members": members});
    fs::write(team.join("config.json"), config.to_string()).unwrap();
    root
}

fn inbox(claude: &Path, member: &str) -> PathBuf {
    claude.join(format!("teams/crew/inboxes/{member}.json"))
}

fn send(claude: &Path, to: &str, text: &str) -> SendTeamMessageArgs {
    SendTeamMessageArgs {
        team: Some("crew".into()),
        to: to.into(),
        text: text.into(),
        from: Some("team-lead".into()),
        claude_dir: Some(claude.to_path_buf()),
        ..SendTeamMessageArgs::default()
    }
}

#[test]
fn a_message_to_every_member_is_listed_shown_and_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude(&dir);
    let sent = SendTeamMessage::run_standalone(send(&claude, "*", "Stand-up in 5")).unwrap();
    assert!(sent.warnings.is_empty());
    assert_eq!(sent.value.from, "team-lead");
    assert_eq!(sent.value.to, ["ann", "bob"]);
    assert_eq!(
        SendTeamMessage::render(&sent.value),
        format!(
            "Sent to ann, bob in team crew as team-lead at {}",
            sent.value.timestamp
        )
    );

    let listed = ListTeams::run_standalone(ListTeamsArgs {
        claude_dir: Some(claude.clone()),
    })
    .unwrap();
    let members: Vec<(&str, usize)> = listed.value.teams[0]
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.unread))
        .collect();
    assert_eq!(members, [("team-lead", 0), ("ann", 1), ("bob", 1)]);

    let shown = TeamInbox::run_standalone(TeamInboxArgs {
        team: Some("crew".into()),
        member: "ann".into(),
        unread: Some(true),
        claude_dir: Some(claude.clone()),
    })
    .unwrap();
    assert_eq!(
        TeamInbox::render(&shown.value),
        format!("* {} team-lead\n    Stand-up in 5", sent.value.timestamp)
    );
    let read = || {
        ReadTeamInbox::run_standalone(ReadTeamInboxArgs {
            team: Some("crew".into()),
            member: "ann".into(),
            claude_dir: Some(claude.clone()),
        })
        .unwrap()
        .value
    };
    let first = read();
    assert_eq!((first.messages.len(), first.marked_read), (1, Some(1)));
    let second = read();
    assert_eq!((second.messages.len(), second.marked_read), (0, Some(0)));
    assert_eq!(
        ReadTeamInbox::render(&second),
        "No unread messages for ann in team crew."
    );
}

#[test]
fn a_member_who_cannot_receive_is_a_warning_when_others_did() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude(&dir);
    fs::write(inbox(&claude, "bob"), "[{\"from\":").unwrap();

    let sent = SendTeamMessage::run_standalone(send(&claude, "*", "hello")).unwrap();
    assert_eq!(sent.value.to, ["ann"]);
    assert_eq!(sent.warnings.len(), 1);
    assert!(
        sent.warnings[0].starts_with("not delivered to bob: ")
            && sent.warnings[0].contains("bob.json: the inbox is not readable"),
        "{:?}",
        sent.warnings
    );
    assert_eq!(
        fs::read_to_string(inbox(&claude, "bob")).unwrap(),
        "[{\"from\":"
    );

    // Alone, the failure is the error: a foreign file, left untouched.
    let error = SendTeamMessage::run_standalone(send(&claude, "bob", "hello")).unwrap_err();
    assert_eq!(advice::kind(&error), "foreign_file");
    assert!(advice::advice(&error).contains("left untouched"));
    assert_eq!(
        fs::read_to_string(inbox(&claude, "bob")).unwrap(),
        "[{\"from\":"
    );
}

#[test]
fn a_team_that_does_not_exist_is_an_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude(&dir);
    let error = TeamInbox::run_standalone(TeamInboxArgs {
        team: Some("nope".into()),
        member: "ann".into(),
        unread: None,
        claude_dir: Some(claude),
    })
    .unwrap_err();
    assert_eq!(advice::kind(&error), "invalid_argument");
    assert!(
        error
            .to_string()
            .starts_with("invalid team \"nope\": no such team under "),
        "{error}"
    );
}

#[test]
fn a_json_caller_cannot_choose_the_claude_folder() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude(&dir);
    let qa = filebox_testkit::mailroom(dir.path(), &[("qa", "agent")], "qa");
    let schema = verbs::find("list_teams").unwrap().args_schema();
    assert_eq!(schema.get("properties"), None, "{schema:?}");
    // An extra `claude_dir` is not an argument: the verb looks where Claude Code does.
    let listed = verbs::call(
        &VerbContext::new(&qa),
        "list_teams",
        json!({"claude_dir": claude}),
    )
    .unwrap();
    let teams_dir = listed.value["teams_dir"].as_str().unwrap();
    assert_ne!(Path::new(teams_dir), claude.join("teams"));
}

#[test]
fn a_send_is_from_the_acting_agent_and_never_from_no_one() {
    let dir = tempfile::tempdir().unwrap();
    let claude = claude(&dir);
    let qa = filebox_testkit::mailroom(dir.path(), &[("qa", "agent")], "qa");
    let unnamed = SendTeamMessageArgs {
        from: None,
        ..send(&claude, "ann", "hello")
    };
    let sent = SendTeamMessage::run(&VerbContext::new(&qa), unnamed.clone()).unwrap();
    assert_eq!(sent.value.from, "qa", "the FileBox agent's own name");
    let error = SendTeamMessage::run_standalone(unnamed).unwrap_err();
    assert_eq!(advice::kind(&error), "invalid_argument");
    assert!(
        error
            .to_string()
            .contains("FileBox writes as no one it is not"),
        "{error}"
    );
}
