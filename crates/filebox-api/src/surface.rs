//! [`Surface`]: who reads a next step or a hint, and so how a verb is named in it (a tool name
//! for a model, a `filebox` command on the command line).

use crate::verb::Verb;

/// Who reads a next step, and so how a verb is named in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// A model or program calling tools and methods (MCP, JSON-RPC, Connect): `list_agents`.
    Tools,
    /// A person or script at the command line: `` `filebox agents` ``.
    CommandLine,
}

impl Surface {
    /// The verb `V`, with its message or question `id` when the step is about one:
    /// `get_answer {"id": "ID"}`, or `` `filebox answer ID` ``.
    pub fn verb<V: Verb>(self, id: Option<&str>) -> String {
        match self {
            Surface::Tools => match id {
                Some(id) => format!("{} {{\"id\": \"{id}\"}}", V::NAME),
                None => V::NAME.to_owned(),
            },
            Surface::CommandLine => match id {
                Some(id) => format!("`filebox {} {id}`", V::CLI),
                None => format!("`filebox {}`", V::CLI),
            },
        }
    }

    /// How a sentence asks for a verb: "Call" a tool, "Run" a command.
    pub fn call(self) -> &'static str {
        match self {
            Surface::Tools => "Call",
            Surface::CommandLine => "Run",
        }
    }
}
