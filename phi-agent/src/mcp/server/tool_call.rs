//! Whether a message is a `tools/call` that rmcp reads as one, checked without building it.
//!
//! The HTTP transport hands a well-formed `tools/call` to rmcp unscreened
//! ([`is_tool_call`](super::screen::is_tool_call)), and rmcp then reads it itself. Reading it as
//! rmcp's types first, only to drop them, built the argument map twice: for a 10 KB argument the
//! check cost about 70 k instructions a call. [`ToolCall`] walks the text once through the same
//! serde_json calls as rmcp's read (its derived `Deserialize`s, and `serde_json::Value`'s for the
//! arguments and for every value it only buffers), so it accepts what rmcp accepts, but keeps
//! nothing: every string is still parsed (escapes, surrogates), every number is still read (a
//! float out of range fails here as it fails there), and nesting counts against serde_json's
//! depth limit from the message's root, as in rmcp's read, since each object and array is
//! entered with the same `deserialize_*` method.
//!
//! Where rmcp's read is intricate, the check is strict instead: its answer is then "not a
//! well-formed call", and the full screen, which reads the message as rmcp does, decides. So a
//! message that rmcp reads is sometimes screened, never the other way round. Those cases:
//! - a key of the message besides `jsonrpc`, `id`, `method` and `params` (rmcp refuses a stray
//!   `result` or `error`, and hands the others to the request's flattened fields), or a key given
//!   twice;
//! - params given as an array (`CallToolRequestParams`'s derive reads one, but rmcp reads a
//!   request's params flattened beside their `_meta`, which takes only an object);
//! - an object among the arguments whose first key is one of serde_json's private tokens
//!   (`$serde_json::private::RawValue`, and `...::Number` with the `arbitrary_precision`
//!   feature), which `Value` reads specially.

use std::fmt;

use rmcp::model::{
    CallToolRequestMethod, InputResponses, JsonRpcVersion2_0, RequestId, RequestMetaObject,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// A `tools/call` request message (`jsonrpc`, `id`, `method` and `params`), read and dropped.
pub(crate) struct ToolCall;

/// The keys of a request message, in the order [`ToolCall`] counts them.
const MESSAGE_KEYS: &[&str] = &["jsonrpc", "id", "method", "params"];

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ToolCallVisitor)
    }
}

struct ToolCallVisitor;

impl<'de> Visitor<'de> for ToolCallVisitor {
    type Value = ToolCall;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC tools/call request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolCall, A::Error> {
        let mut seen = [false; 4];
        while let Some(key) = map.next_key::<Known<MessageKeys>>()? {
            let Some(index) = key.index else {
                return Err(de::Error::custom("another key: left to the full screen"));
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(de::Error::duplicate_field(MESSAGE_KEYS[index]));
            }
            // Each as rmcp reads it: the version and the method must be these strings, the id
            // a number or a string (an integer, as rmcp counts them).
            match index {
                0 => map.next_value::<JsonRpcVersion2_0>().map(drop)?,
                1 => map.next_value::<RequestId>().map(drop)?,
                2 => map.next_value::<CallToolRequestMethod>().map(drop)?,
                _ => map.next_value::<CallParams>().map(drop)?,
            }
        }
        match seen.iter().position(|seen| !seen) {
            Some(index) => Err(de::Error::missing_field(MESSAGE_KEYS[index])),
            None => Ok(ToolCall),
        }
    }
}

/// The fields of `CallToolRequestParams`, as its derive names them.
const FIELDS: &[&str] = &[
    "_meta",
    "name",
    "arguments",
    "inputResponses",
    "requestState",
];

/// A `tools/call`'s params (rmcp's `CallToolRequestParams`), read and dropped.
struct CallParams;

impl<'de> Deserialize<'de> for CallParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("CallToolRequestParams", FIELDS, CallParamsVisitor)
    }
}

struct CallParamsVisitor;

impl<'de> Visitor<'de> for CallParamsVisitor {
    type Value = CallParams;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct CallToolRequestParams")
    }

    /// The object form: each known field at most once, `name` required, the rest optional.
    /// Other fields are skipped, but read as values: rmcp buffers the whole message first,
    /// which refuses what `Value` refuses anywhere in it.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallParams, A::Error> {
        let mut seen = [false; 5];
        while let Some(field) = map.next_key::<Known<ParamKeys>>()? {
            let Some(index) = field.index else {
                map.next_value::<Any>()?;
                continue;
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(de::Error::duplicate_field(FIELDS[index]));
            }
            read_field(index, &mut map)?;
        }
        if !seen[1] {
            return Err(de::Error::missing_field("name"));
        }
        Ok(CallParams)
    }
    // No `visit_seq`: params as an array are refused (see the module docs).
}

/// Reads field `index` with the type rmcp reads it as: the rare fields (`_meta`, a resent call's
/// `inputResponses` and `requestState`) as their own types, the name and the arguments as
/// shapes that keep nothing.
fn read_field<'de, A: MapAccess<'de>>(index: usize, map: &mut A) -> Result<(), A::Error> {
    match index {
        0 => map.next_value::<Option<RequestMetaObject>>().map(drop),
        1 => map.next_value::<Text>().map(drop),
        2 => map.next_value::<Option<Object>>().map(drop),
        3 => map.next_value::<Option<InputResponses>>().map(drop),
        _ => map.next_value::<Option<String>>().map(drop),
    }
}

/// A list of keys that [`Known`] looks a key up in.
trait Keys {
    const KEYS: &'static [&'static str];
}

struct MessageKeys;

impl Keys for MessageKeys {
    const KEYS: &'static [&'static str] = MESSAGE_KEYS;
}

struct ParamKeys;

impl Keys for ParamKeys {
    const KEYS: &'static [&'static str] = FIELDS;
}

/// An object's key, as its index among `L::KEYS`; `None` for another key.
struct Known<L> {
    index: Option<usize>,
    keys: std::marker::PhantomData<L>,
}

impl<'de, L: Keys> Deserialize<'de> for Known<L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor<L>(std::marker::PhantomData<L>);
        impl<L: Keys> Visitor<'_> for KeyVisitor<L> {
            type Value = Known<L>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Known<L>, E> {
                Ok(Known {
                    index: L::KEYS.iter().position(|known| *known == key),
                    keys: std::marker::PhantomData,
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor(std::marker::PhantomData))
    }
}

/// A string (the tool's name: a `Cow<'static, str>`, read as a `String` is), not kept.
struct Text;

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl Visitor<'_> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Text, E> {
                Ok(Text)
            }
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Text, E> {
                // `String`'s own visitor takes UTF-8 bytes too.
                match std::str::from_utf8(bytes) {
                    Ok(_) => Ok(Text),
                    Err(_) => Err(de::Error::invalid_value(
                        de::Unexpected::Bytes(bytes),
                        &self,
                    )),
                }
            }
        }
        deserializer.deserialize_string(TextVisitor)
    }
}

/// A JSON object of any values (the arguments: a `serde_json::Map<String, Value>`), not kept.
struct Object;

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `Map`'s own `Deserialize` asks for a map, and serde_json gives one only for `{`.
        deserializer.deserialize_map(AnyVisitor).map(|_| Object)
    }
}

/// Any JSON value, read as `serde_json::Value` reads it (`deserialize_any`), not kept.
struct Any;

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AnyVisitor)
    }
}

/// The prefix of the keys `serde_json::Value` reads specially (see the module docs).
const PRIVATE_TOKEN: &str = "$serde_json::private::";

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Any;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_str<E>(self, _: &str) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_unit<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_none<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Any, D::Error> {
        Any::deserialize(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
        while seq.next_element::<Any>()?.is_some() {}
        Ok(Any)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Any, A::Error> {
        let mut first = true;
        while let Some(key) = map.next_key::<Key>()? {
            if std::mem::take(&mut first) && key.private {
                return Err(de::Error::custom(
                    "a serde_json private token: left to the full screen",
                ));
            }
            map.next_value::<Any>()?;
        }
        Ok(Any)
    }
}

/// An object's key (a `String`, as `Value` reads it); only whether it is a private token is kept.
struct Key {
    private: bool,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(Key {
                    private: key.starts_with(PRIVATE_TOKEN),
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::server::plain_call::is_plain_call;
    use rmcp::model::{ClientJsonRpcMessage, ClientRequest};

    /// The check's answer for `text`.
    fn checked(text: &str) -> bool {
        serde_json::from_str::<ToolCall>(text).is_ok()
    }

    /// What rmcp says of `text`: whether it reads it as a `tools/call` request (the HTTP
    /// transport reads a body with `serde_json::from_slice::<ClientJsonRpcMessage>`).
    fn rmcp_reads_a_call(text: &str) -> bool {
        matches!(
            serde_json::from_str::<ClientJsonRpcMessage>(text),
            Ok(ClientJsonRpcMessage::Request(request))
                if matches!(request.request, ClientRequest::CallToolRequest(_))
        )
    }

    /// The byte scan run before this check ([`is_plain_call`]) says yes only where rmcp reads a
    /// call; returns its answer.
    fn scan_is_sound(text: &str, rmcp_reads_it: bool) -> bool {
        let plain = is_plain_call(text.as_bytes());
        assert!(!plain || rmcp_reads_it, "the scan said yes: {text}");
        plain
    }

    fn call_with(params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#)
    }

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    /// Values of every kind, and those `Value` refuses where a mere scan (`IgnoredAny`) would
    /// not: a float out of range, a lone surrogate, nesting beyond serde_json's limit.
    fn values() -> Vec<String> {
        let mut values: Vec<String> = [
            "null",
            "true",
            "0",
            "-7",
            "18446744073709551615",
            "-9223372036854775809",
            "1.5e300",
            "1e400",
            "-1e400",
            r#""""#,
            r#""echo""#,
            r#""e\u0063ho\n""#,
            r#""\ud800""#,
            r#""\ud83d\ude00""#,
            r#""\udc00x""#,
            "[]",
            "[1e400]",
            r#"["\ud800"]"#,
            "{}",
            r#"{"a":2,"b":3}"#,
            r#"{"a":2,"a":3}"#,
            r#"{"text":"\ud800"}"#,
            r#"{"x":1e400}"#,
            r#"{"x":{"y":[1,{"z":-1e400}]}}"#,
            r#"{"x":{"y":[1,{"z":"ok"}]}}"#,
            r#"{"progressToken":1}"#,
            r#"{"q":{"action":"accept"}}"#,
        ]
        .map(String::from)
        .to_vec();
        // A value nested this deep inside `params` reaches serde_json's limit of 128 levels
        // counted from the message's root (which, with the params object, takes 2).
        for depth in [120, 125, 126, 127, 128] {
            values.push(format!(r#"{{"deep":{}}}"#, nested(depth)));
            values.push(nested(depth));
        }
        values
    }

    const KEYS: [&str; 8] = [
        "name",
        "arguments",
        "_meta",
        "inputResponses",
        "requestState",
        "extra",
        r"n\u0061me",
        "Name",
    ];

    /// The params of one and two fields, from every key and value above (about 88,000).
    #[test]
    fn agrees_with_rmcp_on_params_of_one_and_two_fields() {
        let values = values();
        let (mut checked_count, mut accepted, mut scanned) = (0, 0, 0);
        for first in KEYS {
            for a in &values {
                let one = call_with(&format!(r#"{{"{first}":{a}}}"#));
                let expected = rmcp_reads_a_call(&one);
                assert_eq!(checked(&one), expected, "{one}");
                scan_is_sound(&one, expected);
                for second in KEYS {
                    for b in &values {
                        let two = call_with(&format!(r#"{{"{first}":{a},"{second}":{b}}}"#));
                        let expected = rmcp_reads_a_call(&two);
                        assert_eq!(checked(&two), expected, "{two}");
                        checked_count += 1;
                        accepted += usize::from(expected);
                        scanned += usize::from(scan_is_sound(&two, expected));
                    }
                }
            }
        }
        // The scan recognises the plain ones among them (not a `\u` escape, an exponent...).
        assert!(
            scanned > 20 && scanned < accepted,
            "{scanned} of {accepted}"
        );
        // Both answers are common: the corpus tells the two apart where they could differ.
        assert!(
            accepted > 1_000 && checked_count - accepted > 1_000,
            "{accepted} of {checked_count}"
        );
    }

    #[test]
    fn agrees_with_rmcp_on_envelopes() {
        let params = r#"{"name":"add","arguments":{"a":2,"b":3}}"#;
        let mut cases: Vec<String> = Vec::new();
        for jsonrpc in [r#""2.0""#, r#""1.0""#, "2", "null", r#""2.0 ""#] {
            for id in [
                "7",
                "-1",
                "1.0",
                "1.5",
                "1e2",
                "1e400",
                "9223372036854775807",
                "9223372036854775808",
                r#""abc""#,
                r#""\ud800""#,
                "null",
                "{}",
                "[1]",
            ] {
                for method in [
                    r#""tools/call""#,
                    r#""tools/list""#,
                    r#""tools\/call""#,
                    "7",
                ] {
                    cases.push(format!(
                        r#"{{"jsonrpc":{jsonrpc},"id":{id},"method":{method},"params":{params}}}"#
                    ));
                    cases.push(format!(
                        r#"{{"params":{params},"method":{method},"id":{id},"jsonrpc":{jsonrpc}}}"#
                    ));
                }
            }
        }
        for case in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"add"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add"}}"#,
            r#"{"id":7,"method":"tools/call","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"params":{"name":"add"}}"#,
            r#"{"jsonr\u0070c":"2.0","id":7,"method":"tools/call","params":{"name":"add"}}"#,
            r#"[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"}}]"#,
            " \n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}} \n",
        ] {
            cases.push(case.to_string());
        }
        let accepted = cases.iter().filter(|case| rmcp_reads_a_call(case)).count();
        assert!(accepted > 20 && accepted < cases.len() - 20, "{accepted}");
        let mut scanned = 0;
        for case in &cases {
            let expected = rmcp_reads_a_call(case);
            assert_eq!(checked(case), expected, "{case}");
            scanned += usize::from(scan_is_sound(case, expected));
        }
        assert!(
            scanned >= 4 && scanned < accepted,
            "{scanned} of {accepted}"
        );
    }

    /// Where the check is strict (see the module docs): it never says "a call" of a message rmcp
    /// does not read as one, and leaves these to the full screen whatever rmcp says.
    #[test]
    fn what_rmcp_reads_intricately_is_left_to_the_full_screen() {
        let strict = [
            // A stray `result` (rmcp refuses it), and other extra keys (rmcp passes them on).
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"},"x":1}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"},"x":1e400}"#,
            r#"{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/call","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","method":"tools/call","params":{"name":"add"}}"#,
            // Params as an array: the derive's sequence form, which rmcp's flattened read lacks.
            &call_with(r#"[null,"add",null,null,null]"#),
            &call_with(r#"[null,"add",{"a":1},null,"state"]"#),
            // serde_json's private tokens, first in an object among the arguments.
            &call_with(r#"{"name":"add","arguments":{"$serde_json::private::RawValue":"[1]"}}"#),
            &call_with(r#"{"name":"add","arguments":{"$serde_json::private::RawValue":"[1"}}"#),
            &call_with(r#"{"name":"add","arguments":{"x":{"$serde_json::private::Number":"1"}}}"#),
        ];
        for case in strict {
            assert!(!checked(case), "{case}");
            assert!(!is_plain_call(case.as_bytes()), "{case}");
        }
        // Not first in its object, such a key is an ordinary one, for `Value` and the check.
        let later = call_with(
            r#"{"name":"add","arguments":{"a":1,"$serde_json::private::RawValue":"[1"}}"#,
        );
        assert!(checked(&later) && rmcp_reads_a_call(&later));
    }
}
