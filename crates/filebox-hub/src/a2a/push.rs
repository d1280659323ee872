//! Push notifications: a task's configs (create, get, list, delete) kept on disk beside the
//! config (`a2a/push/<task id>.json`, the hub's own file, like the federation's ledger), and
//! delivered at least once: each time the files change the task's state, the task
//! (`{"task": …}`, A2A's push payload) is POSTed to each config's URL with its token
//! (`X-A2A-Notification-Token`) and its authentication (`Authorization: <scheme>
//! <credentials>`), through the webhooks' POST and only to a URL `hub.callback_allow` names;
//! the state delivered is recorded after a 2xx answer, so a hub killed before it sends again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use filebox_api::access::Caller;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::error::A2aError;
use super::methods::Cx;
use super::task::Task;
use super::wire::Dialect;
use crate::events::HubEvent;
use crate::hub::Hub;
use crate::settings::HubSection;
use crate::webhook::post;

/// The wait before a failed delivery is tried again, doubling up to [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(500);
const MAX_RETRY: Duration = Duration::from_secs(30);

/// The most configs one task keeps: each is a POST at every change of the task.
const MAX_CONFIGS: usize = 10;
/// The longest config id (and authentication scheme), and the longest token or credentials.
const MAX_ID_BYTES: usize = 128;
const MAX_SECRET_BYTES: usize = 4096;

/// Told when a config is kept, so its first delivery goes without waiting for a change of the
/// files. `notify_one` keeps a permit when the deliverer is busy with a pass, so a config kept
/// meanwhile is not missed. Process-wide: a process runs one hub (`filebox serve`; nextest
/// runs each test in a process of its own).
static KEPT: std::sync::LazyLock<tokio::sync::Notify> =
    std::sync::LazyLock::new(tokio::sync::Notify::new);

/// One task's push configs, as kept on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Kept {
    agent: String,
    configs: Vec<Config>,
}

/// One config and how far its deliveries got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Config {
    id: String,
    url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    /// `(scheme, credentials)` for the `Authorization` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    authentication: Option<(String, String)>,
    /// The task state last delivered (1.0 name); `None`: nothing yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delivered: Option<String>,
}

fn dir(config: &filebox_core::Config) -> PathBuf {
    config.config_dir().join("a2a").join("push")
}

fn path_of(config: &filebox_core::Config, task_id: &str) -> PathBuf {
    dir(config).join(format!("{task_id}.json"))
}

fn read(path: &Path) -> Result<Kept, A2aError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| A2aError::internal(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Kept::default()),
        Err(e) => Err(A2aError::internal(format!("{}: {e}", path.display()))),
    }
}

/// Change the configs kept in `path`: read, changed by `change`, written (unless `change`
/// refuses), under one lock for every change this process makes, so a delivery recorded beside
/// a delete (the request handlers and the deliverer run on threads of their own) never writes
/// back a config the delete removed, and no two writers share the temp file. Only the hub
/// writes these files.
fn update(
    path: &Path,
    change: impl FnOnce(&mut Kept) -> Result<(), A2aError>,
) -> Result<(), A2aError> {
    static UPDATES: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = UPDATES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut kept = read(path)?;
    change(&mut kept)?;
    write(path, &kept)
}

/// Write whole or not at all: a temp file, flushed, renamed over the old one.
fn write(path: &Path, kept: &Kept) -> Result<(), A2aError> {
    let fail = |e: std::io::Error| A2aError::internal(format!("{}: {e}", path.display()));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    if kept.configs.is_empty() {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e)),
            _ => Ok(()),
        };
    }
    let temp = path.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(kept).map_err(A2aError::internal)?;
    {
        use std::io::Write as _;
        let mut file = std::fs::File::create(&temp).map_err(fail)?;
        file.write_all(&text).map_err(fail)?;
        file.sync_all().map_err(fail)?;
    }
    // The hub's own file, not a message: replacing it is the point.
    std::fs::rename(&temp, path).map_err(fail)
}

/// `SendMessage` and `SendStreamingMessage`: the message sent, and the push config given
/// with it (`configuration`) kept for its task, checked before the message is sent.
pub(crate) fn send_keeping(cx: &Cx, params: &Value) -> Result<Task, A2aError> {
    let push = params
        .pointer("/configuration/taskPushNotificationConfig")
        .or_else(|| params.pointer("/configuration/pushNotificationConfig"))
        .map(|config| parse(cx, config))
        .transpose()?;
    let sent = super::methods::send(cx, params)?;
    if let Some(config) = push {
        keep(cx, &sent, config)?;
    }
    Ok(sent)
}

/// A config as the call gives it (1.0: the fields on `params`; 0.3: under
/// `pushNotificationConfig`), checked against the allow-list before anything is written.
pub(crate) fn parse(cx: &Cx, params: &Value) -> Result<Config, A2aError> {
    let given = params.get("pushNotificationConfig").unwrap_or(params);
    let text = |key: &str| {
        given
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let url = text("url").ok_or_else(|| A2aError::invalid_params("url", "is required"))?;
    post::check_endpoint(url).map_err(|e| A2aError::invalid_params("url", e))?;
    let hub = HubSection::of(&cx.config).map_err(A2aError::internal)?;
    if !hub.allows_callback(url) {
        return Err(A2aError::invalid_params(
            "url",
            format!(
                "{url} is not under an entry of hub.callback_allow in the config: add it there first"
            ),
        ));
    }
    let authentication = match given.get("authentication") {
        None => None,
        Some(auth) => {
            // 1.0 `{scheme, credentials}`; 0.3 `{schemes: [..], credentials}`.
            let scheme = auth
                .get("scheme")
                .or_else(|| auth.get("schemes").and_then(|s| s.get(0)))
                .and_then(Value::as_str)
                .unwrap_or("Bearer");
            let credentials = auth
                .get("credentials")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let word = |b: u8| b.is_ascii_alphanumeric() || b"-_.".contains(&b);
            if scheme.is_empty() || scheme.len() > MAX_ID_BYTES || !scheme.bytes().all(word) {
                return Err(A2aError::invalid_params(
                    "authentication.scheme",
                    "a scheme is one word (Bearer, Basic)",
                ));
            }
            header_safe("authentication.credentials", credentials, MAX_SECRET_BYTES)?;
            Some((scheme.to_owned(), credentials.to_owned()))
        }
    };
    let token = text("token")
        .map(|token| header_safe("token", token, MAX_SECRET_BYTES).map(str::to_owned))
        .transpose()?;
    // A config without an id is named by its URL: given again (a retried send, the same
    // create twice) it replaces the one before instead of delivering each state twice.
    let id = match text("id") {
        Some(id) => within("id", id, MAX_ID_BYTES)?.to_owned(),
        None => format!("url-{}", &filebox_api::access::sha256_hex(url)[..16]),
    };
    Ok(Config {
        id,
        url: url.to_owned(),
        token,
        authentication,
        delivered: None,
    })
}

/// `value` if it is at most `limit` bytes: a config keeps ids and secrets, not documents (and
/// the refusal never echoes it).
fn within<'v>(field: &str, value: &'v str, limit: usize) -> Result<&'v str, A2aError> {
    if value.len() > limit {
        return Err(A2aError::invalid_params(
            field,
            format!(
                "is {} bytes, over the {limit} a push config keeps",
                value.len()
            ),
        ));
    }
    Ok(value)
}

/// `value` if a header can carry it as it is: [`within`] `limit`, visible ASCII. Checked when
/// the config is made, so a delivery never fails on it forever.
fn header_safe<'v>(field: &str, value: &'v str, limit: usize) -> Result<&'v str, A2aError> {
    within(field, value, limit)?;
    if !value.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(A2aError::invalid_params(
            field,
            "holds a space, a control character or non-ASCII text, which no header carries",
        ));
    }
    Ok(value)
}

/// Keep `config` for `task` (a config of the same id is replaced), if the task keeps fewer
/// than [`MAX_CONFIGS`].
pub(crate) fn keep(cx: &Cx, task: &Task, config: Config) -> Result<Value, A2aError> {
    let path = path_of(&cx.config, &task.id);
    let answer = view(cx.dialect, &task.id, &config);
    update(&path, |kept| {
        kept.configs.retain(|c| c.id != config.id);
        if kept.configs.len() >= MAX_CONFIGS {
            return Err(A2aError::invalid_params(
                "id",
                format!(
                    "task {} keeps {MAX_CONFIGS} push configs, the most a task keeps: delete one \
                     (DeleteTaskPushNotificationConfig) or give the id of one to replace",
                    task.id
                ),
            ));
        }
        kept.agent = cx.agent.to_string();
        kept.configs.push(config);
        Ok(())
    })?;
    KEPT.notify_one();
    Ok(answer)
}

/// A config as the client sees it (its token included: the client gave it).
fn view(dialect: Dialect, task_id: &str, config: &Config) -> Value {
    let mut inner = json!({ "id": config.id, "url": config.url });
    if let Some(token) = &config.token {
        inner["token"] = json!(token);
    }
    if let Some((scheme, _)) = &config.authentication {
        inner["authentication"] = match dialect {
            Dialect::V1 => json!({ "scheme": scheme }),
            Dialect::V03 => json!({ "schemes": [scheme] }),
        };
    }
    match dialect {
        Dialect::V1 => {
            inner["taskId"] = json!(task_id);
            inner
        }
        Dialect::V03 => json!({ "taskId": task_id, "pushNotificationConfig": inner }),
    }
}

/// The task a config call names (`taskId`, or 0.3's `id` for the task on get/list).
fn task_of(cx: &Cx, params: &Value) -> Result<Task, A2aError> {
    let id = params
        .get("taskId")
        .or_else(|| {
            params
                .get("id")
                .filter(|_| params.get("pushNotificationConfigId").is_some())
        })
        .and_then(Value::as_str)
        .ok_or_else(|| A2aError::invalid_params("taskId", "is required"))?;
    Task::load(&cx.system()?, &cx.agent, id)
}

fn config_id(params: &Value) -> Result<&str, A2aError> {
    params
        .get("pushNotificationConfigId")
        .or_else(|| params.get("id"))
        .and_then(Value::as_str)
        .ok_or_else(|| A2aError::invalid_params("id", "is required"))
}

/// `CreateTaskPushNotificationConfig` / `tasks/pushNotificationConfig/set`.
pub(crate) fn create(cx: &Cx, params: &Value) -> Result<Value, A2aError> {
    let config = parse(cx, params)?;
    let task = task_of(cx, params)?;
    keep(cx, &task, config)
}

/// `GetTaskPushNotificationConfig` / `tasks/pushNotificationConfig/get`.
pub(crate) fn get(cx: &Cx, params: &Value) -> Result<Value, A2aError> {
    let task = task_of(cx, params)?;
    let wanted = config_id(params)?;
    read(&path_of(&cx.config, &task.id))?
        .configs
        .iter()
        .find(|c| c.id == wanted)
        .map(|c| view(cx.dialect, &task.id, c))
        .ok_or_else(|| {
            A2aError::invalid_params(
                "id",
                format!(
                    "task {} has no push config {:?}",
                    task.id,
                    super::error::shown(wanted)
                ),
            )
        })
}

/// `ListTaskPushNotificationConfigs` / `tasks/pushNotificationConfig/list`.
pub(crate) fn list(cx: &Cx, params: &Value) -> Result<Value, A2aError> {
    let task = task_of(cx, params)?;
    let views: Vec<Value> = read(&path_of(&cx.config, &task.id))?
        .configs
        .iter()
        .map(|c| view(cx.dialect, &task.id, c))
        .collect();
    Ok(match cx.dialect {
        Dialect::V1 => json!({ "configs": views, "nextPageToken": "" }),
        Dialect::V03 => Value::Array(views),
    })
}

/// `DeleteTaskPushNotificationConfig` / `tasks/pushNotificationConfig/delete`.
pub(crate) fn delete(cx: &Cx, params: &Value) -> Result<Value, A2aError> {
    let task = task_of(cx, params)?;
    let wanted = config_id(params)?.to_owned();
    let path = path_of(&cx.config, &task.id);
    update(&path, |kept| {
        kept.configs.retain(|c| c.id != wanted);
        Ok(())
    })?;
    Ok(match cx.dialect {
        Dialect::V1 => json!({}),
        Dialect::V03 => Value::Null,
    })
}

/// One delivery owed: the config, the file it is kept in, the payload.
struct Owed {
    path: PathBuf,
    config: Config,
    state: String,
    payload: Vec<u8>,
}

/// Every delivery owed now: a config whose task's state is not the one it last delivered.
fn owed(hub: &Hub) -> Result<Vec<Owed>, A2aError> {
    let config = hub.config()?;
    let entries = match std::fs::read_dir(dir(&config)) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(A2aError::internal(e)),
    };
    let mut owed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(task_id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".json"))
        else {
            continue;
        };
        let kept = read(&path)?;
        // The hub itself reads the task: the caller was checked when the config was made.
        let Ok(cx) = Cx::new(config.clone(), Caller::Owner, &kept.agent, Dialect::V1) else {
            continue;
        };
        let Ok(task) = Task::load(&cx.system()?, &cx.agent, task_id) else {
            continue;
        };
        let state = task.state.name(Dialect::V1).to_owned();
        let payload = json!({ "task": task.to_json(Dialect::V1, None) })
            .to_string()
            .into_bytes();
        for c in kept
            .configs
            .iter()
            .filter(|c| c.delivered.as_deref() != Some(state.as_str()))
        {
            owed.push(Owed {
                path: path.clone(),
                config: c.clone(),
                state: state.clone(),
                payload: payload.clone(),
            });
        }
    }
    Ok(owed)
}

/// Record that `config` delivered `state` (unless it was deleted meanwhile).
fn delivered(path: &Path, config_id: &str, state: &str) -> Result<(), A2aError> {
    update(path, |kept| {
        if let Some(config) = kept.configs.iter_mut().find(|c| c.id == config_id) {
            config.delivered = Some(state.to_owned());
        }
        Ok(())
    })
}

/// POST one delivery; whether it was taken (a 2xx answer), and if not why.
async fn send(hub: &Hub, owed: &Owed) -> Result<(), String> {
    // Asked again at each try: an entry taken out of the allow-list stops the deliveries.
    let section = hub.config().ok().and_then(|c| HubSection::of(&c).ok());
    if !section.is_some_and(|s| s.allows_callback(&owed.config.url)) {
        return Err(format!(
            "{} is no longer in hub.callback_allow",
            owed.config.url
        ));
    }
    let mut headers = Vec::new();
    if let Some(token) = &owed.config.token {
        headers.push(("X-A2A-Notification-Token".to_owned(), token.clone()));
    }
    if let Some((scheme, credentials)) = &owed.config.authentication {
        headers.push((
            "Authorization".to_owned(),
            format!("{scheme} {credentials}"),
        ));
    }
    let answer = post::post(&owed.config.url, &headers, owed.payload.clone()).await?;
    match answer.status {
        200..=299 => Ok(()),
        status => Err(format!("{} answered {status}", owed.config.url)),
    }
}

/// Deliver what is owed at start and after each event, again with backoff while one fails.
pub(crate) async fn supervise(hub: Hub, mut changes: broadcast::Receiver<HubEvent>) {
    let stop = hub.sessions();
    let mut retry = FIRST_RETRY;
    loop {
        let pass = {
            let hub = hub.clone();
            tokio::task::spawn_blocking(move || owed(&hub)).await
        };
        let mut failed = false;
        for owed in pass.ok().and_then(Result::ok).unwrap_or_default() {
            match send(&hub, &owed).await {
                Ok(()) => {
                    let (path, id, state) = (
                        owed.path.clone(),
                        owed.config.id.clone(),
                        owed.state.clone(),
                    );
                    let recorded =
                        tokio::task::spawn_blocking(move || delivered(&path, &id, &state)).await;
                    failed |= !matches!(recorded, Ok(Ok(())));
                }
                Err(why) => {
                    tracing::warn!("A2A push to {}: {why} (tried again)", owed.config.url);
                    failed = true;
                }
            }
        }
        let wait = if failed { Some(retry) } else { None };
        retry = if failed {
            (retry * 2).min(MAX_RETRY)
        } else {
            FIRST_RETRY
        };
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = KEPT.notified() => {}
            _ = async { match wait { Some(wait) => tokio::time::sleep(wait).await, None => std::future::pending().await } } => {}
            received = changes.recv() => {
                if matches!(received, Err(broadcast::error::RecvError::Closed)) {
                    return;
                }
            }
        }
    }
}
