//! Attachments: binary parts of a message (images, audio, files) stored beside the Markdown in
//! `<mailbox>/attachments/<message-id>/`, and referenced from the body by relative links, so a
//! message with attachments still reads well as a file. Every folder is one level below the
//! mailbox root, so the link `../attachments/<id>/<name>` works from any of them.
//!
//! A link carries the MIME type as its Markdown title: `![a.png](../attachments/ID/a.png "image/png")`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fs::beneath::{self, Place};
use crate::mailbox::Mailbox;
use crate::store;

/// The folder under a mailbox root that holds attachments.
pub const FOLDER: &str = "attachments";
/// The longest attachment file name kept, in bytes.
const MAX_NAME_BYTES: usize = 100;

/// An attachment to store with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file name the sender gave; made safe before it is used on disk.
    pub name: String,
    /// The MIME type; guessed from the name when absent.
    pub mime: Option<String>,
    pub bytes: Vec<u8>,
}

/// An attachment a message body links to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AttachmentRef {
    /// The file name in `attachments/<message-id>/`.
    pub name: String,
    pub mime: String,
}

impl AttachmentRef {
    /// The Markdown line that links to it from a message of `id`: an image is shown inline.
    fn link(&self, id: &str) -> String {
        let bang = if self.mime.starts_with("image/") {
            "!"
        } else {
            ""
        };
        format!(
            "{bang}[{name}](../{FOLDER}/{id}/{name} \"{mime}\")",
            name = self.name,
            mime = self.mime
        )
    }
}

/// A file name safe to store: ASCII letters, digits, `.`, `_` and `-` (anything else becomes
/// `-`), no leading dot, bounded; `attachment` when nothing is left.
pub fn safe_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let mut safe: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    safe = safe.trim_start_matches('.').to_owned();
    if safe.len() > MAX_NAME_BYTES {
        // Keep the extension: it says what the file is.
        let extension = safe
            .rfind('.')
            .map(|dot| safe[dot..].to_owned())
            .filter(|e| e.len() <= 10)
            .unwrap_or_default();
        safe.truncate(MAX_NAME_BYTES - extension.len());
        safe.push_str(&extension);
    }
    if safe.trim_matches(['.', '-', '_']).is_empty() {
        "attachment".to_owned()
    } else {
        safe
    }
}

/// The MIME type of a file name, from its extension.
pub fn guess_mime(name: &str) -> &'static str {
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "m4a" => "audio/mp4",
        "webm" | "weba" => "audio/webm",
        "txt" | "log" => "text/plain",
        "md" => "text/markdown",
        "json" => "application/json",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// A MIME type as given by a caller, if it is a plausible `type/subtype`.
fn checked_mime(mime: Option<&str>, name: &str) -> String {
    mime.map(|m| m.split(';').next().unwrap_or_default().trim())
        .filter(|m| {
            m.split_once('/')
                .is_some_and(|(t, s)| !t.is_empty() && !s.is_empty())
                && m.len() <= 100
                && m.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '+' | '-'))
        })
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| guess_mime(name).to_owned())
}

/// A Message ID as a folder name: it must be one path component.
fn id_folder(id: &str) -> Result<&str> {
    let valid = !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    if valid {
        Ok(id)
    } else {
        Err(Error::invalid(
            "message id",
            id,
            "attachments need a Message ID of letters, digits, `-` and `_`",
        ))
    }
}

impl Mailbox {
    /// The folder of a message's attachments.
    fn attachment_dir(&self, id: &str) -> Result<PathBuf> {
        Ok(self.root().join(FOLDER).join(id_folder(id)?))
    }

    /// Create the attachment folder `dir` of a message, never through a symlink.
    fn create_attachment_dir(&self, dir: &Path) -> Result<()> {
        beneath::create_dir(self.root(), dir).map_err(|e| store::refuse_link(dir, e))
    }

    /// Read an attachment of message `id`. Only names [`safe_name`] would produce are accepted,
    /// so no caller can reach outside the folder; symlinks are not followed.
    pub fn read_attachment(&self, id: &str, name: &str) -> Result<Vec<u8>> {
        if safe_name(name) != name {
            return Err(Error::invalid(
                "attachment name",
                name,
                "not the name of a stored attachment",
            ));
        }
        let path = self.attachment_dir(id)?.join(name);
        store::read_regular_in(Place::new(self.root(), &path))
    }

    /// Store an attachment of message `id` that travelled from another machine under the name
    /// it has there (links in the message name it). Idempotent: `false` when the same bytes
    /// are there already; another file of that name for this message is an error, never
    /// overwritten.
    pub fn keep_travelled_attachment(&self, id: &str, name: &str, bytes: &[u8]) -> Result<bool> {
        if safe_name(name) != name {
            return Err(Error::invalid(
                "attachment name",
                name,
                "not a name FileBox stores attachments under",
            ));
        }
        let dir = self.attachment_dir(id)?;
        self.create_attachment_dir(&dir)?;
        match store::publish_new(&self.tmp(), &dir, name, bytes) {
            Ok(_) => Ok(true),
            Err(e) if store::already_exists(&e) => {
                if self.read_attachment(id, name)? == bytes {
                    Ok(false)
                } else {
                    Err(Error::invalid(
                        "attachment",
                        name,
                        "another file of that name is stored for this message already",
                    ))
                }
            }
            Err(e) => Err(e),
        }
    }
}

/// `body` with links to `attachments` of message `id`, stored first in every mailbox that will
/// hold a copy (see [`store_all`]). Without attachments the body is returned as it is.
pub(crate) fn attach(
    mailboxes: &[Mailbox],
    id: &str,
    body: &str,
    attachments: &[Attachment],
    limit: usize,
) -> Result<String> {
    if attachments.is_empty() {
        return Ok(body.to_owned());
    }
    let links = store_all(mailboxes, id, attachments, limit)?.join("\n");
    let text = body.trim_end();
    Ok(if text.is_empty() {
        links
    } else {
        format!("{text}\n\n{links}")
    })
}

/// Store `attachments` of message `id` in every mailbox that will hold a copy of it, before
/// the message is published, so its links never dangle. Each name is made safe and unique
/// in all of those mailboxes. Returns the Markdown lines that link to them.
pub(crate) fn store_all(
    mailboxes: &[Mailbox],
    id: &str,
    attachments: &[Attachment],
    limit: usize,
) -> Result<Vec<String>> {
    let mut links = Vec::with_capacity(attachments.len());
    for attachment in attachments {
        if attachment.bytes.len() > limit {
            return Err(Error::invalid(
                "attachment",
                &attachment.name,
                "larger than max_body_bytes in the config",
            ));
        }
        let name = safe_name(&attachment.name);
        let stored = AttachmentRef {
            mime: checked_mime(attachment.mime.as_deref(), &name),
            name: store_one(mailboxes, id, &name, &attachment.bytes)?,
        };
        links.push(stored.link(id));
    }
    Ok(links)
}

/// Publish one attachment under `name`, or `stem-2.ext`, `stem-3.ext`, ... when a mailbox
/// already holds that name for this message (a second answer in the same conversation).
fn store_one(mailboxes: &[Mailbox], id: &str, name: &str, bytes: &[u8]) -> Result<String> {
    let (stem, extension) = match name.rfind('.') {
        Some(dot) if dot > 0 => (&name[..dot], &name[dot..]),
        _ => (name, ""),
    };
    for n in 1.. {
        let candidate = if n == 1 {
            name.to_owned()
        } else {
            format!("{stem}-{n}{extension}")
        };
        let mut taken = false;
        for mailbox in mailboxes {
            let dir = mailbox.attachment_dir(id)?;
            mailbox.create_attachment_dir(&dir)?;
            match store::publish_new(&mailbox.tmp(), &dir, &candidate, bytes) {
                Ok(_) => {}
                Err(e) if store::already_exists(&e) => {
                    taken = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !taken {
            return Ok(candidate);
        }
    }
    unreachable!("an unbounded range always yields another candidate")
}

/// Split a body into its text and the attachments of message `id` it links to: lines that
/// hold only such a link are taken out of the text.
pub fn split_links(body: &str, id: &str) -> (String, Vec<AttachmentRef>) {
    let prefix = format!("](../{FOLDER}/{id}/");
    let mut text = Vec::new();
    let mut found = Vec::new();
    for line in body.lines() {
        match parse_link(line.trim(), &prefix) {
            Some(attachment) => found.push(attachment),
            None => text.push(line),
        }
    }
    (text.join("\n").trim_end().to_owned(), found)
}

/// `[name](../attachments/ID/name "mime")` (or `![...]`) → the attachment.
fn parse_link(line: &str, prefix: &str) -> Option<AttachmentRef> {
    let rest = line.strip_prefix('!').unwrap_or(line).strip_prefix('[')?;
    let (_label, target) = rest.split_once(prefix)?;
    let target = target.strip_suffix(')')?;
    let (name, mime) = match target.split_once(" \"") {
        Some((name, title)) => (name, title.strip_suffix('"').map(str::to_owned)),
        None => (target, None),
    };
    (safe_name(name) == name).then(|| AttachmentRef {
        name: name.to_owned(),
        mime: mime.unwrap_or_else(|| guess_mime(name).to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentId;

    #[test]
    fn names_are_made_safe_and_keep_their_extension() {
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("my photo (1).PNG"), "my-photo--1-.PNG");
        assert_eq!(safe_name(".hidden"), "hidden");
        assert_eq!(safe_name(".."), "attachment");
        assert_eq!(safe_name("图片.png"), "--.png");
        let long = format!("{}.png", "a".repeat(300));
        assert_eq!(safe_name(&long).len(), MAX_NAME_BYTES);
        assert!(safe_name(&long).ends_with(".png"));
    }

    #[test]
    fn stored_attachments_are_linked_and_read_back_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let a = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let b = Mailbox::open(AgentId::new("b").unwrap(), dir.path().join("b")).unwrap();
        let png = Attachment {
            name: "shot.png".into(),
            mime: None,
            bytes: vec![0x89, b'P', b'N', b'G'],
        };
        let voice = Attachment {
            name: "voice.webm".into(),
            mime: Some("audio/webm;codecs=opus".into()),
            bytes: vec![1, 2, 3],
        };
        let id = "1234abcd-0000";
        let links = store_all(&[a.clone(), b.clone()], id, &[png.clone(), voice], 1024).unwrap();
        assert_eq!(
            links,
            [
                "![shot.png](../attachments/1234abcd-0000/shot.png \"image/png\")",
                "[voice.webm](../attachments/1234abcd-0000/voice.webm \"audio/webm\")",
            ]
        );
        // A second attachment of the same name for the same message gets its own name.
        let again = store_all(
            &[a.clone(), b.clone()],
            id,
            std::slice::from_ref(&png),
            1024,
        )
        .unwrap();
        assert!(again[0].contains("/shot-2.png "), "{again:?}");
        for mailbox in [&a, &b] {
            assert_eq!(mailbox.read_attachment(id, "shot.png").unwrap(), png.bytes);
        }
        assert!(a.read_attachment(id, "../a/inbox").is_err());
        assert!(a.read_attachment("../x", "shot.png").is_err());

        let body = format!("Looks good.\n\n{}\n{}", links[0], links[1]);
        let (text, found) = split_links(&body, id);
        assert_eq!(text, "Looks good.");
        assert_eq!(
            found,
            [
                AttachmentRef {
                    name: "shot.png".into(),
                    mime: "image/png".into()
                },
                AttachmentRef {
                    name: "voice.webm".into(),
                    mime: "audio/webm".into()
                },
            ]
        );
        let too_big = store_all(&[a], id, &[png], 2);
        assert!(matches!(too_big, Err(Error::Invalid { .. })));
    }
}
