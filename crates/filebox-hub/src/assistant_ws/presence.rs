//! Who is connected over `/ws`: per human, the logged-in clients (id, nickname, since when)
//! and a bounded channel to each, for the online list, chat, connection notices, and who
//! answered a question. Connection state only, gone with the connections; never mail: chat
//! between clients is not stored (the origin does not keep it either).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use filebox_core::AgentId;
use tokio::sync::mpsc;

use super::proto::{OnlineUser, UserConnectionStatusNotification, WebsocketMessage, cmd};

/// How many "who answered" notes are kept (each is read once, right after the answer).
const ANSWERS_KEPT: usize = 256;

/// The connected clients of every human.
#[derive(Default)]
pub(super) struct Presence {
    peers: Mutex<HashMap<String, Peer>>,
    /// Question id → the answering client's id and nickname, newest last.
    answered_by: Mutex<VecDeque<(String, String, String)>>,
}

struct Peer {
    human: AgentId,
    user: OnlineUser,
    outbox: mpsc::Sender<WebsocketMessage>,
}

impl Presence {
    /// `user` of `human` is connected: the others of that human are told.
    pub(super) fn join(
        &self,
        human: &AgentId,
        user: OnlineUser,
        outbox: mpsc::Sender<WebsocketMessage>,
    ) {
        self.tell_others(human, &user, "connected");
        let peer = Peer {
            human: human.clone(),
            user: user.clone(),
            outbox,
        };
        self.lock().insert(user.client_id.clone(), peer);
    }

    /// Client `client_id` left: the others of its human are told.
    pub(super) fn leave(&self, client_id: &str) {
        let left = self.lock().remove(client_id);
        if let Some(peer) = left {
            self.tell_others(&peer.human, &peer.user, "disconnected");
        }
    }

    /// The clients connected as `human`.
    pub(super) fn online(&self, human: &AgentId) -> Vec<OnlineUser> {
        let mut users: Vec<OnlineUser> = self
            .lock()
            .values()
            .filter(|peer| &peer.human == human)
            .map(|peer| peer.user.clone())
            .collect();
        users.sort_by(|a, b| (a.connected_at, &a.client_id).cmp(&(b.connected_at, &b.client_id)));
        users
    }

    /// The nickname of client `client_id` of `human`, if it is connected.
    pub(super) fn nickname(&self, human: &AgentId, client_id: &str) -> Option<String> {
        self.lock()
            .get(client_id)
            .filter(|peer| &peer.human == human)
            .map(|peer| peer.user.nickname.clone())
    }

    /// Send `message` to client `client_id` of `human`; `false` if it is not connected. A
    /// client whose channel is full (it takes nothing) misses the message.
    pub(super) fn send_to(
        &self,
        human: &AgentId,
        client_id: &str,
        message: WebsocketMessage,
    ) -> bool {
        let peers = self.lock();
        match peers.get(client_id).filter(|peer| &peer.human == human) {
            Some(peer) => {
                let _ = peer.outbox.try_send(message);
                true
            }
            None => false,
        }
    }

    /// Note that client `client_id` (`nickname`) answered question `id`.
    pub(super) fn answered(&self, id: &str, client_id: &str, nickname: &str) {
        let mut notes = self.answers();
        if notes.len() == ANSWERS_KEPT {
            notes.pop_front();
        }
        notes.push_back((id.to_owned(), client_id.to_owned(), nickname.to_owned()));
    }

    /// Take back the note that client `client_id` answered question `id` (its answer was
    /// refused).
    pub(super) fn not_answered(&self, id: &str, client_id: &str) {
        let mut notes = self.answers();
        if let Some(at) = notes
            .iter()
            .rposition(|(question, client, _)| question == id && client == client_id)
        {
            notes.remove(at);
        }
    }

    /// Who answered question `id` over `/ws`: (client id, nickname), if a client here did.
    pub(super) fn who_answered(&self, id: &str) -> Option<(String, String)> {
        self.answers()
            .iter()
            .rev()
            .find(|(question, _, _)| question == id)
            .map(|(_, client, nickname)| (client.clone(), nickname.clone()))
    }

    fn tell_others(&self, human: &AgentId, user: &OnlineUser, status: &str) {
        let notice = WebsocketMessage {
            cmd: cmd::USER_CONNECTION_STATUS.to_owned(),
            user_connection_status_notification: Some(UserConnectionStatusNotification {
                user: Some(user.clone()),
                status: status.to_owned(),
                timestamp: filebox_core::time::now().as_second(),
            }),
            ..WebsocketMessage::default()
        };
        for peer in self.lock().values() {
            if &peer.human == human && peer.user.client_id != user.client_id {
                let _ = peer.outbox.try_send(notice.clone());
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Peer>> {
        // A panic elsewhere while holding it leaves a map that is still whole.
        self.peers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn answers(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, String, String)>> {
        self.answered_by
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(client_id: &str) -> OnlineUser {
        OnlineUser {
            client_id: client_id.to_owned(),
            nickname: format!("nick-{client_id}"),
            connected_at: 0,
        }
    }

    #[test]
    fn past_the_bound_the_oldest_answer_note_is_forgotten_and_the_newest_kept() {
        let presence = Presence::default();
        for n in 0..=ANSWERS_KEPT {
            presence.answered(&format!("q{n}"), &format!("c{n}"), "nick");
        }
        assert_eq!(presence.answers().len(), ANSWERS_KEPT);
        // The first note made room for the last: its question has no answerer known here.
        assert_eq!(presence.who_answered("q0"), None);
        assert_eq!(
            presence.who_answered("q1"),
            Some(("c1".to_owned(), "nick".to_owned()))
        );
        let last = format!("q{ANSWERS_KEPT}");
        assert_eq!(
            presence.who_answered(&last),
            Some((format!("c{ANSWERS_KEPT}"), "nick".to_owned()))
        );
    }

    #[test]
    fn a_client_that_leaves_is_forgotten_and_the_others_told() {
        let presence = Presence::default();
        let human = AgentId::new("ana").unwrap();
        let (first_outbox, mut first_inbox) = mpsc::channel(4);
        let (second_outbox, _second_inbox) = mpsc::channel(4);
        presence.join(&human, user("a"), first_outbox);
        presence.join(&human, user("b"), second_outbox);
        assert_eq!(presence.online(&human).len(), 2);
        presence.leave("b");
        assert_eq!(presence.online(&human), vec![user("a")]);
        assert!(presence.lock().get("b").is_none());
        let told: Vec<String> = std::iter::from_fn(|| first_inbox.try_recv().ok())
            .filter_map(|m| m.user_connection_status_notification)
            .map(|n| n.status)
            .collect();
        assert_eq!(told, ["connected", "disconnected"]);
    }
}
