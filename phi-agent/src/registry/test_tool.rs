//! A tool for the registry's unit tests: a name and an exposure, answering with its name.

use serde_json::{Value, json};

use crate::{AgentResult, Content, Tool, ToolContext, ToolExposure};

pub(super) struct Named(pub(super) &'static str, pub(super) ToolExposure);

impl Named {
    /// A Direct tool named `name`.
    pub(super) fn direct(name: &'static str) -> Self {
        Named(name, ToolExposure::Direct)
    }
}

#[async_trait::async_trait]
impl Tool for Named {
    fn name(&self) -> &'static str {
        self.0
    }
    fn description(&self) -> &'static str {
        "A tool"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn exposure(&self) -> ToolExposure {
        self.1
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(self.0)])
    }
}
