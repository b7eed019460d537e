//! Cache counters read from each adapter's replies, whole and streamed, into one convention:
//! `input_tokens` is the whole input, the cache counts are parts of it (see [`Usage`]). The
//! bodies are shaped as the providers document their replies with a cache hit.

use serde_json::{Value, json};

use super::{LlmResponse, StreamDelta, Usage};

/// The reply a decoded stream ends with.
fn done(deltas: Vec<StreamDelta>) -> LlmResponse {
    match deltas.into_iter().last() {
        Some(StreamDelta::Done(reply)) => reply,
        other => panic!("a stream ends with its reply, not {other:?}"),
    }
}

/// `events` as server-sent events, each `data:` line named by its `type` when `named`.
fn sse(events: &[Value], named: bool) -> String {
    events
        .iter()
        .map(|event| match (named, event["type"].as_str()) {
            (true, Some(kind)) => format!("event: {kind}\ndata: {event}\n\n"),
            _ => format!("data: {event}\n\n"),
        })
        .collect()
}

#[cfg(feature = "anthropic")]
mod anthropic {
    use super::*;
    use crate::llm::anthropic::{decode_stream, parse_response};

    /// Anthropic counts the three parts apart: 3 uncached, 2000 read, 500 written.
    const EXPECTED: (u64, u64, u64, u64) = (2503, 42, 2000, 500);

    fn counts(usage: Usage) -> (u64, u64, u64, u64) {
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
        )
    }

    #[test]
    fn a_message_with_cache_counters() {
        let body = json!({"type": "message", "role": "assistant", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "Done."}],
            "usage": {"input_tokens": 3, "output_tokens": 42,
                "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 500,
                "cache_creation": {"ephemeral_5m_input_tokens": 500, "ephemeral_1h_input_tokens": 0}}});
        let reply = parse_response(&body).unwrap();
        assert_eq!(counts(reply.usage), EXPECTED);
        assert_eq!(reply.usage.uncached_input_tokens(), 3);
    }

    #[test]
    fn a_stream_with_cache_counters() {
        let events = [
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                "role": "assistant", "model": "m", "content": [],
                "usage": {"input_tokens": 3, "output_tokens": 1,
                    "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 500}}}),
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "Done."}}),
            json!({"type": "content_block_stop", "index": 0}),
            // The last delta repeats the cumulative counts, here only some of them.
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 42, "cache_read_input_tokens": 2000}}),
            json!({"type": "message_stop"}),
        ];
        let body = sse(&events, true);
        let reply = done(decode_stream(&[body.as_bytes()]).unwrap());
        assert_eq!(counts(reply.usage), EXPECTED);
    }
}

#[cfg(feature = "openai")]
mod openai {
    use super::*;

    /// OpenAI's `prompt_tokens` already includes the cached part.
    fn chat_usage() -> Value {
        json!({"prompt_tokens": 2006, "completion_tokens": 300,
            "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0}})
    }

    fn expected() -> Usage {
        Usage::new(2006, 300).with_cache_read_input_tokens(1920)
    }

    #[test]
    fn a_chat_completion_with_cached_tokens() {
        let body = json!({"object": "chat.completion", "choices": [{"index": 0,
            "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}],
            "usage": chat_usage()});
        let reply = crate::llm::openai::parse_response(&body).unwrap();
        assert_eq!(reply.usage, expected());
    }

    #[test]
    fn a_chat_stream_with_cached_tokens() {
        let body = format!(
            "{}data: [DONE]\n\n",
            sse(
                &[
                    json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Done."}}]}),
                    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                    json!({"choices": [], "usage": chat_usage()}),
                ],
                false,
            )
        );
        let reply = done(crate::llm::openai::decode_stream(&[body.as_bytes()]).unwrap());
        assert_eq!(reply.usage, expected());
    }

    #[test]
    fn details_of_another_shape_read_as_no_cache() {
        for details in [
            json!(null),
            json!(7),
            json!("x"),
            json!([1]),
            json!({"cached_tokens": "9"}),
        ] {
            let body = json!({"choices": [{"finish_reason": "stop",
                "message": {"role": "assistant", "content": "Done."}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "prompt_tokens_details": details}});
            let reply = crate::llm::openai::parse_response(&body).unwrap();
            assert_eq!(reply.usage, Usage::new(5, 1), "{details}");
        }
    }

    fn response() -> Value {
        json!({"id": "resp_1", "object": "response", "status": "completed",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}],
            "usage": {"input_tokens": 2006, "output_tokens": 300, "total_tokens": 2306,
                "input_tokens_details": {"cached_tokens": 1920},
                "output_tokens_details": {"reasoning_tokens": 0}}})
    }

    #[test]
    fn a_response_with_cached_tokens() {
        let reply = crate::llm::responses::parse_response(&response()).unwrap();
        assert_eq!(reply.usage, expected());
    }

    #[test]
    fn a_response_stream_with_cached_tokens() {
        let body = sse(
            &[
                json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Done."}),
                json!({"type": "response.completed", "response": response()}),
            ],
            true,
        );
        let reply = done(crate::llm::responses::decode_stream(&[body.as_bytes()]).unwrap());
        assert_eq!(reply.usage, expected());
    }
}

#[cfg(feature = "gemini")]
mod gemini {
    use super::*;
    use crate::llm::gemini::{decode_stream, parse_response};

    /// Gemini's `promptTokenCount` already includes `cachedContentTokenCount`.
    fn chunk(text: &str, usage: Value) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": "STOP", "index": 0}], "usageMetadata": usage})
    }

    fn usage() -> Value {
        json!({"promptTokenCount": 4100, "candidatesTokenCount": 20, "thoughtsTokenCount": 5,
            "cachedContentTokenCount": 4096, "totalTokenCount": 4125})
    }

    #[test]
    fn a_generate_content_reply_with_cached_tokens() {
        let reply = parse_response(&chunk("Done.", usage())).unwrap();
        assert_eq!(
            reply.usage,
            Usage::new(4100, 25).with_cache_read_input_tokens(4096)
        );
    }

    #[test]
    fn a_stream_with_cached_tokens() {
        let first = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Do"}]},
            "index": 0}], "usageMetadata": {"promptTokenCount": 4100, "cachedContentTokenCount": 4096}});
        let body = sse(&[first, chunk("ne.", usage())], false);
        let reply = done(decode_stream(&[body.as_bytes()]).unwrap());
        assert_eq!(reply.text, "Done.");
        assert_eq!(
            reply.usage,
            Usage::new(4100, 25).with_cache_read_input_tokens(4096)
        );
    }
}
