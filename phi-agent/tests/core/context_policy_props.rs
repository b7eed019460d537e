//! Property: whatever the history (calls answered in any order, cancelled or denied calls
//! answered with errors, turns without calls, provider searches, images), a context policy keeps
//! every call paired with its result, in the history and in the Anthropic request made of it
//! (each `tool_use` answered by a `tool_result` in the next user turn: the API's most frequent
//! 400 otherwise), leaves the latest turns alone, changes nothing when applied twice, and moves
//! the cleared boundary only a whole batch at a time, so that the prompt-cache prefix changes
//! at most once per batch of turns.

use std::collections::HashSet;

use phi_agent::Content;
use phi_agent::ContextPolicy;
use phi_agent::llm::{AnthropicClient, LlmRequest, Message, ToolCall, ToolSearchCall};
use proptest::prelude::*;
use serde_json::{Value, json};

/// One step of a generated conversation.
#[derive(Debug, Clone)]
enum Step {
    /// The user speaks.
    User,
    /// The model answers without calls.
    Answer,
    /// The provider searched tools for the model.
    Search,
    /// The model calls `calls` tools; each result is an error (cancelled, denied) or not, and
    /// large or not; the results arrive in the order of `order` (a rotation).
    Calls {
        errors: Vec<bool>,
        large: Vec<bool>,
        order: usize,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::User),
        1 => Just(Step::Answer),
        1 => Just(Step::Search),
        4 => (1usize..4).prop_flat_map(|n| (
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec(any::<bool>(), n),
            0..n,
        )).prop_map(|(errors, large, order)| Step::Calls { errors, large, order }),
    ]
}

/// The history `steps` make, opened by a user message.
fn history(steps: &[Step]) -> Vec<Message> {
    let mut messages = vec![Message::user("start")];
    for (k, step) in steps.iter().enumerate() {
        match step {
            Step::User => messages.push(Message::user(format!("more {k}"))),
            Step::Answer => messages.push(Message::assistant(format!("answer {k}"))),
            Step::Search => messages.push(Message::ToolSearch(ToolSearchCall::new(
                format!("srvtoolu_{k}"),
                json!({"query": "q"}),
                ["found"],
            ))),
            Step::Calls {
                errors,
                large,
                order,
            } => {
                let calls: Vec<ToolCall> = (0..errors.len())
                    .map(|i| ToolCall::new(format!("c{k}_{i}"), "look", json!({"i": i})))
                    .collect();
                messages.push(Message::Assistant {
                    text: String::new(),
                    tool_calls: calls.clone(),
                });
                let n = calls.len();
                for j in 0..n {
                    let i = (j + order) % n;
                    let content = if large[i] {
                        vec![
                            Content::text("x".repeat(2_000)),
                            Content::image("AAAA", "image/png"),
                        ]
                    } else {
                        vec![Content::text(format!("result {k} {i}"))]
                    };
                    messages.push(Message::Tool {
                        tool_call_id: calls[i].id.clone(),
                        name: calls[i].name.clone(),
                        content: if errors[i] {
                            vec![Content::text("cancelled: the run was stopped")]
                        } else {
                            content
                        },
                        is_error: errors[i],
                    });
                }
            }
        }
    }
    messages
}

/// Every call answered once, after it and before the next model message; every result answers
/// a call of the model message before it.
fn paired(messages: &[Message]) -> Result<(), String> {
    let mut open: HashSet<&str> = HashSet::new();
    for message in messages {
        match message {
            Message::Assistant { tool_calls, .. } => {
                if !open.is_empty() {
                    return Err(format!(
                        "unanswered before the next model message: {open:?}"
                    ));
                }
                open = tool_calls.iter().map(|call| call.id.as_str()).collect();
            }
            Message::Tool { tool_call_id, .. } if !open.remove(tool_call_id.as_str()) => {
                return Err(format!("a result without its call: {tool_call_id}"));
            }
            _ => {}
        }
    }
    match open.is_empty() {
        true => Ok(()),
        false => Err(format!("unanswered at the end: {open:?}")),
    }
}

/// In the Anthropic body: each assistant turn's `tool_use` ids are exactly the `tool_result`
/// ids of the next turn, a user turn.
fn anthropic_paired(body: &Value) -> Result<(), String> {
    let turns = body["messages"].as_array().unwrap();
    let ids = |turn: &Value, kind: &str, key: &str| -> HashSet<String> {
        turn["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|block| block["type"] == kind)
            .map(|block| block[key].as_str().unwrap().to_string())
            .collect()
    };
    for (index, turn) in turns.iter().enumerate() {
        let uses = ids(turn, "tool_use", "id");
        let answered = match turns.get(index + 1) {
            Some(next) if next["role"] == "user" => ids(next, "tool_result", "tool_use_id"),
            _ => HashSet::new(),
        };
        if turn["role"] == "assistant" && uses != answered {
            return Err(format!(
                "turn {index}: calls {uses:?}, results {answered:?}"
            ));
        }
    }
    Ok(())
}

/// The messages with the content of results left out: what a policy may not change.
fn shape(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|message| match message {
            Message::Tool {
                tool_call_id,
                name,
                is_error,
                ..
            } => Message::Tool {
                tool_call_id: tool_call_id.clone(),
                name: name.clone(),
                content: Vec::new(),
                is_error: *is_error,
            },
            other => other.clone(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_policy_keeps_every_call_paired_and_the_prefix_stable_between_batches(
        steps in proptest::collection::vec(step(), 0..40),
        keep in 0usize..5,
        batch in 1usize..5,
    ) {
        let policy = ContextPolicy::keep_tool_results(keep).with_batch_turns(batch);
        let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
        let full = history(&steps);
        prop_assert!(paired(&full).is_ok(), "the generator pairs: {:?}", paired(&full));

        // The requests of a session that grows one message at a time, its history the policed
        // one (an agent applies the policy to the history it keeps).
        let mut session: Vec<Message> = Vec::new();
        let mut previous: Option<Vec<Message>> = None;
        let mut prefix_changes = 0;
        let mut boundaries = 0;
        for end in 1..=full.len() {
            session.push(full[end - 1].clone());
            // A history cut before all of a turn's results is not one a request is made of.
            if paired(&session).is_err() {
                continue;
            }
            let cleared = policy.apply("s", &mut session);
            prop_assert!(paired(&session).is_ok(), "{:?}", paired(&session));
            prop_assert_eq!(shape(&session), shape(&full[..end]));
            let body = client.request_body(&LlmRequest::new(session.clone()));
            prop_assert!(anthropic_paired(&body).is_ok(), "{:?}", anthropic_paired(&body));
            // Applied again: nothing more to clear, the same bytes.
            let mut again = session.clone();
            prop_assert_eq!(policy.apply("s", &mut again), 0);
            prop_assert_eq!(&again, &session);
            // The latest `keep` turns with calls keep their results as they were.
            let turns: Vec<usize> = full[..end].iter().enumerate()
                .filter(|(_, m)| matches!(m, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty()))
                .map(|(i, _)| i)
                .collect();
            if keep > 0 && let Some(&first_kept) = turns.len().checked_sub(keep).and_then(|at| turns.get(at)) {
                prop_assert_eq!(&session[first_kept..], &full[first_kept..end]);
            }
            if let Some(before) = &previous
                && session[..before.len()] != before[..]
            {
                prefix_changes += 1;
            }
            if cleared > 0 {
                boundaries += 1;
            }
            previous = Some(session.clone());
        }
        // Each change of the prefix is a boundary moving, a whole batch at a time.
        let turns = full.iter()
            .filter(|m| matches!(m, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty()))
            .count();
        prop_assert!(prefix_changes <= boundaries, "{prefix_changes} changes, {boundaries} clearings");
        prop_assert!(boundaries <= turns.saturating_sub(keep) / batch, "{boundaries} clearings over {turns} turns, batch {batch}");
    }
}
