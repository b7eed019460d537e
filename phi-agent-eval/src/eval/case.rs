//! A case of a dataset: the input, and what a good run of it does.

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

type ArgumentTest = Arc<dyn Fn(&Value) -> bool + Send + Sync>;
type AnswerTest = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// A predicate on the arguments of one tool's calls: it holds when any call of `tool` has
/// arguments it accepts.
#[derive(Clone)]
pub(crate) struct ArgumentCheck {
    pub(crate) tool: String,
    pub(crate) what: String,
    pub(crate) test: ArgumentTest,
}

/// A predicate on the answer.
#[derive(Clone)]
pub(crate) struct AnswerCheck {
    pub(crate) what: String,
    pub(crate) test: AnswerTest,
}

/// One input for the agent and what should happen: the tools called, predicates on their
/// arguments and on the answer, and bounds on turns and tokens. Every expectation is optional;
/// a case with none succeeds when the run does.
///
/// ```
/// use phi_agent_eval::eval::Case;
/// let case = Case::new("sum", "What is 6 plus 7?")
///     .expect_tools(["add"])
///     .expect_arguments("add", "adds 6 and 7", |args| args["a"] == 6 && args["b"] == 7)
///     .expect_answer("says 13", |text| text.contains("13"))
///     .max_turns(2)
///     .max_tokens(2_000);
/// assert_eq!(case.name(), "sum");
/// ```
#[derive(Clone)]
pub struct Case {
    pub(crate) name: String,
    pub(crate) input: String,
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) arguments: Vec<ArgumentCheck>,
    pub(crate) answer: Vec<AnswerCheck>,
    pub(crate) max_turns: Option<usize>,
    pub(crate) max_tokens: Option<u64>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name)
            .field("input", &self.input)
            .field("tools", &self.tools)
            .field("max_turns", &self.max_turns)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

impl Case {
    /// A case called `name` (in the report) that gives the agent `input`.
    pub fn new(name: impl Into<String>, input: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            input: input.into(),
            tools: None,
            arguments: Vec::new(),
            answer: Vec::new(),
            max_turns: None,
            max_tokens: None,
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its input.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The tools a good run calls (each at least once, no others): tool precision and recall
    /// are scored against them. An empty list expects no call.
    pub fn expect_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// A predicate, described as `what` in the report, that some call of `tool` satisfies with
    /// its arguments (the JSON object the model sent, repaired if it was).
    pub fn expect_arguments(
        mut self,
        tool: impl Into<String>,
        what: impl Into<String>,
        test: impl Fn(&Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.arguments.push(ArgumentCheck {
            tool: tool.into(),
            what: what.into(),
            test: Arc::new(test),
        });
        self
    }

    /// A predicate, described as `what`, on the final answer's text.
    pub fn expect_answer(
        mut self,
        what: impl Into<String>,
        test: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.answer.push(AnswerCheck {
            what: what.into(),
            test: Arc::new(test),
        });
        self
    }

    /// A predicate, described as `what`, on the answer read as JSON of type `T` (a typed
    /// answer): it fails when the answer is no such JSON.
    pub fn expect_output<T: DeserializeOwned>(
        self,
        what: impl Into<String>,
        test: impl Fn(&T) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.expect_answer(what, move |text| {
            serde_json::from_str::<T>(text.trim()).is_ok_and(|value| test(&value))
        })
    }

    /// At most `turns` model turns.
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// At most `tokens` tokens, read and written together, over the run.
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.max_tokens = Some(tokens);
        self
    }
}
