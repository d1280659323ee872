//! `FileboxServer`: the MCP handler for one session, over one `Mailroom`.

use std::sync::Arc;

use filebox_core::Mailroom;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CustomNotification,
    DiscoverRequestMethod, DiscoverResult, GetPromptRequestParams, GetPromptResponse,
    GetTaskParams, GetTaskResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};

use crate::channel::{self, Channel};
use crate::subscriptions::{self, Subscriptions};
use crate::tasks::Tasks;
use crate::tools::HostFiles;
use crate::{prompts, resources, tools};

/// What a client puts before the model when the session starts: what FileBox is, every tool
/// offered by name and title (from the verb table, so none is left out), and the prompt.
/// Kept short: a model pays for it by the character in every session.
fn instructions(host_files: HostFiles) -> String {
    let tools: Vec<String> = tools::offered(host_files)
        .map(|verb| format!("{} ({})", verb.name, verb.title))
        .collect();
    format!(
        "FileBox is your mailbox of Markdown messages, shared with other agents and humans \
         through the file system. Tools: {}. The {} prompt is the rule for handling mail.",
        tools.join(", "),
        prompts::NAME
    )
}

/// Where a session's mailroom comes from, asked at each request: fixed for a server of its
/// own (`filebox mcp`), the hub's current config and the access policy at `/mcp` (so a new
/// token bounds what the next call sees).
pub type MailroomSource = Arc<dyn Fn() -> anyhow::Result<Mailroom> + Send + Sync>;

/// The source of a server that serves one agent of a config it read once: acting as that
/// agent, reaching what the access policy lets it (`filebox_api::access`).
pub(crate) fn fixed(mailroom: Mailroom) -> anyhow::Result<MailroomSource> {
    let served = Arc::new(filebox_api::access::Caller::serve(
        mailroom.config(),
        mailroom.me(),
    )?);
    Ok(Arc::new(move || Ok(Mailroom::clone(&served))))
}

/// One MCP session's handler. Cheap to create: stdio makes one, HTTP one per session.
#[derive(Clone)]
pub(crate) struct FileboxServer {
    mailrooms: MailroomSource,
    host_files: HostFiles,
    tools: Arc<Vec<Tool>>,
    subscriptions: Subscriptions,
    /// The server's tasks, shared by all its sessions.
    tasks: Tasks,
    /// Claude Code's channel, on stdio only (`crate::channel`).
    channel: Option<Arc<Channel>>,
}

impl FileboxServer {
    pub(crate) fn new(mailrooms: MailroomSource, host_files: HostFiles, tasks: Tasks) -> Self {
        FileboxServer {
            mailrooms,
            host_files,
            tools: Arc::new(tools::definitions(host_files)),
            subscriptions: Subscriptions::default(),
            tasks,
            channel: None,
        }
    }

    /// This server as a channel (see `crate::channel`).
    pub(crate) fn with_channel(mut self, channel: Arc<Channel>) -> Self {
        self.channel = Some(channel);
        self
    }

    /// The mailroom this request runs in.
    fn mailroom(&self) -> Result<Arc<Mailroom>, ErrorData> {
        (self.mailrooms)()
            .map(Arc::new)
            .map_err(|e| ErrorData::internal_error(format!("{e:#}"), None))
    }
}

impl std::fmt::Debug for FileboxServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileboxServer").finish_non_exhaustive()
    }
}

impl ServerHandler for FileboxServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_tasks()
            .build();
        if self.channel.is_some() {
            let declared = [channel::CHANNEL, channel::PERMISSION]
                .map(|name| (name.to_owned(), serde_json::Map::new()));
            capabilities.experimental = Some(declared.into_iter().collect());
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("filebox", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(self.host_files))
    }

    /// `server/discover` opens the stateless 2026-07-28 lifecycle; a channel refuses it as a
    /// server of the handshake revisions would (`crate::channel::Channel::refuses_discover`),
    /// so the client falls back to `initialize`.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        if self
            .channel
            .as_ref()
            .is_some_and(|channel| channel.refuses_discover())
        {
            return Err(ErrorData::method_not_found::<DiscoverRequestMethod>());
        }
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(channel) = &self.channel {
            channel.went_on(&format!("the session went on (it called {})", request.name));
        }
        tools::call(
            &self.mailroom()?,
            self.host_files,
            &self.tasks,
            request,
            &context,
        )
        .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks.get(self.mailroom()?, &request.task_id).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(self.mailroom()?, &request.task_id).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let (Some(channel), Ok(mailroom)) = (&self.channel, self.mailroom()) {
            channel.start(mailroom, context.peer);
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        if let (Some(channel), Ok(mailroom)) = (&self.channel, self.mailroom()) {
            channel.notified(mailroom, context.peer, &notification);
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(resources::list())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(&self.mailroom()?, &request.uri)
            .await
            .map(Into::into)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions
            .subscribe(&self.mailroom()?, request.uri, context.peer)
            .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(subscriptions::accepted_filter(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        subscriptions::listen(&self.mailroom()?, &context).await;
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(prompts::list())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompts::get(&request.name, request.arguments.as_ref()).map(Into::into)
    }
}
