//! What binds a stored paused run to what was decided and to the agent that wrote it: the
//! canonical form of JSON, the digests of what a person was shown about a call ([`Seen`]), and
//! the agent's MAC over each part of the stored run ([`SigningKey`]).
//!
//! The canonical form is serde_json's compact text with every object's keys sorted by their
//! bytes, so that a digest does not depend on the order a map kept (the workspace builds
//! serde_json with `preserve_order`) or on the whitespace of the stored text.

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Appends the canonical text of `value` to `out`.
pub(crate) fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(key, out);
                out.push(b':');
                canonical(item, out);
            }
            out.push(b'}');
        }
        Value::String(text) => string(text, out),
        Value::Null | Value::Bool(_) | Value::Number(_) => {
            out.extend_from_slice(value.to_string().as_bytes());
        }
    }
}

/// A JSON string, escaped as serde_json escapes it.
fn string(text: &str, out: &mut Vec<u8>) {
    // Writing a string into a Vec cannot fail: the error is the writer's, and a Vec's never is.
    let _ = serde_json::to_writer(&mut *out, text);
}

/// The SHA-256 of `bytes`, in lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of the canonical text of `value`, in lowercase hex.
pub(crate) fn digest_of(value: &Value) -> String {
    let mut text = Vec::new();
    canonical(value, &mut text);
    sha256_hex(&text)
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The bytes of lowercase or uppercase hex `text`; `None` when it is not hex.
fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| {
        char::from(c)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// What a person was shown about a pending call when they decided it, as digests, one per kind
/// of thing shown, so that a resume can say which kind changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Seen {
    /// The call's id and tool name.
    pub(crate) call: String,
    /// The call's arguments.
    pub(crate) arguments: String,
    /// For a call a program made (code mode): the model's call that runs the program (its id,
    /// tool and arguments, the program's text among them) and the call's place in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) program: Option<String>,
}

impl Seen {
    /// The one digest of all that was shown, in lowercase hex.
    pub(crate) fn digest(&self) -> String {
        let program = self.program.as_deref().unwrap_or("");
        sha256_hex(format!("{}:{}:{program}", self.call, self.arguments).as_bytes())
    }
}

/// The agent's key for the MAC (HMAC-SHA256) over the paused runs it writes; set with
/// [`AgentBuilder::signing_key`](crate::AgentBuilder::signing_key). Kept with its key schedule
/// done, so that each MAC costs the hashing of the part alone.
#[derive(Clone)]
pub(crate) struct SigningKey(Hmac<Sha256>);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    pub(crate) fn new(key: &[u8]) -> Self {
        // HMAC takes a key of any length (a long one is hashed first): this never fails.
        Self(Hmac::new_from_slice(key).expect("HMAC-SHA256 takes a key of any length"))
    }

    /// The MAC of `part` of the run `run`, its canonical text `text`. The run id and the part's
    /// name go in with their lengths, so that no part of one run passes for another.
    fn mac(&self, run: &str, part: &str, text: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.0.clone();
        for name in [run, part] {
            mac.update(&(name.len() as u64).to_le_bytes());
            mac.update(name.as_bytes());
        }
        mac.update(text);
        mac
    }

    /// The MAC of `part`, in lowercase hex.
    pub(crate) fn sign(&self, run: &str, part: &str, text: &[u8]) -> String {
        hex(&self.mac(run, part, text).finalize().into_bytes())
    }

    /// Whether `signature` (hex) is the MAC of `part`; compared in constant time.
    pub(crate) fn verify(&self, run: &str, part: &str, text: &[u8], signature: &str) -> bool {
        unhex(signature).is_some_and(|bytes| self.mac(run, part, text).verify_slice(&bytes).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_canonical_form_sorts_keys_at_every_depth_and_drops_whitespace() {
        let a: Value =
            serde_json::from_str(r#"{"b": [1, {"y": "é\n", "x": null}], "a": 2.5}"#).unwrap();
        let b = json!({"a": 2.5, "b": [1, {"x": null, "y": "é\n"}]});
        let mut text = Vec::new();
        canonical(&a, &mut text);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            r#"{"a":2.5,"b":[1,{"x":null,"y":"é\n"}]}"#
        );
        assert_eq!(digest_of(&a), digest_of(&b));
        assert_ne!(digest_of(&a), digest_of(&json!({"a": 2.5, "b": [1]})));
    }

    #[test]
    fn a_mac_checks_only_with_its_key_run_and_part() {
        let key = SigningKey::new(b"secret");
        let signature = key.sign("run-1", "transcript", b"[]");
        assert_eq!(signature.len(), 64);
        assert!(key.verify("run-1", "transcript", b"[]", &signature));
        assert!(key.verify("run-1", "transcript", b"[]", &signature.to_uppercase()));
        assert!(!key.verify("run-1", "transcript", b"[1]", &signature));
        assert!(!key.verify("run-2", "transcript", b"[]", &signature));
        assert!(!key.verify("run-1", "calls/0", b"[]", &signature));
        assert!(!SigningKey::new(b"other").verify("run-1", "transcript", b"[]", &signature));
        for garbage in ["", "zz", "abc", "00"] {
            assert!(
                !key.verify("run-1", "transcript", b"[]", garbage),
                "{garbage}"
            );
        }
    }

    #[test]
    fn sha256_matches_the_standard_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
