//! Ids derived from what they name, so a retried write is recognised by its id.

use sha2::{Digest, Sha256};

/// A UUID-shaped id derived from `parts`: the same parts always give the same id, different
/// ones different ids (so a retried write is recognised by it).
pub(super) fn derived_uuid(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}
