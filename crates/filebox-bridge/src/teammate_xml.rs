//! `<teammate-message>` blocks (Claude Code's `formatTeammateMessages`): how Claude Code puts
//! teammates' messages into a model's context. FileBox mail and team inbox messages render
//! alike. Unlike the original, attribute values are escaped; bodies are kept as they are.

use filebox_core::Message;
use filebox_core::message::field;

use crate::team_inbox::TeammateMessage;

/// The tag (Claude Code's `TEAMMATE_MESSAGE_TAG`).
pub const TAG: &str = "teammate-message";

/// One block: who said it, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub teammate_id: String,
    pub color: Option<String>,
    pub summary: Option<String>,
    pub body: String,
}

impl From<&TeammateMessage> for Block {
    fn from(message: &TeammateMessage) -> Self {
        Block {
            teammate_id: message.from.clone(),
            color: message.color.clone(),
            summary: message.summary.clone(),
            body: message.text.clone(),
        }
    }
}

/// A FileBox message as blocks: the original content from its original sender (its title as
/// the summary), then each conversation entry from whoever wrote it.
pub fn blocks_of(message: &Message) -> Vec<Block> {
    let header = &message.header;
    let original = header
        .get(field::ORIGINAL_SENDER)
        .or_else(|| header.get(field::SENDER))
        .unwrap_or_default();
    let first = Block {
        teammate_id: original.to_owned(),
        color: None,
        summary: Some(header.title.clone()).filter(|t| !t.is_empty()),
        body: message.body.clone(),
    };
    std::iter::once(first)
        .chain(message.conversation.iter().map(|entry| Block {
            teammate_id: entry.from.clone(),
            color: None,
            summary: None,
            body: entry.body.clone(),
        }))
        .collect()
}

/// The blocks, separated by a blank line, as Claude Code joins them.
pub fn render(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(render_one)
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn render_one(block: &Block) -> String {
    let mut open = format!("<{TAG} teammate_id=\"{}\"", escape(&block.teammate_id));
    for (name, value) in [("color", &block.color), ("summary", &block.summary)] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            open.push_str(&format!(" {name}=\"{}\"", escape(value)));
        }
    }
    format!("{open}>\n{}\n</{TAG}>", block.body)
}

/// An XML attribute value: `&`, `<`, `>`, `"` and `'` as entities, and line breaks and tabs as
/// character references so the value survives attribute normalization.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn renders_as_claude_code_does_with_attributes_escaped() {
        let blocks = [
            Block {
                teammate_id: "researcher".into(),
                color: Some("blue".into()),
                summary: Some("完成 API 文档分析".into()),
                body: "已分析了 src/api/ 目录下的 15 个文件".into(),
            },
            Block {
                teammate_id: "a\"b".into(),
                color: None,
                summary: Some("<x> & 'y'".into()),
                body: "<b>kept</b> & as is".into(),
            },
        ];
        assert_eq!(
            render(&blocks),
            "<teammate-message teammate_id=\"researcher\" color=\"blue\" summary=\"完成 API 文档分析\">\n\
             已分析了 src/api/ 目录下的 15 个文件\n\
             </teammate-message>\n\n\
             <teammate-message teammate_id=\"a&quot;b\" summary=\"&lt;x&gt; &amp; &apos;y&apos;\">\n\
             <b>kept</b> & as is\n\
             </teammate-message>"
        );
    }

    proptest! {
        #[test]
        fn an_escaped_value_holds_no_markup_and_unescapes_back(value in ".*") {
            let escaped = escape(&value);
            prop_assert!(!escaped.contains(['<', '>', '"', '\'', '\n', '\r']));
            let back = escaped
                .replace("&#9;", "\t").replace("&#13;", "\r").replace("&#10;", "\n")
                .replace("&apos;", "'").replace("&quot;", "\"").replace("&gt;", ">")
                .replace("&lt;", "<").replace("&amp;", "&");
            prop_assert_eq!(back, value);
        }
    }
}
