//! What a model reads about one refused tool call: the shape of its arguments, each mistake
//! against the tool's schema (the field it probably meant among them), the list that puts several
//! into one result, and the warning added to a call that keeps failing. The text of a missing
//! `requires_tools` entry, read by the program's author, is made here too: it guesses the
//! intended name the way an unknown field does.

use std::fmt::{self, Write as _};

use serde_json::Value;

use super::describe::name_list;
use crate::limits;

/// How many mistakes one result lists; the rest are counted ("and 3 more"). A model fixes a
/// handful at a time, and a long list would crowd out the conversation.
pub const MAX_LISTED_MISTAKES: usize = 10;

/// One mistake in a model's arguments: where it is and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentMistake {
    /// JSON path of the value, e.g. `filters.tags[1]`; [`ROOT_PATH`](crate::ROOT_PATH) for the
    /// arguments object itself.
    pub path: String,
    /// What was wrong there and what was expected, e.g. "expected a string, found `5`".
    pub message: String,
}

impl fmt::Display for ArgumentMistake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.message)
    }
}

/// The whole text of [`AgentError::ArgumentMistakes`](crate::AgentError::ArgumentMistakes): one
/// line per listed mistake, so that a model can work down the list.
pub(crate) fn mistakes_list(tool: &str, mistakes: &[ArgumentMistake], omitted: usize) -> String {
    let total = mistakes.len() + omitted;
    let mut text = format!(
        "invalid arguments for tool `{tool}`, {total} mistakes; fix the arguments to match the \
         tool's schema and call it again:"
    );
    for mistake in mistakes {
        let _ = write!(text, "\n- {mistake}");
    }
    if omitted > 0 {
        let _ = write!(text, "\n- and {omitted} more");
    }
    text
}

/// The arguments arrived as text that is not JSON (adapters keep it as a string).
pub(crate) fn arguments_are_text(raw: &str) -> String {
    format!(
        "the arguments are not a JSON object but the text {:?}; send one JSON object",
        limits::snippet(raw.as_bytes())
    )
}

/// The arguments are a JSON array: positional arguments, which no tool takes.
pub(crate) fn arguments_are_an_array() -> String {
    "expected a JSON object of arguments, found an array; send one object whose keys are the \
     parameter names"
        .to_string()
}

/// The arguments are a number, a boolean or the like.
pub(crate) fn arguments_are_a_scalar(scalar: &Value) -> String {
    format!("expected a JSON object of arguments, found `{scalar}`")
}

/// The arguments nest deeper than dispatch reads.
pub(crate) fn arguments_too_deep(max_depth: usize) -> String {
    format!("the arguments nest more than {max_depth} levels deep; send flatter arguments")
}

/// The arguments are not an object, in the words the registry uses for each shape (for a tool
/// called without the registry's checks).
pub(crate) fn not_an_object(args: &Value) -> String {
    match args {
        Value::String(raw) => arguments_are_text(raw),
        Value::Array(_) => arguments_are_an_array(),
        scalar => arguments_are_a_scalar(scalar),
    }
}

/// A field the object does not have; `known` are the fields it has, in declaration order.
pub(crate) fn unknown_field(name: &str, known: &[&str]) -> String {
    let mut text = format!("unknown field `{name}`");
    if known.is_empty() {
        text.push_str("; this object takes no fields");
        return text;
    }
    match closest(name, known.iter().copied()) {
        Some(close) => {
            let _ = write!(text, "; did you mean `{close}`? valid fields: ");
        }
        None => text.push_str("; valid fields: "),
    }
    text.push_str(&name_list(known));
    text
}

/// A field the object does not have, where the fields it has could not be read off the schema.
pub(crate) fn unknown_field_unlisted(name: &str) -> String {
    format!("unknown field `{name}`; remove it")
}

/// A required field that is missing; `expected` describes its value ([`describe`](super::describe)).
pub(crate) fn missing_field(name: &str, expected: &str) -> String {
    format!("missing required field `{name}`; expected {expected}")
}

/// A value that does not fit: `expected` from [`describe`](super::describe), `found` from [`found`](super::found).
pub(crate) fn expected_found(expected: &str, found: &str) -> String {
    format!("expected {expected}, found {found}")
}

/// A value that fits more than one alternative where exactly one must fit.
pub(crate) fn ambiguous(expected: &str) -> String {
    format!(
        "the value fits more than one of the allowed forms; send one that fits exactly one of {expected}"
    )
}

/// A value where the schema allows none (an item past the end of a fixed-length array).
pub(crate) fn nothing_allowed() -> String {
    "no value is allowed here; remove it".to_string()
}

/// An array longer than a fixed-length array may be.
pub(crate) fn too_many_items(limit: usize) -> String {
    format!("expected at most {limit} items; remove the rest")
}

/// Appended to the result of a failing call the model has sent `failures` times, the last time
/// it may: one more ends the run.
pub(crate) fn repeated_failure(tool: &str, failures: usize) -> String {
    format!(
        "\nThis identical call of `{tool}` has now failed {failures} times. Do not send it again: \
         change the arguments, use another tool, or answer with what you know. Sending it once \
         more ends the run."
    )
}

/// The text of [`AgentError::RequiredToolMissing`](crate::AgentError::RequiredToolMissing): read
/// by the program's author rather than the model, and worded like the texts above.
pub(crate) fn required_tool_missing(
    tool: &str,
    required: &str,
    hidden: bool,
    closest: Option<&str>,
) -> String {
    if hidden {
        return format!(
            "tool `{tool}` requires the tool `{required}`, which is hidden and so never active; \
             give `{required}` another exposure, or remove it from `requires_tools`"
        );
    }
    let guess = closest
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    format!(
        "tool `{tool}` requires the tool `{required}`, which is not registered{guess}; register \
         `{required}`, or correct the name in `requires_tools`"
    )
}

/// The candidate closest to `name` by edit distance, if any is close enough to be a likely
/// slip (a typo, a swapped pair of letters, another case).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = match name.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, candidate)| distance <= limit || name.eq_ignore_ascii_case(candidate))
        // `min_by_key` keeps the first of equals: the field declared first wins a tie.
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Edit distance with adjacent transpositions (optimal string alignment, strsim's), ignoring
/// ASCII case: `qurey` is one step from `query`, `maxResults` one from `max_results`.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::mistakes::found;

    #[test]
    fn an_unknown_field_gets_the_closest_valid_one_and_the_list() {
        assert_eq!(
            unknown_field("limt", &["query", "limit"]),
            "unknown field `limt`; did you mean `limit`? valid fields: `query`, `limit`"
        );
        assert_eq!(
            unknown_field("colour", &["query", "limit"]),
            "unknown field `colour`; valid fields: `query`, `limit`"
        );
        assert_eq!(unknown_field_unlisted("x"), "unknown field `x`; remove it");
        assert_eq!(
            unknown_field("x", &[]),
            "unknown field `x`; this object takes no fields"
        );
        let many: Vec<String> = (0..25).map(|i| format!("f{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(unknown_field("zz", &many).ends_with("`f19` and 5 more"));
    }

    #[test]
    fn a_call_failing_again_and_again_is_told_to_stop() {
        assert_eq!(
            repeated_failure("flaky", 3),
            "\nThis identical call of `flaky` has now failed 3 times. Do not send it again: change \
             the arguments, use another tool, or answer with what you know. Sending it once more \
             ends the run."
        );
    }

    #[test]
    fn a_missing_requirement_names_the_closest_tool_or_says_why_it_never_activates() {
        assert_eq!(
            required_tool_missing("file_write", "file_reed", false, Some("file_read")),
            "tool `file_write` requires the tool `file_reed`, which is not registered (did you \
             mean `file_read`?); register `file_reed`, or correct the name in `requires_tools`"
        );
        assert!(required_tool_missing("a", "b", false, None).contains("not registered; register"));
        assert!(
            required_tool_missing("a", "b", true, None).contains("is hidden and so never active")
        );
    }

    #[test]
    fn the_closest_name_allows_typos_transpositions_and_case() {
        let fields = ["query", "limit", "max_results", "id"];
        assert_eq!(closest("qurey", fields), Some("query"));
        assert_eq!(closest("limt", fields), Some("limit"));
        assert_eq!(closest("maxResults", fields), Some("max_results"));
        assert_eq!(closest("ID", fields), Some("id"));
        assert_eq!(
            closest("ix", fields),
            None,
            "two letters are too short to guess"
        );
        assert_eq!(closest("colour", fields), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn missing_fields_and_wrong_values_say_what_was_expected() {
        assert_eq!(
            missing_field("days", "an integer from 0 to 255"),
            "missing required field `days`; expected an integer from 0 to 255"
        );
        assert_eq!(
            expected_found("a string", &found(&json!(5))),
            "expected a string, found `5`"
        );
        assert!(ambiguous("a string or null").contains("exactly one of a string or null"));
        assert_eq!(nothing_allowed(), "no value is allowed here; remove it");
        assert_eq!(
            too_many_items(2),
            "expected at most 2 items; remove the rest"
        );
    }

    #[test]
    fn several_mistakes_are_one_line_each_and_capped() {
        let mistakes = vec![
            ArgumentMistake {
                path: "query".into(),
                message: "missing required field `query`; expected a string".into(),
            },
            ArgumentMistake {
                path: "limit".into(),
                message: "expected an integer, found the string \"ten\"".into(),
            },
        ];
        assert_eq!(
            mistakes_list("search", &mistakes, 3),
            "invalid arguments for tool `search`, 5 mistakes; fix the arguments to match the \
             tool's schema and call it again:\n\
             - at `query`: missing required field `query`; expected a string\n\
             - at `limit`: expected an integer, found the string \"ten\"\n\
             - and 3 more"
        );
    }

    #[test]
    fn the_shape_of_the_arguments_is_told_with_what_to_send() {
        assert_eq!(
            arguments_are_text("{city: Oslo"),
            "the arguments are not a JSON object but the text \"{city: Oslo\"; send one JSON object"
        );
        assert!(
            arguments_are_an_array().contains("send one object whose keys are the parameter names")
        );
        assert_eq!(
            arguments_are_a_scalar(&json!(7)),
            "expected a JSON object of arguments, found `7`"
        );
        assert_eq!(
            arguments_too_deep(128),
            "the arguments nest more than 128 levels deep; send flatter arguments"
        );
        assert_eq!(not_an_object(&json!([1])), arguments_are_an_array());
        assert_eq!(
            not_an_object(&json!(true)),
            arguments_are_a_scalar(&json!(true))
        );
    }
}
