//! The entry keys of one folder as last indexed (a sorted set of numbers, one per file name
//! and inode; see `sync::entry_key`), kept as two parts so that a delivery into a folder of
//! 100,000 files does not rewrite 800 KB: the set its last listing recorded (`base`, stored in
//! its own row of `entries` and rewritten only when the folder is listed again or the changes
//! grow large) and what the journal changed since (`added`, `removed`: small, stored in the
//! folder's `dirs` row).

use rusqlite::{OptionalExtension, Transaction, params};

/// The changes since the base past which they are folded into a new base (16 KB of keys).
const FOLD_AT: usize = 2_048;

/// A folder's entry keys: `base` minus `removed` plus `added`. Each part is sorted; `removed`
/// is a subset of `base` and `added` shares nothing with it.
#[derive(Debug, Default)]
pub(super) struct Keys {
    base: Vec<i64>,
    added: Vec<i64>,
    removed: Vec<i64>,
    /// `base` differs from the stored one and is written by [`Keys::store`].
    base_changed: bool,
}

impl Keys {
    /// A set a listing just found (sorted): the new base.
    pub(super) fn listed(keys: Vec<i64>) -> Keys {
        Keys {
            base: keys,
            added: Vec::new(),
            removed: Vec::new(),
            base_changed: true,
        }
    }

    /// The folder's keys as stored; empty when the index holds none for it.
    pub(super) fn load(tx: &Transaction<'_>, folder: &str) -> rusqlite::Result<Keys> {
        let base: Option<Vec<u8>> = tx
            .prepare_cached("SELECT keys FROM entries WHERE folder = ?1")?
            .query_row([folder], |r| r.get(0))
            .optional()?;
        let (added, removed): (Option<Vec<u8>>, Option<Vec<u8>>) = tx
            .prepare_cached("SELECT added, removed FROM dirs WHERE folder = ?1")?
            .query_row([folder], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or_default();
        Ok(Keys {
            base: decode(base.as_deref()),
            added: decode(added.as_deref()),
            removed: decode(removed.as_deref()),
            base_changed: false,
        })
    }

    pub(super) fn contains(&self, key: i64) -> bool {
        has(&self.added, key) || (has(&self.base, key) && !has(&self.removed, key))
    }

    pub(super) fn insert(&mut self, key: i64) {
        if has(&self.base, key) {
            take(&mut self.removed, key);
        } else {
            put(&mut self.added, key);
        }
    }

    pub(super) fn remove(&mut self, key: i64) {
        if has(&self.base, key) {
            put(&mut self.removed, key);
        } else {
            take(&mut self.added, key);
        }
    }

    /// Every key, sorted.
    pub(super) fn all(&self) -> Vec<i64> {
        let mut all: Vec<i64> = self
            .base
            .iter()
            .copied()
            .filter(|k| !has(&self.removed, *k))
            .chain(self.added.iter().copied())
            .collect();
        all.sort_unstable();
        all
    }

    /// Write the folder's keys: the changes into its `dirs` row (which must exist: written just
    /// before), and the base into `entries` when it changed or the changes are folded into it.
    pub(super) fn store(mut self, tx: &Transaction<'_>, folder: &str) -> rusqlite::Result<()> {
        if self.added.len() + self.removed.len() >= FOLD_AT {
            self = Keys::listed(self.all());
        }
        if self.base_changed {
            tx.prepare_cached("INSERT OR REPLACE INTO entries(folder, keys) VALUES (?1, ?2)")?
                .execute(params![folder, encode(&self.base)])?;
        }
        tx.prepare_cached("UPDATE dirs SET added = ?2, removed = ?3 WHERE folder = ?1")?
            .execute(params![folder, encode(&self.added), encode(&self.removed)])?;
        Ok(())
    }
}

fn has(sorted: &[i64], key: i64) -> bool {
    sorted.binary_search(&key).is_ok()
}

fn put(sorted: &mut Vec<i64>, key: i64) {
    if let Err(at) = sorted.binary_search(&key) {
        sorted.insert(at, key);
    }
}

fn take(sorted: &mut Vec<i64>, key: i64) {
    if let Ok(at) = sorted.binary_search(&key) {
        sorted.remove(at);
    }
}

/// Sorted keys as one blob: reading them is one row however many files the folder holds.
fn encode(keys: &[i64]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}

fn decode(blob: Option<&[u8]>) -> Vec<i64> {
    blob.unwrap_or_default()
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn the_two_parts_hold_the_same_set_as_one_sorted_list() {
        let mut keys = Keys::listed((0..100).map(|k| k * 3).collect());
        let mut model: BTreeSet<i64> = keys.all().into_iter().collect();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..10_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let key = (state % 400) as i64;
            if state.is_multiple_of(3) {
                keys.remove(key);
                model.remove(&key);
            } else {
                keys.insert(key);
                model.insert(key);
            }
            assert_eq!(keys.contains(key), model.contains(&key));
        }
        assert_eq!(keys.all(), model.into_iter().collect::<Vec<_>>());
        assert!(keys.removed.iter().all(|k| has(&keys.base, *k)));
        assert!(keys.added.iter().all(|k| !has(&keys.base, *k)));
    }

    #[test]
    fn stored_changes_are_read_back_and_folded_into_the_base_when_large() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(crate::index::SCHEMA).unwrap();
        let tx = conn.transaction().unwrap();
        let dirs_row = || {
            tx.execute("INSERT OR REPLACE INTO dirs(folder) VALUES ('inbox')", [])
                .unwrap()
        };
        dirs_row();
        Keys::listed(vec![1, 2, 3]).store(&tx, "inbox").unwrap();
        let mut keys = Keys::load(&tx, "inbox").unwrap();
        keys.remove(2);
        keys.insert(10);
        dirs_row();
        keys.store(&tx, "inbox").unwrap();
        let keys = Keys::load(&tx, "inbox").unwrap();
        assert_eq!(keys.all(), [1, 3, 10]);
        assert_eq!((keys.base.len(), keys.added.len()), (3, 1));
        let mut keys = Keys::load(&tx, "inbox").unwrap();
        for key in 100..100 + FOLD_AT as i64 {
            keys.insert(key);
        }
        dirs_row();
        keys.store(&tx, "inbox").unwrap();
        let keys = Keys::load(&tx, "inbox").unwrap();
        assert!(keys.added.is_empty() && keys.removed.is_empty());
        assert_eq!(keys.base.len(), 3 + FOLD_AT);
    }

    #[test]
    fn keys_round_trip_through_a_blob() {
        let keys = [i64::MIN, -1, 0, 7, i64::MAX];
        assert_eq!(decode(Some(&encode(&keys))), keys);
        assert!(decode(None).is_empty());
    }
}
