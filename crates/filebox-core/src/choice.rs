//! Closed sets of names (folder, priority, source type, status, fork reason, agent kind): one
//! declaration each gives the Rust enum, its wire name, parsing, `Display`, serde and the JSON
//! Schema `enum`, so every surface (CLI values, MCP schemas, JSON-RPC) offers the same names.

/// A value from a fixed set of lower-case names.
pub trait Choice: Copy + Eq + 'static {
    /// What the set is called in an error message ("folder", "priority", ...).
    const WHAT: &'static str;
    /// Every value, in the order help texts list them.
    const VALUES: &'static [Self];

    /// The wire name.
    fn as_str(self) -> &'static str;

    /// The value with this name (case and surrounding blanks ignored), if any.
    fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        Self::VALUES
            .iter()
            .copied()
            .find(|choice| choice.as_str().eq_ignore_ascii_case(value))
    }

    /// "inbox, outbox, done, cancel or hold".
    fn listed() -> String {
        let names: Vec<&str> = Self::VALUES.iter().map(|c| c.as_str()).collect();
        match names.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// Parse a caller's value, or say which names are accepted.
    fn parse_arg(value: &str) -> crate::Result<Self> {
        Self::parse(value).ok_or_else(|| crate::Error::Invalid {
            what: Self::WHAT,
            value: value.to_owned(),
            reason: format!("expected {}", Self::listed()).into(),
        })
    }
}

/// Declare an enum of a closed set: `choice! { /// doc  pub enum Folder("folder") {
/// Inbox => "inbox", ... } }`. Derives serde (by name), `JsonSchema` (a string `enum`),
/// `Display`, `FromStr` and [`Choice`]. Variants are explained in `//` comments: a `///` doc
/// would turn the schema's `enum` into a longer `oneOf`, which every tool list would carry.
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident => $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, schemars::JsonSchema,
        )]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant ),+
        }

        impl $crate::choice::Choice for $name {
            const WHAT: &'static str = $what;
            const VALUES: &'static [Self] = &[$(Self::$variant),+];
            fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $wire),+ }
            }
        }

        impl $name {
            /// The wire name.
            pub fn as_str(self) -> &'static str {
                $crate::choice::Choice::as_str(self)
            }

            /// The value with this name (case and surrounding blanks ignored), if any.
            pub fn parse(value: &str) -> Option<Self> {
                <Self as $crate::choice::Choice>::parse(value)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(value: &str) -> $crate::Result<Self> {
                <Self as $crate::choice::Choice>::parse_arg(value)
            }
        }
    };
}
pub(crate) use choice;

choice! {
    /// Who a config entry is: an agent (default) or a human, whose mailbox a person reads.
    pub enum AgentKind("agent kind") {
        Agent => "agent",
        Human => "human",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Folder, ForkReason, Priority, SourceType, Status};

    fn round_trips<T: Choice + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned>() {
        for &value in T::VALUES {
            let json = serde_json::to_value(value).unwrap();
            assert_eq!(json, serde_json::json!(value.as_str()));
            assert_eq!(serde_json::from_value::<T>(json).unwrap(), value);
            assert_eq!(
                T::parse(&format!(" {} ", value.as_str().to_uppercase())),
                Some(value)
            );
        }
        assert_eq!(T::parse("nonsense"), None);
    }

    #[test]
    fn every_set_round_trips_through_its_names() {
        round_trips::<Folder>();
        round_trips::<Priority>();
        round_trips::<SourceType>();
        round_trips::<Status>();
        round_trips::<ForkReason>();
        round_trips::<AgentKind>();
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_accepted_ones() {
        let error = "urgentish".parse::<Priority>().unwrap_err().to_string();
        assert_eq!(
            error,
            "invalid priority \"urgentish\": expected normal or urgent"
        );
    }

    #[test]
    fn the_schema_is_an_enum_of_the_names() {
        let schema = serde_json::to_value(schemars::schema_for!(Folder)).unwrap();
        assert_eq!(
            schema["enum"],
            serde_json::json!(["inbox", "outbox", "done", "cancel", "hold"])
        );
    }
}
