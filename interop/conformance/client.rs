//! The client program of the official MCP conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance client --command ...`), written with phi-agent's own API:
//! `McpClient::connect_http` to the URL the suite appends to the command line, every tool the
//! scenario's server lists called once (arguments made from its schema), questions answered by
//! an elicitation handler that accepts the form's defaults, and the connection closed.
//!
//! OAuth as a program would set it up (`McpOAuth`): the authorization URL is "opened" by fetching
//! it without following the redirect, whose `Location` (the redirect URI with the code) goes back
//! to the client, as a browser and a loopback listener would; this client's metadata document URL
//! is the one the suite's CIMD scenario expects.
//!
//! The suite names the scenario in `MCP_CONFORMANCE_SCENARIO` and gives what the scenario
//! pre-arranged (a client id and secret, a private key, an identity provider and its ID token)
//! in `MCP_CONFORMANCE_CONTEXT`; this program does the same for every scenario and reads the
//! context only for what a real program would be configured with: its pre-registered client,
//! and its grant (`McpOAuthGrant`): the JWT bearer grant when a workload's token is given
//! (`valid_jwt`, workload identity federation), cross-app access when an identity provider is
//! given, client credentials for the `auth/client-credentials-*` scenarios (whose context looks
//! like a pre-registered client's: the scenario name stands for the operator's choice of
//! grant), else the authorization code; DPoP (`McpOAuth::with_dpop`, a key per run) for the
//! `auth/dpop*` scenarios, the name again standing for the operator's choice. Run by `interop/conformance/run-client`; by hand:
//! `cargo run -p phi-agent --features mcp --example mcp-conformance-client -- http://127.0.0.1:PORT/mcp`.
//! The server's skills are imported (`McpClient::skills`) and, in the skills scenarios that
//! need one, loaded (see `use_skills`).
//! Exits 1 with the error on stderr when the connection or a call fails on the client's side.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use phi_agent::mcp::{
    McpAssertion, McpClient, McpClientOptions, McpCrossApp, McpDpopKey, McpHttpOptions, McpOAuth,
    McpOAuthGrant, McpPrivateKey, McpTool,
};
use phi_agent::{AgentError, AgentResult, Elicitation, ElicitationRequest, Tool, ToolContext};
use serde_json::{Map, Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: mcp-conformance-client <server URL>");
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let oauth = match oauth() {
        Ok(oauth) => oauth,
        Err(error) => {
            eprintln!("mcp-conformance-client ({scenario}): {error}");
            return ExitCode::FAILURE;
        }
    };
    match run(&url, oauth, &scenario, &context()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-conformance-client ({scenario}): {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, oauth: McpOAuth, scenario: &str, context: &Value) -> AgentResult<()> {
    // The person accepts every form as it is offered: the client fills in its defaults.
    let accept = |request: ElicitationRequest| async move {
        eprintln!("elicitation: {}", request.message);
        Elicitation::Accept(json!({}))
    };
    let options = McpClientOptions::default()
        .with_elicitation_handler(accept)
        .with_connect_timeout(Duration::from_secs(20))
        .with_call_timeout(Duration::from_secs(20));
    let http = McpHttpOptions::default().with_oauth(oauth);
    let client = McpClient::connect_http("conformance", url, http, options).await?;
    let ctx = ToolContext::default();
    let tools = client.tools();
    for (tool, arguments) in calls(&tools, scenario, context) {
        match tool.call(&arguments, &ctx).await {
            Ok(answer) => {
                let text: Vec<String> = answer.iter().map(|c| c.to_model_text()).collect();
                eprintln!("{}({arguments}): {}", tool.remote_name(), text.join(" "));
            }
            // The server's refusal: the tool's result for a model, not a failure of the client.
            Err(AgentError::Tool(refusal)) => {
                eprintln!("{}({arguments}) refused: {refusal}", tool.remote_name());
            }
            Err(error) => return Err(error),
        }
    }
    use_skills(&client, scenario).await?;
    client.close().await;
    Ok(())
}

/// The server's skills (SEP-2640), imported as a catalogue: listed, never read ahead. The
/// `sep-2640-client-verify-*` scenarios stand for a task that needs the skill (as the scenario
/// name stands for the operator's grant above): the model loads it, its `SKILL.md` read and
/// checked, and only a skill that passes the checks has its files read. A refused skill is
/// the model's error to read, not a failure of the client.
async fn use_skills(client: &McpClient, scenario: &str) -> AgentResult<()> {
    let skills = client.skills().await?;
    eprintln!(
        "skills: {}",
        skills
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !scenario.starts_with("sep-2640-client-verify-") {
        return Ok(());
    }
    for skill in skills.iter() {
        match skill.load().await {
            Ok(instructions) => {
                eprintln!("{} loaded: {} bytes", skill.name(), instructions.len());
                for path in skill.files() {
                    let read = skill.fetch_file(&path).await;
                    eprintln!("{}/{path}: {:?}", skill.name(), read.map(|text| text.len()));
                }
            }
            Err(refusal) => eprintln!("{} refused: {refusal}", skill.name()),
        }
    }
    Ok(())
}

/// The calls to make: those the scenario's context lists (`toolCalls`: a name and its
/// arguments), else every tool once, with arguments made from its schema (the echo tool of
/// `json-schema-2020-12-preservation` with the schema this client kept of the other tool).
fn calls<'a>(
    tools: &'a [Arc<McpTool>],
    scenario: &str,
    context: &Value,
) -> Vec<(&'a McpTool, Value)> {
    if let Some(listed) = context["toolCalls"].as_array() {
        return listed
            .iter()
            .filter_map(|call| {
                let name = call["name"].as_str()?;
                let tool = tools.iter().find(|tool| tool.remote_name() == name)?;
                Some((tool.as_ref(), call["arguments"].clone()))
            })
            .collect();
    }
    tools
        .iter()
        .map(|tool| {
            let echoed = (scenario == "json-schema-2020-12-preservation"
                && tool.remote_name() == "json_schema_echo")
                .then(|| {
                    tools
                        .iter()
                        .find(|other| other.remote_name() != "json_schema_echo")
                })
                .flatten();
            let arguments = match echoed {
                Some(other) => json!({ "schema": other.schema() }),
                None => arguments_for(&tool.schema()),
            };
            (tool.as_ref(), arguments)
        })
        .collect()
}

/// What the scenario pre-arranged (`MCP_CONFORMANCE_CONTEXT`), or null.
fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// OAuth as configured for this client, with the scenario's pre-registered client and grant if
/// it has them.
fn oauth() -> Result<McpOAuth, String> {
    let context = context();
    let mut oauth = McpOAuth::default()
        .with_client_name("phi-agent conformance client")
        .with_redirect_uri("http://localhost:3000/callback")
        .with_client_metadata_url("https://conformance-test.local/client-metadata.json")
        .with_authorizer(follow_authorization);
    if let Some(id) = context["client_id"].as_str() {
        oauth = oauth.with_client_id(id);
    }
    if let Some(secret) = context["client_secret"].as_str() {
        oauth = oauth.with_client_secret(secret);
    }
    if let Some(pem) = context["private_key_pem"].as_str() {
        let key = McpPrivateKey::from_pkcs8_pem(pem)?;
        oauth = oauth.with_private_key(key);
    }
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if scenario.starts_with("auth/dpop") {
        oauth = oauth.with_dpop(McpDpopKey::generate()?);
    }
    if let Some(jwt) = context["valid_jwt"].as_str() {
        oauth = oauth.with_grant(McpOAuthGrant::JwtBearer(McpAssertion::new(jwt)));
    } else if let Some(id_token) = context["idp_id_token"].as_str() {
        let idp = McpCrossApp::default()
            .with_idp_issuer(context["idp_issuer"].as_str().unwrap_or_default())
            .with_idp_token_endpoint(context["idp_token_endpoint"].as_str().unwrap_or_default())
            .with_idp_client_id(context["idp_client_id"].as_str().unwrap_or_default())
            .with_id_token(id_token);
        oauth = oauth.with_grant(McpOAuthGrant::CrossApp(idp));
    } else if scenario.starts_with("auth/client-credentials") {
        oauth = oauth.with_grant(McpOAuthGrant::ClientCredentials);
    }
    Ok(oauth)
}

/// The person's step, done by a program: fetch the authorization URL and read where the server
/// redirects to (the redirect URI, with `code` and `state`).
async fn follow_authorization(url: String) -> Result<String, String> {
    eprintln!("authorizing at {url}");
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let response = http.get(&url).send().await.map_err(|e| e.to_string())?;
    response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|location| location.to_str().ok())
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "the authorization server answered {} with no redirect",
                response.status()
            )
        })
}

/// Arguments for a tool from its schema: each required property gets a value of its type.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = properties
            .and_then(|properties| properties.get(name))
            .and_then(|property| property.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("string");
        let value = match kind {
            "number" | "integer" => json!(1),
            "boolean" => json!(true),
            "array" => json!([]),
            "object" => json!({}),
            _ => json!("test"),
        };
        arguments.insert(name.to_string(), value);
    }
    Value::Object(arguments)
}
