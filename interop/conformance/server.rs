//! The fixture server of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! written with phi-agent's own API: the tools, resources, resource template and prompts its
//! server scenarios call, each doing what the scenario's description asks.
//!
//! Run: `cargo run -p phi-agent --example mcp-conformance-server -- 127.0.0.1:8920 [--stateless]`
//! (what `interop/conformance/run` does). stdout stays quiet; the URL goes to stderr.

use std::time::Duration;

use async_trait::async_trait;
use phi_agent::mcp::{HttpOptions, ListChanged, Prompt, PromptMessage, Resource, ResourceTemplate};
use phi_agent::registry::ToolRegistry;
use phi_agent::skill::{Skill, SkillCatalog};
use phi_agent::{
    AgentError, AgentResult, Content, Elicitation, LogLevel, ResourceContents, SampleRequest, Tool,
    ToolConfig, ToolContext, phi_tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A 1x1 red pixel.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// Eight silent samples of 16-bit mono PCM at 8 kHz.
const WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// Echoes its arguments; `region` and `priority` are mirrored into `Mcp-Param-Region` and
/// `Mcp-Param-Priority` headers (SEP-2243), which the server checks against them
/// (`http-custom-header-server-validation`).
#[phi_tool]
async fn test_custom_headers(
    /// Where the request is routed
    #[phi(header = "Region")]
    region: String,
    /// How urgent; absent sends no header
    #[phi(header = "Priority")]
    priority: Option<i64>,
    /// Not mirrored
    query: String,
) -> String {
    format!("region={region} priority={priority:?} query={query}")
}

/// Returns simple text.
#[phi_tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[phi_tool]
async fn test_image_content() -> Content {
    Content::image(PNG, "image/png")
}

/// Returns audio.
#[phi_tool]
async fn test_audio_content() -> Content {
    Content::audio(WAV, "audio/wav")
}

/// Returns an embedded resource.
#[phi_tool]
async fn test_embedded_resource() -> Content {
    Content::resource(ResourceContents::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and an embedded resource.
#[phi_tool]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG, "image/png"),
        Content::resource(ResourceContents::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )),
    ]
}

/// Writes three log messages while it runs.
#[phi_tool]
async fn test_tool_with_logging(ctx: &ToolContext) -> &'static str {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    "Tool with logging executed successfully"
}

/// Reports progress three times while it runs.
#[phi_tool]
async fn test_tool_with_progress(ctx: &ToolContext) -> &'static str {
    for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(done, Some(100.0), None).await;
    }
    "Tool with progress executed successfully"
}

/// Closes its response stream mid-call, then works on: the client reconnects with
/// `Last-Event-ID` and gets the result on the resumed stream (SSE polling, SEP-1699).
#[phi_tool]
async fn test_reconnection(ctx: &ToolContext) -> &'static str {
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.close_stream().await;
    // Work done while the client is away: the result waits for it (`ToolContext::close_stream`).
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

/// Always fails.
#[phi_tool]
async fn test_error_handling() -> AgentResult<String> {
    Err(AgentError::tool(
        "This tool intentionally returns an error for testing",
    ))
}

/// Asks the client's model.
#[phi_tool]
async fn test_sampling(
    /// The prompt to send to the LLM
    prompt: String,
    ctx: &ToolContext,
) -> AgentResult<String> {
    let answer = ctx
        .sample(SampleRequest::new(prompt).with_max_tokens(100))
        .await?;
    Ok(format!("LLM response: {}", answer.text))
}

/// Needs the client's model (the suite calls it without declaring sampling, and expects the
/// MissingRequiredClientCapability error the library answers then).
#[phi_tool]
async fn test_missing_capability(ctx: &ToolContext) -> AgentResult<String> {
    let answer = ctx
        .sample(SampleRequest::new("Say hello").with_max_tokens(20))
        .await?;
    Ok(answer.text)
}

/// The user's details.
#[derive(Debug, Deserialize, JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user for their details.
#[phi_tool]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    ctx: &ToolContext,
) -> AgentResult<String> {
    ask_user(&message, ctx).await
}

/// Asks the user for their details, always as an MCP task: the question reaches the client in
/// the task's `inputRequests`, its answer comes back in `tasks/update` (not a suite scenario;
/// `interop/mcp/run` drives it with FastMCP's tasks client).
#[phi_tool(task = "required")]
async fn test_task_elicitation(
    /// The message to show the user
    message: String,
    ctx: &ToolContext,
) -> AgentResult<String> {
    ask_user(&message, ctx).await
}

async fn ask_user(message: &str, ctx: &ToolContext) -> AgentResult<String> {
    let answer = match ctx.elicit::<UserInfo>(message).await? {
        Elicitation::Accept(user) => format!(
            "action: accept, content: {{username: {}, email: {}}}",
            user.username, user.email
        ),
        Elicitation::Decline => "action: decline".to_string(),
        Elicitation::Cancel => "action: cancel".to_string(),
    };
    Ok(format!("User response: <{answer}>"))
}

fn completed(answer: Elicitation<Value>) -> String {
    match answer {
        Elicitation::Accept(content) => {
            format!("Elicitation completed: action=accept, content={content}")
        }
        Elicitation::Decline => "Elicitation completed: action=decline, content={}".to_string(),
        Elicitation::Cancel => "Elicitation completed: action=cancel, content={}".to_string(),
    }
}

/// Asks with a form whose every field has a default (SEP-1034).
#[phi_tool]
async fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> AgentResult<String> {
    let form = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verified user", "default": true}
        },
        "required": []
    });
    let answer = ctx
        .elicit_with_schema(
            "Please review and update the form fields with defaults",
            form,
        )
        .await?;
    Ok(completed(answer))
}

/// Asks with a form of every enum shape (SEP-1330).
#[phi_tool]
async fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> AgentResult<String> {
    let form = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]
                }
            }
        },
        "required": []
    });
    let answer = ctx
        .elicit_with_schema("Please select options from the enum fields", form)
        .await?;
    Ok(completed(answer))
}

// ---- Input-required results (SEP-2322, protocol 2026-07-28) ----------------------------------
// Each question goes by the key the scenario names: an elicitation's by its form's type
// (`UserName` -> `user_name`), a sampling request's by `SampleRequest::with_key`, a roots/list
// request's by `roots`.

/// The user's name.
#[derive(Debug, Deserialize, JsonSchema)]
struct UserName {
    name: String,
}

/// A yes or no.
#[derive(Debug, Deserialize, JsonSchema)]
struct Confirm {
    ok: bool,
}

/// The first step's answer.
#[derive(Debug, Deserialize, JsonSchema)]
struct Step1 {
    name: String,
}

/// The second step's answer.
#[derive(Debug, Deserialize, JsonSchema)]
struct Step2 {
    color: String,
}

/// What a prompt should be about.
#[derive(Debug, Deserialize, JsonSchema)]
struct UserContext {
    context: String,
}

/// A form's answer as text.
fn said<T>(answer: Elicitation<T>, text: impl FnOnce(T) -> String) -> String {
    match answer {
        Elicitation::Accept(value) => text(value),
        Elicitation::Decline => "declined".to_string(),
        Elicitation::Cancel => "cancelled".to_string(),
    }
}

/// Asks the user's name (key `user_name`) and greets them.
#[phi_tool]
async fn test_input_required_result_elicitation(ctx: &ToolContext) -> AgentResult<String> {
    let answer = ctx.elicit::<UserName>("What is your name?").await?;
    Ok(said(answer, |user| format!("Hello, {}!", user.name)))
}

fn capital_question() -> SampleRequest {
    SampleRequest::new("What is the capital of France?")
        .with_max_tokens(100)
        .with_key("capital_question")
}

/// Asks the client's model (key `capital_question`).
#[phi_tool]
async fn test_input_required_result_sampling(ctx: &ToolContext) -> AgentResult<String> {
    Ok(ctx.sample(capital_question()).await?.text)
}

/// Asks for the client's roots (key `roots`) and lists them.
#[phi_tool]
async fn test_input_required_result_list_roots(ctx: &ToolContext) -> AgentResult<String> {
    let roots = ctx.roots().await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Asks for a confirmation; the answer arrives with the `requestState` it was asked under.
#[phi_tool]
async fn test_input_required_result_request_state(ctx: &ToolContext) -> AgentResult<String> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(said(answer, |confirm| {
        format!("state-ok: confirmed {}", confirm.ok)
    }))
}

/// Asks the user, the client's model and the client's roots at once: one result, three keys.
#[phi_tool]
async fn test_input_required_result_multiple_inputs(ctx: &ToolContext) -> AgentResult<String> {
    let (name, greeting, roots) = tokio::join!(
        ctx.elicit::<UserName>("What is your name?"),
        ctx.sample(
            SampleRequest::new("Generate a greeting")
                .with_max_tokens(50)
                .with_key("greeting")
        ),
        ctx.roots(),
    );
    let name = said(name?, |user| user.name);
    Ok(format!(
        "{} {name} ({} roots)",
        greeting?.text,
        roots?.len()
    ))
}

/// Asks twice, each question in a round of its own.
#[phi_tool]
async fn test_input_required_result_multi_round(ctx: &ToolContext) -> AgentResult<String> {
    let name = said(
        ctx.elicit::<Step1>("Step 1: What is your name?").await?,
        |step| step.name,
    );
    let color = said(
        ctx.elicit::<Step2>("Step 2: What is your favorite color?")
            .await?,
        |step| step.color,
    );
    Ok(format!("{name} likes {color}"))
}

/// Asks for a confirmation; a resent call whose `requestState` was altered is refused.
#[phi_tool]
async fn test_input_required_result_tampered_state(ctx: &ToolContext) -> AgentResult<String> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(said(answer, |confirm| format!("confirmed {}", confirm.ok)))
}

/// Asks what the client can be asked: the user when it declared elicitation, else its model.
#[phi_tool]
async fn test_input_required_result_capabilities(ctx: &ToolContext) -> AgentResult<String> {
    match ctx.elicit::<UserName>("What is your name?").await {
        Ok(answer) => Ok(said(answer, |user| format!("Hello, {}!", user.name))),
        Err(_) => Ok(ctx.sample(capital_question()).await?.text),
    }
}

// ---- The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) ------------------------
// The tools the suite's `tasks-*` scenarios call, each as its scenario's description asks. A
// task-supporting tool's call from a client that declared the extension is answered with a
// task; its questions reach the client in the task's `inputRequests`, but for a tool that asks
// before its task (`ask_before_task`), whose first questions are rounds of the call itself.

/// Greets someone, always at once (no task).
#[phi_tool]
async fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then says so: a task for a client that declared the extension.
#[phi_tool(task = "optional")]
async fn slow_compute(
    /// How long to work, in seconds
    seconds: u64,
    /// A name for this run
    label: Option<String>,
) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let label = label.unwrap_or_default();
    format!("computed `{label}` in {seconds} s")
}

/// Fails as a tool fails (a result with `isError`), after a second; only ever a task.
#[phi_tool(task = "required")]
async fn failing_job() -> AgentResult<String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(AgentError::tool("the job failed, as it always does"))
}

/// Panics: the server's own failure, which a task reports as `failed` with a JSON-RPC error.
#[phi_tool(task = "optional")]
async fn protocol_error_job() -> String {
    panic!("protocol_error_job always panics")
}

/// Whether to go ahead.
#[derive(Debug, Deserialize, JsonSchema)]
struct DeleteAnswer {
    /// Delete the file?
    confirm: bool,
}

/// Asks the user to confirm, then deletes (pretends to) the file.
#[phi_tool(task = "optional")]
async fn confirm_delete(
    /// The file to delete
    filename: String,
    ctx: &ToolContext,
) -> AgentResult<String> {
    let answer = ctx
        .elicit::<DeleteAnswer>(&format!("Delete {filename}?"))
        .await?;
    Ok(said(answer, |answer| {
        if answer.confirm {
            format!("deleted {filename}")
        } else {
            format!("kept {filename}")
        }
    }))
}

/// A name and a yes or no.
#[derive(Debug, Deserialize, JsonSchema)]
struct NameAndConfirm {
    /// A name
    name: String,
    /// Go ahead?
    confirm: bool,
}

/// Asks two questions at once: both wait in the task's `inputRequests` together.
#[phi_tool(task = "optional")]
async fn multi_input(ctx: &ToolContext) -> AgentResult<String> {
    let (first, second) = tokio::join!(
        ctx.elicit::<NameAndConfirm>("First: a name?"),
        ctx.elicit::<NameAndConfirm>("Second: a name?"),
    );
    let text = |answer: NameAndConfirm| format!("{} ({})", answer.name, answer.confirm);
    Ok(format!(
        "{} and {}",
        said(first?, text),
        said(second?, text)
    ))
}

/// Asks the user's name before its task starts (an `input_required` round of the call, at
/// 2026-07-28), then works on as a task and greets them (`tasks-mrtr-composition`).
#[phi_tool(task = "required", ask_before_task)]
async fn test_tool_with_task(ctx: &ToolContext) -> AgentResult<String> {
    let answer = ctx.elicit::<UserName>("What is your name?").await?;
    Ok(said(answer, |user| format!("Hello, {}!", user.name)))
}

/// Announces that the tool list changed (SEP-2575's diagnostic hook): what a program whose
/// tools change other than by activation calls, through the server's `ListChanged` handle.
#[phi_tool]
async fn test_trigger_tool_change(ctx: &ToolContext) -> AgentResult<String> {
    let changed = ctx.state::<ListChanged>()?;
    let listening = changed.listening();
    changed.tools_changed().await;
    Ok(format!(
        "told {listening} listen streams that the tool list changed"
    ))
}

/// Needs a person's approval for every call: the server asks the client's user through
/// elicitation first (not a suite scenario; `interop/mcp/python_approval_client.py` answers the
/// form with the official Python SDK).
#[phi_tool(needs_approval)]
async fn test_approval(
    /// The file to delete
    path: String,
) -> String {
    format!("deleted {path}")
}

/// A tool whose schema declares JSON Schema 2020-12 and uses `$defs` (SEP-1613): written by
/// hand, since that is what the scenario checks is served unchanged.
struct JsonSchema202012;

#[async_trait]
impl Tool for JsonSchema202012 {
    fn name(&self) -> &'static str {
        "json_schema_2020_12_tool"
    }

    fn description(&self) -> &'static str {
        "Tool with JSON Schema 2020-12 features"
    }

    fn schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            // SEP-2106: root constraints on the declared fields, served as written (and left
            // out of the providers' schemas).
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {
                "properties": {"contactMethod": {"const": "phone"}},
                "required": ["contactMethod"]
            },
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }

    async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(format!("received {args}"))])
    }
}

fn registry() -> AgentResult<ToolRegistry> {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![
        test_simple_text,
        test_custom_headers,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_tool_with_logging,
        test_tool_with_progress,
        test_reconnection,
        test_error_handling,
        test_sampling,
        test_missing_capability,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_task_elicitation,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
        test_trigger_tool_change,
        test_approval,
        greet,
        slow_compute,
        failing_job,
        protocol_error_job,
        confirm_delete,
        multi_input,
        test_tool_with_task,
    ])?;
    registry.register(JsonSchema202012)?;
    Ok(registry)
}

fn server(registry: ToolRegistry) -> phi_agent::mcp::McpServer {
    let server = phi_agent::mcp_server!(registry);
    let changed = server.list_changed();
    server
        .with_context(ToolContext::default().with_state(changed))
        .with_resource(
            Resource::text(
                "test://static-text",
                "static-text",
                "This is the content of the static text resource.",
            )
            .with_description("A static text resource for testing"),
        )
        .with_resource(
            Resource::blob("test://static-binary", "static-binary", "image/png", PNG)
                .with_description("A static binary resource (image) for testing"),
        )
        .with_resource(
            Resource::text(
                "test://watched-resource",
                "watched-resource",
                "Watched resource content",
            )
            .with_description("A resource that can be subscribed to"),
        )
        .with_resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template", |uri, vars| async move {
                let id = &vars["id"];
                let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok(ResourceContents::text(uri, "application/json", text.to_string()))
            })
            .with_description("A resource template with parameter substitution")
            .with_mime_type("application/json"),
        )
        .with_prompt(
            Prompt::fixed(
                "test_simple_prompt",
                vec![PromptMessage::user("This is a simple prompt for testing.")],
            )
            .with_description("A simple prompt without arguments"),
        )
        .with_prompt(
            Prompt::new("test_prompt_with_arguments", |args| async move {
                Ok(vec![PromptMessage::user(format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args["arg1"], args["arg2"]
                ))])
            })
            .with_description("A prompt with required arguments")
            .with_argument("arg1", "First test argument", true)
            .with_argument("arg2", "Second test argument", true),
        )
        .with_prompt(
            Prompt::new("test_prompt_with_embedded_resource", |args| async move {
                Ok(vec![
                    PromptMessage::user(Content::resource(ResourceContents::text(
                        args["resourceUri"].clone(),
                        "text/plain",
                        "Embedded resource content for testing.",
                    ))),
                    PromptMessage::user("Please process the embedded resource above."),
                ])
            })
            .with_description("A prompt with an embedded resource")
            .with_argument("resourceUri", "URI of the resource to embed", true),
        )
        .with_prompt(
            Prompt::fixed(
                "test_prompt_with_image",
                vec![
                    PromptMessage::user(Content::image(PNG, "image/png")),
                    PromptMessage::user("Please analyze the image above."),
                ],
            )
            .with_description("A prompt with image content"),
        )
        .with_prompt(
            Prompt::asking("test_input_required_result_prompt", |_args, ctx| async move {
                let answer = ctx
                    .elicit::<UserContext>("What context should the prompt use?")
                    .await?;
                let context = said(answer, |user| user.context);
                Ok(vec![PromptMessage::user(format!(
                    "A prompt for this context: {context}"
                ))])
            })
            .with_description("A prompt that asks the user for its context first"),
        )
        .with_completion(|_target, _argument, _typed| Vec::new())
        .with_skills(&skills())
}

/// The skills the SEP-2640 scenarios list, get and read: one skill with a reference file.
fn skills() -> SkillCatalog {
    let skills = Skill::new(
        "pdf-processing",
        "Extract, fill, and assemble PDF documents",
        "# PDF processing\n\nRead the form's fields first; see references/FORMS.md.\n",
    )
    .and_then(|skill| skill.with_file("references/FORMS.md", "Text fields, check boxes.\n"))
    .and_then(|skill| SkillCatalog::new().with(skill));
    // Built from constants: a mistake in them is this program's bug.
    skills.expect("the fixture's skill is valid")
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-conformance-server: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> AgentResult<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = args.first().map_or("127.0.0.1:8920", String::as_str);
    let address = address.parse().map_err(|error| {
        AgentError::Config(format!("`{address}` is not a socket address ({error})"))
    })?;
    let stateless = args.iter().any(|arg| arg == "--stateless");
    let options = HttpOptions::default()
        .with_bind(address)
        .with_stateless(stateless);
    let http = server(registry()?).serve_http(options).await?;
    eprintln!(
        "conformance fixture: {} (stateless: {stateless})",
        http.url()
    );
    tokio::signal::ctrl_c()
        .await
        .map_err(|error| AgentError::Config(format!("cannot wait for Ctrl-C: {error}")))?;
    http.shutdown().await;
    Ok(())
}
