//! Agent names on the wire. Inside a hub, its own agents have bare names (`alice`) and agents
//! elsewhere are `name@hub`; on the wire every name is `name@hub`. A message is qualified when
//! it leaves (`alice` → `alice@laptop`) and localised when it arrives (`bob@ci-1` → `bob` on
//! ci-1), in every place a name appears: the header's people fields, the conversation's
//! `from`/`to` and the processing history's `by`.

use filebox_core::message::{comma_list, field};
use filebox_core::{AgentId, Message};

/// The header fields that name agents (one, or a comma-separated list).
const PEOPLE_FIELDS: [&str; 6] = [
    field::SENDER,
    field::RECEIVER,
    field::CC,
    field::ORIGINAL_SENDER,
    field::CURRENT_OWNER,
    field::REPLY_TO,
];

/// Qualify every local name of `message` with hub `me`.
pub(crate) fn to_wire(message: &mut Message, me: &str) {
    rename_all(message, &|name| qualify(name, me));
}

/// Make every name of hub `me` local again.
pub(crate) fn from_wire(message: &mut Message, me: &str) {
    rename_all(message, &|name| localise(name, me));
}

/// `alice` → `alice@me`; a name with a domain is left as it is.
pub(crate) fn qualify(name: &str, me: &str) -> String {
    if name.contains('@') {
        name.to_owned()
    } else {
        format!("{name}@{me}")
    }
}

/// `alice@me` → `alice`; any other name is left as it is.
pub(crate) fn localise(name: &str, me: &str) -> String {
    match name.split_once('@') {
        Some((local, hub)) if hub == me => local.to_owned(),
        _ => name.to_owned(),
    }
}

/// Every agent named in the message's people fields and conversation (as written there).
pub(crate) fn people(message: &Message) -> Vec<String> {
    let mut names: Vec<String> = PEOPLE_FIELDS
        .iter()
        .flat_map(|f| message.header.list(f))
        .chain(
            message
                .conversation
                .iter()
                .flat_map(|c| [c.from.clone(), c.to.clone()])
                .flat_map(|list| comma_list(&list)),
        )
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The hub a wire name belongs to.
pub(crate) fn hub_of_name(name: &str) -> Option<&str> {
    name.split_once('@').map(|(_, hub)| hub)
}

/// A subject token for an agent's local name (`.` separates tokens, and agent ids never
/// contain `~`).
pub(crate) fn subject_token(agent: &str) -> String {
    agent.replace('.', "~")
}

/// The agent id a subject token stands for.
pub(crate) fn from_subject_token(token: &str) -> filebox_core::Result<AgentId> {
    AgentId::new(&token.replace('~', "."))
}

fn rename_all(message: &mut Message, rename: &dyn Fn(&str) -> String) {
    let rename_list = |list: &str| -> String {
        comma_list(list)
            .iter()
            .map(|n| rename(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for key in PEOPLE_FIELDS {
        if let Some(value) = message.header.get(key) {
            let renamed = rename_list(value);
            message.header.set(key, &renamed);
        }
    }
    for entry in &mut message.conversation {
        entry.from = rename_list(&entry.from);
        entry.to = rename_list(&entry.to);
    }
    for entry in &mut message.processing {
        entry.by = rename_list(&entry.by);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filebox_core::message::parse;

    const FILE: &str = "# ER: hello\n\n**Format Version:** 1.0\n**Message ID:** 0b0c\n\
        **Sender:** alice\n**Receiver:** bob@ci-1, carol\n**Timestamp:** 2025-01-01T00:00:00Z\n\
        **Original Sender:** alice\n**Current Owner:** alice\n\n## Original Request/Content\n\nhi\n";

    #[test]
    fn names_are_qualified_on_the_way_out_and_localised_on_the_way_in() {
        let mut message = parse(FILE).unwrap();
        to_wire(&mut message, "laptop");
        assert_eq!(message.header.get(field::SENDER), Some("alice@laptop"));
        assert_eq!(
            message.header.get(field::RECEIVER),
            Some("bob@ci-1, carol@laptop")
        );
        from_wire(&mut message, "ci-1");
        assert_eq!(message.header.get(field::SENDER), Some("alice@laptop"));
        assert_eq!(
            message.header.get(field::RECEIVER),
            Some("bob, carol@laptop")
        );
        from_wire(&mut message, "laptop");
        assert_eq!(message.header.get(field::RECEIVER), Some("bob, carol"));
        assert_eq!(people(&message), ["alice", "bob", "carol"]);
    }

    #[test]
    fn dotted_agent_names_survive_a_subject() {
        let token = subject_token("bob.smith");
        assert!(!token.contains('.'));
        assert_eq!(from_subject_token(&token).unwrap().as_str(), "bob.smith");
    }
}
