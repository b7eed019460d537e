//! Reading an [`Approval`] from JSON: every field it may have, each checked against the decision.
//!
//! serde's derive for an internally tagged enum drops fields a unit variant does not have, even
//! with `deny_unknown_fields`, so `{"decision": "approve", "arguments": {..}}` (a person's edit
//! sent under the wrong decision) read as a plain approval and the call ran with the model's
//! arguments. Read through this struct, a field that does not go with the decision is refused.

use serde::Deserialize;
use serde_json::Value;

use super::Approval;

/// The decisions, as they are spelled in JSON.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Decision {
    Approve,
    ApproveWith,
    Deny,
}

/// The JSON form of an [`Approval`], before its fields are checked against its decision.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ApprovalWire {
    decision: Decision,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    message: Option<String>,
}

impl TryFrom<ApprovalWire> for Approval {
    type Error = String;

    fn try_from(wire: ApprovalWire) -> Result<Self, String> {
        match (wire.decision, wire.arguments, wire.message) {
            (Decision::Approve, None, None) => Ok(Approval::Approve),
            (Decision::ApproveWith, Some(arguments), None) => {
                Ok(Approval::ApproveWith { arguments })
            }
            (Decision::Deny, None, Some(message)) => Ok(Approval::Deny { message }),
            (Decision::Approve, Some(_), _) => Err(
                "unknown field `arguments` for decision `approve`; to run the call with other arguments, send {\"decision\": \"approve_with\", \"arguments\": {..}}".into(),
            ),
            (Decision::Approve, None, Some(_)) | (Decision::ApproveWith, _, Some(_)) => Err(
                "unknown field `message`: only decision `deny` has a message".into(),
            ),
            (Decision::ApproveWith, None, None) => Err(
                "missing field `arguments`: decision `approve_with` runs the call with these arguments".into(),
            ),
            (Decision::Deny, Some(_), _) => Err(
                "unknown field `arguments` for decision `deny`; a denied call does not run".into(),
            ),
            (Decision::Deny, None, None) => Err(
                "missing field `message`: decision `deny` tells the model why, in `message`".into(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Approval;

    fn read(value: serde_json::Value) -> Result<Approval, String> {
        serde_json::from_value(value).map_err(|error| error.to_string())
    }

    #[test]
    fn each_decision_reads_with_its_own_fields() {
        assert_eq!(read(json!({"decision": "approve"})), Ok(Approval::Approve));
        assert_eq!(
            read(json!({"decision": "approve_with", "arguments": {"amount": 10}})),
            Ok(Approval::approve_with(json!({"amount": 10})))
        );
        assert_eq!(
            read(json!({"decision": "deny", "message": "no"})),
            Ok(Approval::deny("no"))
        );
        for approval in [
            Approval::Approve,
            Approval::approve_with(json!([1])),
            Approval::deny("no"),
        ] {
            let text = serde_json::to_string(&approval).unwrap();
            assert_eq!(serde_json::from_str::<Approval>(&text).unwrap(), approval);
        }
    }

    #[test]
    fn a_field_that_does_not_go_with_the_decision_is_refused() {
        let cases = [
            (
                json!({"decision": "approve", "arguments": {"a": 1}}),
                "approve_with",
            ),
            (
                json!({"decision": "approve", "message": "ok"}),
                "only decision `deny`",
            ),
            (
                json!({"decision": "approve", "id": "c1"}),
                "unknown field `id`",
            ),
            (
                json!({"decision": "approve_with"}),
                "missing field `arguments`",
            ),
            (json!({"decision": "deny"}), "missing field `message`"),
            (
                json!({"decision": "deny", "message": "no", "arguments": {}}),
                "does not run",
            ),
            (json!({"decision": "yes"}), "unknown variant `yes`"),
            (json!({}), "missing field `decision`"),
        ];
        for (value, expected) in cases {
            let why = read(value.clone()).expect_err(&value.to_string());
            assert!(why.contains(expected), "{value}: {why}");
        }
    }
}
