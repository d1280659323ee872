//! What several verbs share that no surface names: the warnings and notes they attach to an
//! outcome, the three moves out of the inbox, the human channel's questions, and where Claude
//! Code keeps its teams. A verb's own arguments, result and text live in its file under
//! `verbs/`; the types several verbs return are in `views.rs`, their shared text in `render.rs`.

pub(crate) mod claude;
pub(crate) mod question;
pub(crate) mod transition;
pub(crate) mod warnings;
