//! `search` and `reindex` over my mailbox or every mailbox of the config, each through its own
//! derived index.

use crate::agent::AgentId;
use crate::error::Result;
use crate::index::{self, Hit, SearchQuery};
use crate::mailroom::{Mailroom, Unusable};

impl Mailroom {
    /// Search my mailbox (`everywhere`: every mailbox within my reach): newest activity first,
    /// one hit per (mailbox, Message ID). Another agent's mailbox that cannot be searched is
    /// returned beside the hits; mine failing fails the search.
    pub fn search(
        &self,
        query: &SearchQuery,
        everywhere: bool,
    ) -> Result<(Vec<Hit>, Vec<Unusable>)> {
        let mut hits = Vec::new();
        let mut unusable = Vec::new();
        for agent in self.scope(everywhere) {
            let found = self
                .mailbox_to_read(&agent)
                .and_then(|mailbox| index::with_index(&mailbox, |index| index.search(query)));
            match found {
                Ok(found) => hits.extend(found),
                Err(e) if agent != *self.me() => unusable.push(Unusable::new(&agent, &e)),
                Err(e) => return Err(e),
            }
        }
        // Stable: within one mailbox the index's order stands.
        hits.sort_by(|a, b| b.activity.cmp(&a.activity));
        if query.limit > 0 {
            hits.truncate(query.limit);
        }
        Ok((hits, unusable))
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
            self.reachable().cloned().collect()
        } else {
            vec![self.me().clone()]
        }
    }
}
