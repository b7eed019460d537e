//! Talking back through a [`ToolContext`]: what its peer hears, in order, and a typed question's
//! answer (the context's methods over `talk`'s types, so tested beside both, not inside either).

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ToolContext;
use super::talk::{Elicitation, LogLevel, Progress, SampleRequest, Sampled, ToolPeer};
use crate::error::AgentResult;

/// What an agent loop or a test plugs in: records what the tool says, answers its questions.
#[derive(Debug, Default)]
struct Recorder {
    said: Mutex<Vec<String>>,
    answer: Mutex<Option<Elicitation<Value>>>,
}

#[async_trait]
impl ToolPeer for Recorder {
    async fn progress(&self, progress: Progress) {
        self.said.lock().unwrap().push(format!(
            "progress {} {:?} {:?}",
            progress.done, progress.total, progress.message
        ));
    }
    async fn log(&self, level: LogLevel, data: Value) {
        self.said
            .lock()
            .unwrap()
            .push(format!("log {level:?} {data}"));
    }
    async fn elicit(&self, message: &str, schema: Value) -> AgentResult<Elicitation<Value>> {
        self.said
            .lock()
            .unwrap()
            .push(format!("elicit {message} {schema}"));
        Ok(self
            .answer
            .lock()
            .unwrap()
            .take()
            .unwrap_or(Elicitation::Cancel))
    }
    async fn sample(&self, request: SampleRequest) -> AgentResult<Sampled> {
        self.said
            .lock()
            .unwrap()
            .push(format!("sample {:?}", request.messages));
        Ok(Sampled::new("four", "test-model").with_stop_reason("endTurn"))
    }
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead?
    proceed: bool,
    /// A note
    note: Option<String>,
    /// How many copies
    copies: u16,
}

#[tokio::test]
async fn a_peer_hears_everything_in_order_and_answers_typed_questions() {
    let recorder = Arc::new(Recorder::default());
    *recorder.answer.lock().unwrap() =
        Some(Elicitation::Accept(json!({"proceed": true, "copies": 2})));
    let ctx = ToolContext::default().with_peer(recorder.clone());
    assert!(ctx.has_peer());
    ctx.progress(1.0, Some(2.0), Some("half")).await;
    ctx.log(LogLevel::Warning, "careful").await;
    let answer = ctx.elicit::<Confirm>("Print?").await.unwrap();
    assert_eq!(
        answer,
        Elicitation::Accept(Confirm {
            proceed: true,
            note: None,
            copies: 2
        })
    );
    let sampled = ctx.sample(SampleRequest::new("2 + 2?")).await.unwrap();
    assert_eq!(
        (sampled.text.as_str(), sampled.model.as_str()),
        ("four", "test-model")
    );
    // A clone of the context (what a blocking tool holds) talks to the same peer.
    ctx.clone().progress(2.0, Some(2.0), None).await;

    let said = recorder.said.lock().unwrap().clone();
    assert_eq!(said[0], r#"progress 1 Some(2.0) Some("half")"#);
    assert_eq!(said[1], r#"log Warning "careful""#);
    let form: Value =
        serde_json::from_str(said[2].strip_prefix("elicit Print? ").unwrap()).unwrap();
    assert_eq!(form["properties"]["note"]["type"], "string", "{form}");
    assert!(
        form["properties"]["copies"].get("format").is_none(),
        "{form}"
    );
    assert_eq!(form["properties"]["copies"]["maximum"], 65535);
    assert_eq!(form["required"], json!(["proceed", "copies"]));
    assert!(form.get("$schema").is_none() && form.get("title").is_none());
    assert_eq!(said[3], r#"sample [(User, "2 + 2?")]"#);
    assert_eq!(said[4], "progress 2 Some(2.0) None");
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_form_is_an_error_not_a_panic() {
    let recorder = Arc::new(Recorder::default());
    *recorder.answer.lock().unwrap() = Some(Elicitation::Accept(json!({"proceed": "yes"})));
    let ctx = ToolContext::default().with_peer(recorder);
    let error = ctx.elicit::<Confirm>("Print?").await.unwrap_err();
    assert!(
        error.to_string().contains("does not fit the form"),
        "{error}"
    );
}

/// The key a form's question goes by, from its type's name.
#[test]
fn a_forms_key_is_its_type_name_in_snake_case() {
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct UserName {
        name: String,
    }
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Step2 {
        color: String,
    }
    assert_eq!(super::talk::form_key::<UserName>(), "user_name");
    assert_eq!(super::talk::form_key::<Step2>(), "step2");
    assert_eq!(
        super::talk::form_key::<Vec<UserName>>(),
        "array_of_user_name"
    );
}
