//! Checking a stored paused run before any of it runs: each decision against what the person
//! was shown ([`Seen`]), and, when the agent has a key, every part of the run against the
//! agent's MAC. Stored state is untrusted input: what does not match is refused, named.
//!
//! The MAC covers what the agent wrote, which is everything that decides what runs next (the
//! transcript with its earlier results, the notes of the earlier calls, the paused turn's
//! calls with the programs and nested results of code mode, the decisions the session
//! remembers, the run's id, turn and tools), and leaves out what is written after the pause
//! by whoever decides: the decisions (with how far they reach) and their [`Seen`] digests, and
//! the answers to questions. A decision cannot be moved to another call or another program
//! (its digests would not match), but whoever can write the stored run can change a decision
//! itself: keep decisions where you keep your record of who decided what.

use serde_json::{Value, json};

use super::{PausedRun, PendingCall};
use crate::agent::approval::seal::{Seen, SigningKey, canonical, digest_of};
use crate::error::{AgentError, AgentResult, Tampering};

impl PendingCall {
    /// The digests of what a person deciding this call is shown now.
    pub(in crate::agent) fn seen_now(&self) -> Seen {
        Seen {
            call: digest_of(&json!({"id": self.id, "tool": self.tool})),
            arguments: digest_of(&self.arguments),
            program: self.within.as_deref().map(|within| {
                digest_of(&json!({
                    "id": within.id,
                    "tool": within.tool,
                    "arguments": within.arguments,
                    "k": within.k,
                }))
            }),
        }
    }
}

impl PausedRun {
    /// Signs each part of the run with `key`.
    pub(in crate::agent) fn seal_with(&mut self, key: &SigningKey) {
        self.seal = None;
        // Signed as a reader of the stored JSON text will see it: serde_json may read a float
        // back a bit off from the one it wrote, and the MAC must not tell the two apart.
        let Ok(text) = serde_json::to_string(&*self) else {
            return;
        };
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        let seal = parts(value)
            .into_iter()
            .map(|(name, text)| {
                let signature = key.sign(&self.id, &name, &text);
                (name, signature)
            })
            .collect();
        self.seal = Some(seal);
    }

    /// Refuses a run whose decided calls are not what was decided, or, with `key`, whose parts
    /// do not match the agent's MAC. Run after [`check`](Self::check), which refuses undecided
    /// calls.
    pub(in crate::agent) fn check_integrity(&self, key: Option<&SigningKey>) -> AgentResult<()> {
        let tampered = |tampering| Err(AgentError::Tampered(tampering));
        for call in self.pending() {
            if call.decision.is_none() {
                continue;
            }
            let Some(seen) = &call.seen else {
                return tampered(Tampering::Unbound {
                    call: call.id.clone(),
                });
            };
            let now = call.seen_now();
            let id = || call.id.clone();
            if now.call != seen.call {
                return tampered(Tampering::Tool { call: id() });
            }
            if now.program != seen.program {
                return tampered(Tampering::Program { call: id() });
            }
            if now.arguments != seen.arguments {
                return tampered(Tampering::Arguments { call: id() });
            }
        }
        let (key, seal) = match (key, &self.seal) {
            (None, None) => return Ok(()),
            (None, Some(_)) => return tampered(Tampering::NoKey),
            (Some(_), None) => return tampered(Tampering::Unsigned),
            (Some(key), Some(seal)) => (key, seal),
        };
        let Ok(value) = serde_json::to_value(self) else {
            return tampered(Tampering::Unsigned);
        };
        let parts = parts(value);
        for (name, text) in &parts {
            let signed = seal
                .get(name)
                .is_some_and(|signature| key.verify(&self.id, name, text, signature));
            if !signed {
                return tampered(Tampering::Signed { part: name.clone() });
            }
        }
        // A part signed and now gone (a call dropped from the paused turn).
        if let Some(gone) = seal
            .keys()
            .find(|name| !parts.iter().any(|(part, _)| part == *name))
        {
            return tampered(Tampering::Signed { part: gone.clone() });
        }
        Ok(())
    }
}

/// The signed parts of a serialized paused run, each with its canonical text: every field but
/// `version` and `seal`, the paused turn's calls one by one (`calls/<i>`) without what is
/// written after the pause (`decision`, `remember`, `seen`, `answer`).
fn parts(value: Value) -> Vec<(String, Vec<u8>)> {
    let Value::Object(fields) = value else {
        return Vec::new();
    };
    let text = |value: &Value| {
        let mut text = Vec::new();
        canonical(value, &mut text);
        text
    };
    let mut parts = Vec::with_capacity(fields.len() + 2);
    for (name, value) in fields {
        match (name.as_str(), value) {
            ("version" | "seal", _) => {}
            ("calls", Value::Array(calls)) => {
                for (i, mut call) in calls.into_iter().enumerate() {
                    if let Value::Object(call) = &mut call {
                        for decided in ["decision", "remember", "seen", "answer"] {
                            call.remove(decided);
                        }
                    }
                    parts.push((format!("calls/{i}"), text(&call)));
                }
            }
            (_, value) => parts.push((name, text(&value))),
        }
    }
    parts
}
