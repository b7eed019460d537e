//! [`McpServer`] as rmcp's [`ServerHandler`]: each request handed to the concern that answers
//! it (tools, tasks, resources, prompts, completion, logging, listen streams).

// rmcp marks logging and `resources/unsubscribe` deprecated by SEP-2577 (protocol 2026-07-28);
// clients of 2025-11-25, the protocol most speak, still use them.
#![allow(deprecated)]

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, ExtensionCapabilities, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, SKILLS_EXTENSION_ID,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::resources::APP_VIEW_MIME_TYPE;
use super::settings::{McpServer, Shared};
use super::{completion, prompts, resources};

/// The MCP Apps extension (SEP-1865).
const APPS_EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
use crate::tool::TaskSupport;

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        // rmcp asks for it on every request (over stateless HTTP, of a fresh session each time).
        self.shared.derived.info(|| build_info(&self.shared))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(self.listed_tools().await)
    }

    /// The tool's definition when its input schema carries `x-mcp-header`, so that rmcp's HTTP
    /// transport checks the call's `Mcp-Param-*` headers against its arguments (SEP-2243);
    /// `None` for every other tool, which has nothing to check (see `headers`).
    fn get_tool(&self, name: &str) -> Option<Tool> {
        let index = self.shared.registry.position(name)?;
        let checked = self.shared.has_headers.get(index).copied().unwrap_or(false);
        checked.then(|| self.shared.definitions.get(index).cloned())?
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + rmcp::service::MaybeSendFuture + '_
    {
        // rmcp spawns each request's handler future and moves it several times on the way (the
        // task's cell, its stages); the call's own state machine (approval, dispatch, activation)
        // is kilobytes, and a 10 KB `echo` served 3 times more copying than rmcp's own server.
        // Boxed, each move is of one pointer.
        Box::pin(self.serve_call(request, context))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(
            self.shared.tasks.get_task(&request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared.tasks.cancel_task(&request.task_id)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.threshold.set(request.level);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(resources::listed(&self.shared.resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::listed_templates(&self.shared.templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(&self.shared.resources, &self.shared.templates, request.uri).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !resources::serves(&self.shared.resources, &self.shared.templates, &request.uri) {
            return Err(resources::not_found(&request.uri));
        }
        self.session.subscribe(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        Ok(ListSkillsResult::with_all_items(self.shared.skills.clone()))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        match self
            .shared
            .skills
            .iter()
            .find(|skill| skill.uri == request.uri)
        {
            Some(skill) => Ok(GetSkillResult::new(skill.clone())),
            None => Err(ErrorData::invalid_params(
                format!(
                    "no skill is served at {}; skills/list lists those that are",
                    request.uri
                ),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(prompts::listed(&self.shared.prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.serve_prompt(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        completion::complete(
            &self.shared.prompts,
            self.shared.complete.as_ref(),
            &request,
        )
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.shared.listeners.listen(context).await;
        Ok(())
    }
}

/// The server's info and capabilities, from its settings ([`ServerHandler::get_info`]).
fn build_info(shared: &Shared) -> ServerConfig {
    let builder = ServerCapabilities::builder()
        .enable_logging()
        .enable_completions()
        .enable_prompts()
        .enable_resources()
        .enable_resources_subscribe()
        .enable_tools()
        .enable_tool_list_changed();
    let offers_tasks = shared
        .task_support
        .iter()
        .any(|support| *support != TaskSupport::Forbidden);
    let mut capabilities = if offers_tasks {
        builder.enable_tasks().build()
    } else {
        builder.build()
    };
    let has_resources = !shared.resources.is_empty() || !shared.templates.is_empty();
    if !has_resources {
        capabilities.resources = None;
    }
    if !shared.skills.is_empty() {
        // Declared inline, an empty object: the server does not serve directory reads.
        capabilities
            .extensions
            .get_or_insert_with(ExtensionCapabilities::new)
            .insert(SKILLS_EXTENSION_ID.to_string(), Default::default());
    }
    let views = shared
        .registry
        .iter()
        .any(|tool| tool.ui_resource().is_some())
        || shared
            .resources
            .iter()
            .any(|resource| resource.mime_type.as_deref() == Some(APP_VIEW_MIME_TYPE));
    if views {
        capabilities
            .extensions
            .get_or_insert_with(ExtensionCapabilities::new)
            .insert(APPS_EXTENSION_ID.to_string(), Default::default());
    }
    if shared.prompts.is_empty() {
        capabilities.prompts = None;
    }
    if shared.prompts.is_empty() && shared.templates.is_empty() {
        capabilities.completions = None;
    }
    let mut config =
        ServerConfig::new(capabilities).with_server_info(shared.implementation.clone());
    if let Some(instructions) = &shared.instructions {
        config = config.with_instructions(instructions.clone());
    }
    config
}
