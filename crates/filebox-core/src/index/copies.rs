//! Finding the copies of a message in a mailbox and the one that speaks for it
//! (`crate::mailbox::copy` says which): read whole, after the moves in flight, so a copy being
//! rewritten right now is not passed over for an older one elsewhere.

use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::copy::speaking;
use crate::mailbox::{Envelope, Mailbox, MessageRef, describe_folders};
use crate::message::{FileName, Message};
use crate::store;

impl Mailbox {
    /// The copy of the message `reference` names that speaks for it here (see the module), among
    /// `folders`, read whole. The moves in flight are waited for before looking, so a copy being
    /// rewritten right now (claimed, in no folder for a moment) is not passed over for an older
    /// one elsewhere; when no copy is found (or every one moved on while being read), the moves
    /// that started meanwhile are waited for and the copies looked for once more.
    pub fn speaking_copy(
        &self,
        reference: &MessageRef,
        folders: &[Folder],
    ) -> Result<(Envelope, Message)> {
        self.speaking_of(reference, folders, || self.read_copies(reference, folders))
    }

    /// The copy of message `id` that speaks for it here (as [`Mailbox::speaking_copy`]), its
    /// copies looked for first under `name` ([`Mailbox::read_copies_named`]).
    pub fn speaking_copy_named(
        &self,
        id: &str,
        name: &FileName,
        folders: &[Folder],
    ) -> Result<(Envelope, Message)> {
        let reference = MessageRef::Id(id.to_owned());
        self.speaking_of(&reference, folders, || {
            self.read_copies_named(id, name, folders)
        })
    }

    /// The copy that speaks among those `read_copies` gives, after the moves in flight (see
    /// [`Mailbox::speaking_copy`]).
    fn speaking_of(
        &self,
        reference: &MessageRef,
        folders: &[Folder],
        read_copies: impl Fn() -> Result<Vec<(Envelope, Message)>>,
    ) -> Result<(Envelope, Message)> {
        store::wait_for_moves(&self.tmp())?;
        let mut copies = read_copies()?;
        if copies.is_empty() {
            store::wait_for_moves(&self.tmp())?;
            copies = read_copies()?;
        }
        let at = speaking(&copies)
            .and_then(|speaking| copies.iter().position(|copy| std::ptr::eq(copy, speaking)))
            .ok_or_else(|| Error::NotFound {
                reference: reference.text().to_owned(),
                searched: describe_folders(self, folders),
            })?;
        Ok(copies.swap_remove(at))
    }

    /// Find the copy that speaks for a message (as [`Mailbox::speaking_copy`]) and run
    /// `use_file` on it; when the file was moved or rewritten under it (not found), find the
    /// speaking copy again and run `use_file` once more.
    pub fn with_speaking_copy<T>(
        &self,
        reference: &MessageRef,
        folders: &[Folder],
        use_file: impl Fn(&Envelope) -> Result<T>,
    ) -> Result<(Envelope, T)> {
        let (envelope, _) = self.speaking_copy(reference, folders)?;
        match use_file(&envelope) {
            Err(e) if store::is_not_found(&e) => {
                let (envelope, _) = self.speaking_copy(reference, folders)?;
                let used = use_file(&envelope)?;
                Ok((envelope, used))
            }
            used => Ok((envelope, used?)),
        }
    }

    /// Every copy of the message `reference` names in `folders`, read whole, in the order of
    /// `folders`; a copy that moved on between being found and being read is left out. Copies
    /// of different messages (a short id two of them share) are ambiguous.
    pub(crate) fn read_copies(
        &self,
        reference: &MessageRef,
        folders: &[Folder],
    ) -> Result<Vec<(Envelope, Message)>> {
        let mut copies: Vec<(Envelope, Message)> = Vec::new();
        for &folder in folders {
            let Some(envelope) = self.find_in(reference, folder)? else {
                continue;
            };
            if let Some((first, _)) = copies.first()
                && first.header.id() != envelope.header.id()
            {
                return Err(Error::Ambiguous {
                    reference: reference.text().to_owned(),
                    candidates: vec![
                        format!("{}/{}", first.folder, first.file),
                        format!("{}/{}", envelope.folder, envelope.file),
                    ],
                });
            }
            match self.read(&envelope) {
                Ok(message) => copies.push((envelope, message)),
                Err(e) if store::is_not_found(&e) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(copies)
    }

    /// Every copy of message `id` in `folders` (as [`Mailbox::read_copies`]), looked for first
    /// under `name`, the file name of a copy of it found elsewhere. filebox gives every copy
    /// of a message one name in every mailbox and folder (a send writes the recipients' copies
    /// and the sender's record under one name, a reply or a move keeps it), so this costs an
    /// open per folder where a look-up by id reads every folder the index is not current for:
    /// a hub answering each send with its recipients' status would otherwise read each
    /// recipient's whole inbox per send. When no file of that name holds message `id`, by id.
    /// A copy of `id` that another tool wrote under another name beside a named one is not
    /// seen, the rule a send follows when it finishes an interrupted delivery (a recipient
    /// holds the message when it holds a file of its name).
    pub(crate) fn read_copies_named(
        &self,
        id: &str,
        name: &FileName,
        folders: &[Folder],
    ) -> Result<Vec<(Envelope, Message)>> {
        match self.read_copies(&MessageRef::File(name.clone()), folders) {
            // Copies of one message (`read_copies` refuses a mix): that they are `id`'s.
            Ok(copies)
                if copies
                    .first()
                    .is_some_and(|(copy, _)| copy.header.id().eq_ignore_ascii_case(id)) =>
            {
                Ok(copies)
            }
            // None by that name, or files of that name holding other messages: by id.
            Ok(_) | Err(Error::Ambiguous { .. }) => {
                self.read_copies(&MessageRef::Id(id.to_owned()), folders)
            }
            Err(e) => Err(e),
        }
    }
}
