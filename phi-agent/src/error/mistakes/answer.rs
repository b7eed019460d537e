//! What a typed run tells the model about its answer: that it must call the final-answer tool,
//! that its reply is not JSON, every mistake of a JSON reply, and what the final-answer call (and
//! a call beside it) gets once the answer is accepted.

use std::fmt::Write as _;

use crate::error::AgentError;

/// What a typed run tells a model that answered in plain text instead of calling its
/// final-answer tool `tool`.
pub(crate) fn answer_not_called(tool: &str) -> String {
    format!(
        "Your reply was plain text, but this task's answer must be given by calling the tool \
         `{tool}` with arguments that follow its schema. Call `{tool}` now with your answer."
    )
}

/// What a typed run tells a model whose reply, which had to be the answer as JSON (the
/// provider's structured output), is not JSON; `error` is the parser's own words (a line and
/// column, no Rust names).
pub(crate) fn answer_not_json(error: &str) -> String {
    format!(
        "Your reply must be the answer as one JSON value that follows the answer schema, and it \
         is not JSON ({error}). Reply with the JSON only."
    )
}

/// What a typed run tells a model whose JSON reply breaks the answer schema: every mistake, one
/// line each (`mistakes` as [`mistake_lines`] writes them).
pub(crate) fn answer_mistakes(mistakes: &str) -> String {
    format!(
        "Your answer does not follow the answer schema:{mistakes}\nReply with the corrected JSON \
         only."
    )
}

/// The mistakes of a refused argument error, one `\n- at `path`: message` line each; an error
/// of another kind as its own text on one line.
pub(crate) fn mistake_lines(error: &AgentError) -> String {
    let mut text = String::new();
    match error {
        AgentError::InvalidArguments { path, message, .. } => {
            let _ = write!(text, "\n- at `{path}`: {message}");
        }
        AgentError::ArgumentMistakes {
            mistakes, omitted, ..
        } => {
            for mistake in mistakes {
                let _ = write!(text, "\n- {mistake}");
            }
            if *omitted > 0 {
                let _ = write!(text, "\n- and {omitted} more");
            }
        }
        other => {
            let _ = write!(text, "\n- {other}");
        }
    }
    text
}

/// The result a typed run's final-answer call gets once its answer is accepted: the run ends
/// there, and a later run of the same session reads it in the history.
pub(crate) fn answer_accepted() -> &'static str {
    "Answer received."
}

/// The result of a call made in the same turn as an accepted final answer: the answer ends the
/// run, so the call is not run.
pub(crate) fn not_run_after_answer(tool: &str) -> String {
    format!("Not run: the final answer (`{tool}`) was given in the same turn, which ends the run.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ArgumentMistake, ROOT_PATH};

    #[test]
    fn a_typed_answer_is_asked_for_in_words_the_model_can_act_on() {
        assert_eq!(
            answer_not_called("final_answer"),
            "Your reply was plain text, but this task's answer must be given by calling the tool \
             `final_answer` with arguments that follow its schema. Call `final_answer` now with \
             your answer."
        );
        assert_eq!(
            answer_not_json("expected value at line 1 column 1"),
            "Your reply must be the answer as one JSON value that follows the answer schema, and \
             it is not JSON (expected value at line 1 column 1). Reply with the JSON only."
        );
        let error = AgentError::ArgumentMistakes {
            tool: "final_answer".into(),
            mistakes: vec![
                ArgumentMistake {
                    path: "city".into(),
                    message: "missing field".into(),
                },
                ArgumentMistake {
                    path: "days".into(),
                    message: "expected an integer".into(),
                },
            ],
            omitted: 2,
        };
        assert_eq!(
            answer_mistakes(&mistake_lines(&error)),
            "Your answer does not follow the answer schema:\n- at `city`: missing field\n- at \
             `days`: expected an integer\n- and 2 more\nReply with the corrected JSON only."
        );
        let one = AgentError::InvalidArguments {
            tool: "final_answer".into(),
            path: ROOT_PATH.into(),
            message: "expected a JSON object".into(),
        };
        assert_eq!(
            mistake_lines(&one),
            "\n- at `(root)`: expected a JSON object"
        );
        assert_eq!(answer_accepted(), "Answer received.");
        assert_eq!(
            not_run_after_answer("final_answer"),
            "Not run: the final answer (`final_answer`) was given in the same turn, which ends the \
             run."
        );
    }
}
