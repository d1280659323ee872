//! `search` and `reindex` over my mailbox or every mailbox of the config, each through its own
//! derived index.

use crate::agent::AgentId;
use crate::error::Result;
use crate::index::{self, Hit, Index, SearchQuery};
use crate::mailroom::Mailroom;

impl Mailroom {
    /// Search my mailbox (`everywhere`: every mailbox of the config): newest activity first,
    /// one hit per (mailbox, Message ID).
    pub fn search(&self, query: &SearchQuery, everywhere: bool) -> Result<Vec<Hit>> {
        let mut hits = Vec::new();
        for agent in self.scope(everywhere) {
            hits.extend(Index::open(&self.mailbox_to_read(&agent)?)?.search(query)?);
        }
        // Stable: within one mailbox the index's order stands.
        hits.sort_by(|a, b| b.activity.cmp(&a.activity));
        if query.limit > 0 {
            hits.truncate(query.limit);
        }
        Ok(hits)
    }

    /// Delete and rebuild the index of my mailbox (or of every mailbox); returns how many
    /// files each one indexed.
    pub fn reindex(&self, everywhere: bool) -> Result<Vec<(AgentId, usize)>> {
        self.scope(everywhere)
            .into_iter()
            .map(|agent| {
                let indexed = index::rebuild(&self.mailbox(&agent)?)?.file_count()?;
                Ok((agent, indexed))
            })
            .collect()
    }

    fn scope(&self, everywhere: bool) -> Vec<AgentId> {
        if everywhere {
            self.agents().cloned().collect()
        } else {
            vec![self.me().clone()]
        }
    }
}
