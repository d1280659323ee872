//! Run a synchronous core call off the async runtime, so a slow disk never stalls other calls.

use rmcp::ErrorData;

/// Why a core call did not give a value: the core said no (the model can act on it), or the
/// blocking task itself failed (an internal error).
#[derive(Debug)]
pub(crate) enum Failure {
    Mail(filebox_core::Error),
    Internal(ErrorData),
}

/// Run `work(context)` on the blocking pool. A panic in it becomes an internal error rather
/// than taking the server down.
pub(crate) async fn run<C, T, F>(context: C, work: F) -> Result<T, Failure>
where
    C: Send + 'static,
    T: Send + 'static,
    F: FnOnce(C) -> filebox_core::Result<T> + Send + 'static,
{
    tokio::task::spawn_blocking(move || work(context))
        .await
        .map_err(|e| {
            Failure::Internal(ErrorData::internal_error(
                format!("a mailbox task failed: {e}"),
                None,
            ))
        })?
        .map_err(Failure::Mail)
}
