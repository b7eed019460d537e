//! [`ToolSpec`]: a tool as the model is shown it. The registry makes one per registered tool; a
//! request carries the visible ones, and each adapter turns them into its provider's definitions.

use std::sync::Arc;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::Value;

use super::examples::InputExamples;
use crate::schema::{Dialect, DialectError, DialectSchemas};
use crate::tool::{ToolCallers, ToolGroup};

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The tool's description.
    pub description: &'static str,
    /// The tool's argument schema, in canonical form.
    pub schema: Arc<Value>,
    /// The schema in each provider dialect, derived on first use and shared by every clone (and
    /// so by every turn's request). Crate-private: adapters read it through [`dialect_schema`]
    /// and the definitions in [`crate::llm::definition`].
    ///
    /// [`dialect_schema`]: ToolSpec::dialect_schema
    pub(crate) dialects: Arc<DialectSchemas>,
    /// The tool's input examples, if it has any; read through
    /// [`input_examples`](ToolSpec::input_examples).
    pub(crate) examples: Option<Arc<InputExamples>>,
    /// Who may call the tool; read through [`callers`](ToolSpec::callers).
    pub(crate) callers: ToolCallers,
    /// The tool's group ([`Tool::group`](crate::Tool::group)); read through
    /// [`group`](ToolSpec::group).
    pub(crate) group: Option<Arc<ToolGroup>>,
}

impl ToolSpec {
    /// A spec for a tool that is not in a registry; `schema` is brought into canonical form.
    pub fn new(name: &'static str, description: &'static str, schema: Value) -> Self {
        Self {
            name,
            description,
            schema: Arc::new(crate::schema::canonicalize(schema)),
            dialects: Arc::default(),
            examples: None,
            callers: ToolCallers::Both,
            group: None,
        }
    }

    /// The tool's group, if it has one: an adapter whose provider groups tools (the Responses
    /// API's `namespace`) sends the tools of one group together, with its description.
    pub fn group(&self) -> Option<&ToolGroup> {
        self.group.as_deref()
    }

    /// This spec with [`group`](Self::group) set to `group`.
    pub fn with_group(mut self, group: ToolGroup) -> Self {
        self.group = Some(Arc::new(group));
        self
    }

    /// Who may call the tool ([`ToolOptions::callers`](crate::ToolOptions::callers)); read by an adapter that
    /// speaks its provider's programmatic tool calling.
    pub fn callers(&self) -> ToolCallers {
        self.callers
    }

    /// This spec with [`callers`](Self::callers) set to `callers`.
    pub fn with_callers(mut self, callers: ToolCallers) -> Self {
        self.callers = callers;
        self
    }

    /// This spec with `examples` as its [`input_examples`](Self::input_examples), unchecked (a
    /// registry checks a tool's own at registration).
    ///
    /// ```
    /// use phi_agent::llm::{ToolSpec, definition};
    /// use serde_json::json;
    /// let spec = ToolSpec::new("ping", "Answer pong", json!({"type": "object", "properties": {"n": {"type": "integer"}}}))
    ///     .with_input_examples(vec![json!({"n": 3})]);
    /// assert_eq!(definition::anthropic(&spec)["input_examples"], json!([{"n": 3}]));
    /// assert!(definition::openai(&spec)["function"]["description"].as_str().unwrap().ends_with("{\"n\":3}"));
    /// ```
    pub fn with_input_examples(mut self, examples: Vec<serde_json::Value>) -> Self {
        self.examples = InputExamples::new(self.description, examples);
        self
    }

    /// Example arguments shown to the model with the tool ([`ToolOptions::input_examples`]).
    ///
    /// [`ToolOptions::input_examples`]: crate::ToolOptions::input_examples
    pub fn input_examples(&self) -> &[Value] {
        self.examples.as_deref().map_or(&[], InputExamples::values)
    }

    /// The description as a provider without an `input_examples` field reads it: the
    /// description followed by the examples, one JSON object a line; the description alone
    /// when there are none.
    pub fn description_with_examples(&self) -> &str {
        self.examples
            .as_deref()
            .map_or(self.description, InputExamples::described)
    }

    /// The argument schema in `dialect`, computed at most once per tool and dialect; see
    /// [`crate::llm::definition`] for the provider tool objects built from it.
    pub fn dialect_schema(&self, dialect: Dialect) -> Result<&Value, &DialectError> {
        self.dialects.get(&self.schema, dialect)
    }

    /// The schema in `dialect`, or (for a spec that never went through a registry, whose
    /// schema may break a provider's root rule) the canonical schema as it is, with a warning
    /// once per tool and dialect: the provider will probably refuse it.
    pub(crate) fn dialect_schema_or_canonical(&self, dialect: Dialect) -> &Value {
        match self.dialect_schema(dialect) {
            Ok(schema) => schema,
            Err(error) => {
                self.dialects.warn_once(dialect, || {
                    tracing::warn!(
                        tool = self.name,
                        dialect = %dialect,
                        reason = %error,
                        "tool schema breaks the provider's root rule; sending it unchanged"
                    );
                });
                &self.schema
            }
        }
    }
}

/// What a person printing a spec wants to see: the name, the description, the canonical schema,
/// who may call it and its input examples (when it has any). The provider dialects are left
/// out: they are derived from the schema, and each adapter's definition shows its own.
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let spec = ToolSpec::new("ping", "Answer pong", json!({"type": "object", "properties": {}}));
/// let printed = serde_json::to_value(&spec).unwrap();
/// assert_eq!(printed["name"], "ping");
/// assert_eq!(printed["schema"]["type"], "object");
/// assert_eq!(printed["callers"], "both");
/// assert!(printed.get("input_examples").is_none());
/// ```
impl Serialize for ToolSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let examples = self.input_examples();
        let fields = if examples.is_empty() { 4 } else { 5 };
        let mut out = serializer.serialize_struct("ToolSpec", fields)?;
        out.serialize_field("name", self.name)?;
        out.serialize_field("description", self.description)?;
        out.serialize_field("schema", self.schema.as_ref())?;
        out.serialize_field("callers", &self.callers)?;
        if !examples.is_empty() {
            out.serialize_field("input_examples", examples)?;
        }
        out.end()
    }
}
