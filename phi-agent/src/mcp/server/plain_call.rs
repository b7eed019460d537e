//! A `tools/call` in plain JSON, recognised by one pass over its bytes.
//!
//! [`ToolCall`](super::tool_call::ToolCall) reads a message through serde_json exactly as rmcp
//! does, so every string in the arguments is parsed twice per call (once there, once by rmcp).
//! serde_json looks for a string's end eight bytes at a time and then checks its UTF-8: for a
//! 10 KB argument that check cost about 30 k instructions of a request's ~350 k.
//!
//! [`is_plain_call`] answers the same question for the messages clients send in practice, and
//! cheaply: the whole text is checked once for control characters and (only if it has any
//! non-ASCII byte) for UTF-8, after which a string's end is found with `memchr` (SIMD), and the
//! grammar is walked by hand. It only ever answers "certainly a call rmcp reads"; anything it is
//! not sure of answers `false` and goes on to `ToolCall`, so it needs to be right only where it
//! says yes. It says no to:
//! - any control character in the text, even whitespace between tokens (so pretty-printed JSON
//!   takes the exact path);
//! - a `\u` escape anywhere (a lone surrogate is refused by rmcp's read), or any key written with
//!   an escape;
//! - a number with an exponent, or with more than [`MAX_DIGITS`] digits before its point (either
//!   may overflow a float, which rmcp's read refuses);
//! - an id other than a plain string or a small non-negative integer;
//! - any params field besides `name` and `arguments`, and any key given twice among the
//!   message's and params' own keys;
//! - an object key among the arguments that starts with `$` (serde_json's private tokens start
//!   so), and nesting deeper than [`MAX_DEPTH`].

/// Nesting counted from the message's root (serde_json allows 128).
const MAX_DEPTH: usize = 100;

/// Digits before a number's point: below this, no number without an exponent overflows `f64`.
const MAX_DIGITS: usize = 300;

/// The longest integer id read here (far inside `i64`).
const MAX_ID_DIGITS: usize = 15;

/// Whether `text` is certainly a `tools/call` request that rmcp reads as one (see the module
/// docs); `false` means "not sure".
pub(crate) fn is_plain_call(text: &[u8]) -> bool {
    let (control, high) = byte_classes(text);
    if control || (high && std::str::from_utf8(text).is_err()) {
        return false;
    }
    let mut scan = Scan { text, at: 0 };
    scan.message().is_some() && scan.at == text.len()
}

/// Whether `text` has a control character (below U+0020) and whether it has a non-ASCII byte.
///
/// Kept as sixteen lanes of least byte and of bits seen, each updated from its own position in
/// each 16-byte block: the compiler turns that into one vector min and one vector or per block
/// (about 3 k instructions for 10 KB). A test per byte, or a fold per chunk, was not vectorized
/// and cost two to ten times as much.
fn byte_classes(text: &[u8]) -> (bool, bool) {
    const LANES: usize = 16;
    let (mut least, mut bits) = ([u8::MAX; LANES], [0u8; LANES]);
    let mut blocks = text.chunks_exact(LANES);
    for block in &mut blocks {
        for lane in 0..LANES {
            least[lane] = least[lane].min(block[lane]);
            bits[lane] |= block[lane];
        }
    }
    let tail = blocks.remainder();
    let least = least
        .iter()
        .chain(tail)
        .fold(u8::MAX, |least, &byte| least.min(byte));
    let bits = bits.iter().chain(tail).fold(0, |bits, &byte| bits | byte);
    (least < 0x20, bits >= 0x80)
}

/// A cursor over the message. Every method returns `None` for "not sure".
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    /// The message: an object of `jsonrpc`, `id`, `method` and `params`, each once.
    fn message(&mut self) -> Option<()> {
        self.skip_spaces();
        self.expect(b'{')?;
        let mut seen = [false; 4];
        let mut first = true;
        while self.next_entry(&mut first, b'}')? {
            let index = match self.key()? {
                b"jsonrpc" => 0,
                b"id" => 1,
                b"method" => 2,
                b"params" => 3,
                _ => return None,
            };
            if std::mem::replace(&mut seen[index], true) {
                return None;
            }
            match index {
                0 => self.literal_string(b"2.0")?,
                1 => self.id()?,
                2 => self.literal_string(b"tools/call")?,
                _ => self.params()?,
            }
        }
        self.skip_spaces();
        seen.iter().all(|seen| *seen).then_some(())
    }

    /// The params: an object with a `name` string and optional `arguments` (an object or null).
    fn params(&mut self) -> Option<()> {
        self.expect(b'{')?;
        let (mut name, mut arguments) = (false, false);
        let mut first = true;
        while self.next_entry(&mut first, b'}')? {
            match self.key()? {
                b"name" if !name => {
                    name = true;
                    self.string()?;
                }
                b"arguments" if !arguments => {
                    arguments = true;
                    if self.peek()? == b'n' {
                        self.word(b"null")?;
                    } else {
                        self.expect(b'{')?;
                        self.object_rest(3)?;
                    }
                }
                _ => return None,
            }
        }
        name.then_some(())
    }

    /// An id: a string, or a non-negative integer small enough for any reading of it.
    fn id(&mut self) -> Option<()> {
        if self.peek()? == b'"' {
            return self.string();
        }
        let digits = self.digits();
        let ok = (1..=MAX_ID_DIGITS).contains(&digits)
            && (digits == 1 || self.text[self.at - digits] != b'0');
        ok.then_some(())
    }

    /// Any JSON value at nesting `depth` (its own container counts as `depth`).
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' => {
                self.at += 1;
                self.object_rest(depth)
            }
            b'[' => {
                self.at += 1;
                self.array_rest(depth)
            }
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => self.number(),
        }
    }

    /// An object's entries, after its `{`.
    fn object_rest(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut first = true;
        while self.next_entry(&mut first, b'}')? {
            if self.key()?.first() == Some(&b'$') {
                return None;
            }
            self.value(depth + 1)?;
        }
        Some(())
    }

    /// An array's elements, after its `[`.
    fn array_rest(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_spaces();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.skip_spaces();
            self.value(depth + 1)?;
            self.skip_spaces();
            match self.bump()? {
                b',' => continue,
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// Moves to the next entry of an object: `Some(true)` with the cursor on its key,
    /// `Some(false)` once `close` is passed.
    fn next_entry(&mut self, first: &mut bool, close: u8) -> Option<bool> {
        self.skip_spaces();
        if self.peek()? == close {
            self.at += 1;
            return Some(false);
        }
        if !std::mem::take(first) {
            self.expect(b',')?;
            self.skip_spaces();
        }
        Some(true)
    }

    /// A key without escapes, and the colon after it; the cursor ends on the value.
    fn key(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let rest = &self.text[self.at..];
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[end] != b'"' {
            return None;
        }
        self.at += end + 1;
        self.skip_spaces();
        self.expect(b':')?;
        self.skip_spaces();
        Some(&rest[..end])
    }

    /// A string with only the one-character escapes (the text has no control characters, and
    /// is UTF-8).
    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            let end = memchr::memchr2(b'"', b'\\', &self.text[self.at..])?;
            self.at += end;
            if self.bump()? == b'"' {
                return Some(());
            }
            match self.bump()? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                _ => return None,
            }
        }
    }

    /// A string that must be exactly `expected`, written without escapes.
    fn literal_string(&mut self, expected: &[u8]) -> Option<()> {
        self.expect(b'"')?;
        let end = self.at + expected.len();
        (self.text.get(self.at..end)? == expected && self.text.get(end) == Some(&b'"')).then(|| {
            self.at = end + 1;
        })
    }

    /// A number without an exponent: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        if self.peek()? == b'-' {
            self.at += 1;
        }
        let digits = self.digits();
        if digits == 0 || digits > MAX_DIGITS || (digits > 1 && self.text[self.at - digits] == b'0')
        {
            return None;
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        (!matches!(self.peek(), Some(b'e' | b'E'))).then_some(())
    }

    /// Skips a run of ASCII digits, returning its length.
    fn digits(&mut self) -> usize {
        let run = self.text[self.at..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        self.at += run;
        run
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.text.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// Spaces between tokens (the text has no other whitespace: see `is_plain_call`).
    fn skip_spaces(&mut self) {
        while self.text.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.bump()? == byte).then_some(())
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ClientJsonRpcMessage, ClientRequest};

    /// What rmcp says of `text`: whether it reads it as a `tools/call` request, as the HTTP
    /// transport reads a body.
    fn rmcp_reads_a_call(text: &[u8]) -> bool {
        matches!(
            serde_json::from_slice::<ClientJsonRpcMessage>(text),
            Ok(ClientJsonRpcMessage::Request(request))
                if matches!(request.request, ClientRequest::CallToolRequest(_))
        )
    }

    /// Calls as clients write them: compact or with Python's separators, ids of both kinds,
    /// keys in any order, arguments of every JSON kind, escapes and non-ASCII text.
    fn calls() -> Vec<String> {
        let long = "abcdefghijklmnopqrstuvwxyz".repeat(400);
        vec![
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#.to_string(),
            r#"{"jsonrpc": "2.0", "id": "req-7", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}"#.to_string(),
            r#"{"method":"tools/call","params":{"arguments":{"q":[1,-2.5,0,true,false,null,{"k":"v"},[]],"n":{}},"name":"search"},"id":0,"jsonrpc":"2.0"}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"write","arguments":{"code":"fn main() {\n\tprintln!(\"hi\\n\");\r\n}/\/\b\f"}}}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"translate","arguments":{"text":"日本語のテキスト, ελληνικά, émoji 🎉"}}}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":"a\"b\\c\n/","method":"tools/call","params":{"name":"p\ting"}}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ping"}}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ping","arguments":null}}"#.to_string(),
            format!(r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{long}"}}}}}}"#),
        ]
    }

    #[test]
    fn calls_as_clients_write_them_are_recognised() {
        for call in calls() {
            assert!(is_plain_call(call.as_bytes()), "{call}");
            assert!(rmcp_reads_a_call(call.as_bytes()), "{call}");
        }
    }

    /// Every text one edit away from a call: each byte replaced by each of the bytes that
    /// matter to JSON, or deleted. Wherever the scan says yes, rmcp reads a call.
    #[test]
    fn says_yes_only_where_rmcp_reads_a_call() {
        let replacements: &[u8] = b"\"\\{}[],:0 1-.eE+tfnu$a/\n\t\x01\xC3\x80\xFF";
        let (mut edits, mut recognised) = (0, 0);
        for call in calls().iter().filter(|call| call.len() < 400) {
            let call = call.as_bytes();
            for at in 0..call.len() {
                let mut texts = vec![[&call[..at], &call[at + 1..]].concat()];
                for &byte in replacements {
                    let mut text = call.to_vec();
                    text[at] = byte;
                    texts.push(text);
                }
                for text in texts {
                    edits += 1;
                    if is_plain_call(&text) {
                        recognised += 1;
                        assert!(
                            rmcp_reads_a_call(&text),
                            "{}",
                            String::from_utf8_lossy(&text)
                        );
                    }
                }
            }
        }
        // Many edits keep a call (a letter of a string for another): the test is not vacuous.
        assert!(
            recognised > 1_000 && recognised < edits / 2,
            "{recognised} of {edits}"
        );
    }

    #[test]
    fn what_it_is_not_sure_of_is_left_to_the_exact_check() {
        let unsure = [
            // Pretty-printed: a newline between tokens.
            "{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}",
            // `\u` escapes, an escaped key, an exponent, a long integer, a negative or long id.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"t":"\u0041"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1e3}}}"#,
            r#"{"jsonrpc":"2.0","id":-1,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1234567890123456,"method":"tools/call","params":{"name":"a"}}"#,
            // A params field besides `name` and `arguments`; a `$` key among the arguments.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"$ref":1}}}"#,
        ];
        for text in unsure {
            assert!(!is_plain_call(text.as_bytes()), "{text}");
        }
        let long_integer = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"a","arguments":{{"x":{}}}}}}}"#,
            "9".repeat(MAX_DIGITS + 1)
        );
        assert!(!is_plain_call(long_integer.as_bytes()));
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"a","arguments":{{"x":{}1{}}}}}}}"#,
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(!is_plain_call(deep.as_bytes()));
        assert!(
            rmcp_reads_a_call(deep.as_bytes()),
            "still a call, for the exact check"
        );
    }
}
