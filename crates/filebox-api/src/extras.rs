//! What a surface passes to `send_message` beside its schema arguments: [`Extras`], header
//! fields of a new message that no tool schema shows (the hub's `threadId`, `callback` and
//! `metadata`). What comes back beside the result is `send_message`'s `Sent`.

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
