//! What a surface passes to `send_message` beside its schema arguments, and what it gets back
//! beside the verb's result: [`Extras`], header fields of a new message that no tool schema
//! shows (the hub's `threadId`, `callback` and `metadata`), and [`Sent`], the outcome with
//! the sender's copy as the call wrote it, so an answer is built without reading it back.

use crate::outcome::Outcome;
use crate::verbs::SendResult;
use crate::views::MessageDetail;

/// Header fields written into a new message beside the verb's arguments (a reply continues
/// its message's header and takes none). Fields without a value are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extras {
    fields: Vec<(&'static str, String)>,
}

impl Extras {
    /// The field `name` with `value`, when there is one.
    pub fn with(mut self, name: &'static str, value: Option<String>) -> Extras {
        if let Some(value) = value {
            self.fields.push((name, value));
        }
        self
    }

    /// The fields as the core writes them.
    pub(crate) fn fields(&self) -> Vec<(&str, &str)> {
        self.fields
            .iter()
            .map(|(name, value)| (*name, value.as_str()))
            .collect()
    }
}

/// A send's outcome and the sender's copy as the call wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub outcome: Outcome<SendResult>,
    /// A new message: my outbox record, its status how far the recipients got at that moment;
    /// a reply: my copy of the message it answered. `None` for a repeat of a keyed send that
    /// an earlier send answered (nothing was written: the caller reads the record).
    pub record: Option<MessageDetail>,
}
