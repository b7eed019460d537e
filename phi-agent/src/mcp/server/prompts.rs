//! Prompts an MCP server serves (`prompts/list`, `prompts/get`): named message templates a
//! client's user picks, filled in from their arguments, and (a prompt made with
//! [`Prompt::asking`]) from what it asks the client first.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{GetPromptRequestParams, GetPromptResult, ListPromptsResult, Role};
use serde_json::Value;

use crate::content::Content;
use crate::context::ToolContext;
use crate::error::AgentResult;
use crate::mcp::convert;

type Get = Arc<
    dyn Fn(
            BTreeMap<String, String>,
            ToolContext,
        ) -> BoxFuture<'static, AgentResult<Vec<PromptMessage>>>
        + Send
        + Sync,
>;

/// A prompt: a name, a description, its arguments, and what makes its messages.
///
/// ```
/// use phi_agent::mcp::{Prompt, PromptMessage};
///
/// let review = Prompt::new("review", |args| async move {
///     Ok(vec![PromptMessage::user(format!("Review this code:\n{}", args["code"]))])
/// })
/// .with_description("Ask for a code review")
/// .with_argument("code", "The code to review", true);
/// # let _ = review;
/// ```
#[derive(Clone)]
pub struct Prompt {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) get: Get,
}

/// One argument of a [`Prompt`].
#[derive(Debug, Clone)]
pub(crate) struct PromptArgument {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) required: bool,
}

impl Prompt {
    /// A prompt whose messages `get` makes from the arguments the client sent (each a string;
    /// a missing required one is refused before `get` runs).
    pub fn new<F, Fut>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AgentResult<Vec<PromptMessage>>> + Send + 'static,
    {
        Self {
            name: name.into(),
            description: None,
            arguments: Vec::new(),
            get: Arc::new(move |args, _ctx| Box::pin(get(args))),
        }
    }

    /// A prompt whose messages `get` makes from the arguments and a [`ToolContext`] through
    /// which it can ask the client first, as a tool does: the user
    /// ([`elicit`](ToolContext::elicit)), the client's model ([`sample`](ToolContext::sample)),
    /// its roots ([`roots`](ToolContext::roots)). At protocol 2026-07-28 the questions are the
    /// input requests of an `input_required` result, and the client's resent `prompts/get`
    /// resumes the prompt with the answers; before, they are requests to the client.
    ///
    /// ```
    /// use phi_agent::mcp::{Prompt, PromptMessage};
    /// use phi_agent::{AgentError, Elicitation};
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    ///
    /// /// What the prompt should be about.
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Topic {
    ///     topic: String,
    /// }
    ///
    /// // Asked under the key `topic`, the form's type name in snake case.
    /// let brainstorm = Prompt::asking("brainstorm", |_args, ctx| async move {
    ///     match ctx.elicit::<Topic>("What should we brainstorm about?").await? {
    ///         Elicitation::Accept(Topic { topic }) => {
    ///             Ok(vec![PromptMessage::user(format!("Ten ideas about {topic}, please."))])
    ///         }
    ///         _ => Err(AgentError::tool("no topic given")),
    ///     }
    /// });
    /// # let _ = brainstorm;
    /// ```
    pub fn asking<F, Fut>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(BTreeMap<String, String>, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AgentResult<Vec<PromptMessage>>> + Send + 'static,
    {
        Self {
            name: name.into(),
            description: None,
            arguments: Vec::new(),
            get: Arc::new(move |args, ctx| Box::pin(get(args, ctx))),
        }
    }

    /// A prompt of fixed messages.
    pub fn fixed(name: impl Into<String>, messages: Vec<PromptMessage>) -> Self {
        Self::new(name, move |_| {
            let messages = messages.clone();
            async move { Ok(messages) }
        })
    }

    /// What the prompt is for.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// One more argument, `required` or not.
    pub fn with_argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.arguments.push(PromptArgument {
            name: name.into(),
            description: description.into(),
            required,
        });
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

/// One message of a prompt: from the user or the assistant, with one piece of content (text,
/// an image, audio, an embedded resource or a resource link; JSON is sent as text).
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    pub(crate) assistant: bool,
    pub(crate) content: Content,
}

impl PromptMessage {
    /// A user message.
    pub fn user(content: impl Into<Content>) -> Self {
        Self {
            assistant: false,
            content: content.into(),
        }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Self {
            assistant: true,
            content: content.into(),
        }
    }
}

/// `prompts/list`: every prompt with its arguments, in the order they were added.
///
/// Built from rmcp's typed constructors, which set `resultType` (required from protocol
/// 2026-07-28 on; rmcp strips it for older clients): a result read with `serde_json::from_value`
/// would leave it out.
pub(super) fn listed(prompts: &[Prompt]) -> ListPromptsResult {
    let prompts = prompts
        .iter()
        .map(|prompt| {
            let arguments = prompt
                .arguments
                .iter()
                .map(|argument| {
                    rmcp::model::PromptArgument::new(argument.name.clone())
                        .with_description(argument.description.clone())
                        .with_required(argument.required)
                })
                .collect();
            rmcp::model::Prompt::new(
                prompt.name.clone(),
                prompt.description.clone(),
                Some(arguments),
            )
        })
        .collect();
    ListPromptsResult::with_all_items(prompts)
}

/// The prompt `request` names and its arguments (each given as text; a required one
/// missing is refused).
pub(super) fn arguments_of<'p>(
    prompts: &'p [Prompt],
    request: &GetPromptRequestParams,
) -> Result<(&'p Prompt, BTreeMap<String, String>), ErrorData> {
    let Some(prompt) = prompts.iter().find(|prompt| prompt.name == request.name) else {
        let known: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        return Err(ErrorData::invalid_params(
            format!(
                "no prompt named `{}`; prompts: {}",
                request.name,
                known.join(", ")
            ),
            None,
        ));
    };
    let mut arguments = BTreeMap::new();
    for (name, value) in request.arguments.clone().unwrap_or_default() {
        let value = match value {
            Value::String(text) => text,
            other => other.to_string(),
        };
        arguments.insert(name, value);
    }
    if let Some(missing) = prompt
        .arguments
        .iter()
        .find(|argument| argument.required && !arguments.contains_key(&argument.name))
    {
        return Err(ErrorData::invalid_params(
            format!(
                "prompt `{}` needs the argument `{}`",
                prompt.name, missing.name
            ),
            None,
        ));
    }
    Ok((prompt, arguments))
}

/// The result of a prompt's messages.
pub(super) fn result_of(
    prompt_description: Option<String>,
    messages: AgentResult<Vec<PromptMessage>>,
) -> Result<GetPromptResult, ErrorData> {
    let messages = messages.map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    let messages = messages
        .into_iter()
        .map(|message| {
            let role = if message.assistant {
                Role::Assistant
            } else {
                Role::User
            };
            rmcp::model::PromptMessage::new(role, convert::content_block(message.content))
        })
        .collect();
    // rmcp's constructor sets `resultType` (see `listed`).
    let mut result = GetPromptResult::new(messages);
    if let Some(description) = prompt_description {
        result = result.with_description(description);
    }
    Ok(result)
}
