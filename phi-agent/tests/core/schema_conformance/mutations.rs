//! Property: valid values of the corpus, mutated the ways a model gets arguments wrong (an
//! extra field, a value of the wrong type, a missing field, a number out of range, anywhere in
//! the value), get the same verdict from the validator of a macro tool's canonical schema and
//! from the tool's decoder. A disagreement is a schema fidelity bug: the model would be told a
//! mistake that is not one, or not told the one that is.

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::case::Case;
use super::corpus;

/// A corpus case with its validator and valid values, built once for every proptest case.
struct Prepared {
    case: Case,
    validator: jsonschema::Validator,
    /// Valid arguments `{"value": v}` of the case's macro tool.
    args: Vec<Value>,
}

fn prepared() -> &'static [Prepared] {
    static PREPARED: OnceLock<Vec<Prepared>> = OnceLock::new();
    PREPARED.get_or_init(|| {
        corpus::all()
            .into_iter()
            .map(|case| {
                let validator = jsonschema::draft202012::new(&case.macro_schema)
                    .unwrap_or_else(|e| panic!("{}: {e}", case.name));
                let args = case
                    .generated()
                    .into_iter()
                    .map(|value| json!({ "value": value }))
                    .collect();
                Prepared {
                    case,
                    validator,
                    args,
                }
            })
            .collect()
    })
}

/// One way to get a value wrong, at the node `at` (an index into the value's nodes, wrapped).
#[derive(Debug, Clone)]
enum Mutation {
    /// A field the schema does not name, in an object.
    ExtraField { at: usize, typo: bool },
    /// The node replaced by a value of another JSON type.
    WrongType { at: usize, kind: usize },
    /// A field removed from an object.
    MissingField { at: usize, field: usize },
    /// A number replaced by one outside some integer range, or a fraction.
    OutOfRange { at: usize, number: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<bool>()).prop_map(|(at, typo)| Mutation::ExtraField { at, typo }),
        (any::<usize>(), 0..OTHER_TYPES).prop_map(|(at, kind)| Mutation::WrongType { at, kind }),
        (any::<usize>(), any::<usize>())
            .prop_map(|(at, field)| Mutation::MissingField { at, field }),
        (any::<usize>(), 0..OUT_OF_RANGE.len())
            .prop_map(|(at, number)| Mutation::OutOfRange { at, number }),
    ]
}

const OTHER_TYPES: usize = 7;

fn other_type(kind: usize) -> Value {
    match kind {
        0 => json!("text"),
        1 => json!(7),
        2 => json!(-2.5),
        3 => json!(true),
        4 => Value::Null,
        5 => json!([1, "a"]),
        _ => json!({"k": 1}),
    }
}

/// Numbers just past the bounds of the integer types, fractions, and numbers no integer type
/// holds (written as floats by serde_json: beyond 64 bits it has no integer).
const OUT_OF_RANGE: [&str; 14] = [
    "128",
    "-129",
    "256",
    "-1",
    "65536",
    "4294967296",
    "-2147483649",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "0.5",
    "3.0",
    "1e300",
];

/// JSON pointers of every node of `value`, root first.
fn nodes(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                nodes(child, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                nodes(child, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
}

/// The pointers of the nodes of `value` that `keep` accepts.
fn pick(value: &Value, keep: impl Fn(&Value) -> bool) -> Vec<String> {
    let mut all = Vec::new();
    nodes(value, String::new(), &mut all);
    all.into_iter()
        .filter(|pointer| value.pointer(pointer).is_some_and(&keep))
        .collect()
}

/// Applies `mutation` to `args`; `false` when the value has no node it applies to.
fn apply(args: &mut Value, mutation: &Mutation) -> bool {
    let (candidates, at) = match mutation {
        Mutation::ExtraField { at, .. } => (pick(args, Value::is_object), *at),
        Mutation::MissingField { at, .. } => (
            pick(args, |v| v.as_object().is_some_and(|m| !m.is_empty())),
            *at,
        ),
        Mutation::OutOfRange { at, .. } => (pick(args, Value::is_number), *at),
        Mutation::WrongType { at, .. } => (pick(args, |_| true), *at),
    };
    if candidates.is_empty() {
        return false;
    }
    let pointer = &candidates[at % candidates.len()];
    let Some(node) = args.pointer_mut(pointer) else {
        return false;
    };
    match mutation {
        Mutation::ExtraField { typo, .. } => {
            let map: &mut Map<String, Value> = node.as_object_mut().expect("an object");
            // A near-typo of a field beside it, or a name far from every field.
            let name = match map.keys().next() {
                Some(first) if *typo => format!("{first}s"),
                _ => "surely_not_a_field".to_string(),
            };
            map.insert(name, json!(1));
        }
        Mutation::MissingField { field, .. } => {
            let map = node.as_object_mut().expect("an object");
            let key = map.keys().nth(field % map.len()).cloned().expect("a key");
            map.shift_remove(&key);
        }
        Mutation::OutOfRange { number, .. } => {
            *node = serde_json::from_str(OUT_OF_RANGE[*number]).expect("a JSON number");
        }
        Mutation::WrongType { kind, .. } => {
            let mut replacement = other_type(*kind);
            // Another type than the node's own, so the mutation is a mutation.
            let mut next = *kind;
            while std::mem::discriminant(&replacement) == std::mem::discriminant(node) {
                next += 1;
                replacement = other_type(next % OTHER_TYPES);
            }
            *node = replacement;
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_validator_and_the_decoder_agree_on_mutated_values(
        case in any::<usize>(),
        value in any::<usize>(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let cases = prepared();
        let prepared = &cases[case % cases.len()];
        let mut args = prepared.args[value % prepared.args.len()].clone();
        let mut applied = false;
        for mutation in &mutations {
            applied |= apply(&mut args, mutation);
        }
        prop_assume!(applied);
        let decoded = prepared.case.call_as_macro_tool(&args);
        let valid = prepared.validator.is_valid(&args);
        prop_assert_eq!(
            decoded.is_ok(),
            valid,
            "{}: {} after {:?}: decoder {:?}, validator {}",
            prepared.case.name,
            args,
            mutations,
            decoded,
            valid
        );
    }
}

#[test]
fn every_mutation_changes_the_value_where_it_applies() {
    let mut args = json!({"value": {"a": 1, "b": [true, "x"]}});
    let before = args.clone();
    for mutation in [
        Mutation::ExtraField { at: 1, typo: true },
        Mutation::WrongType { at: 3, kind: 3 },
        Mutation::MissingField { at: 0, field: 0 },
        Mutation::OutOfRange { at: 0, number: 0 },
    ] {
        let mut mutated = before.clone();
        assert!(apply(&mut mutated, &mutation), "{mutation:?}");
        assert_ne!(mutated, before, "{mutation:?}");
        args = mutated;
    }
    assert!(args.is_object());
    let mut scalar = json!("x");
    assert!(!apply(
        &mut scalar,
        &Mutation::MissingField { at: 0, field: 0 }
    ));
}

/// The two disagreements the property found, each a fixed bug: an integral float that only a
/// 64-bit integer beyond 2^53 holds (the repair of integral floats stopped at 2^53), and a struct
/// read by position from an array below the arguments object (serde's derive accepts a
/// sequence; the schema says object).
#[test]
fn the_disagreements_found_are_fixed() {
    let by_name = |name: &str| {
        prepared()
            .iter()
            .find(|prepared| prepared.case.name == name)
            .unwrap_or_else(|| panic!("no corpus case {name}"))
    };
    let check = |name: &str, args: Value, valid: bool| {
        let prepared = by_name(name);
        assert_eq!(prepared.validator.is_valid(&args), valid, "{name}: {args}");
        let decoded = prepared.case.call_as_macro_tool(&args);
        assert_eq!(decoded.is_ok(), valid, "{name}: {args}: {decoded:?}");
    };
    let min_as_float: Value = serde_json::from_str("-9223372036854775809").unwrap();
    assert!(min_as_float.is_f64());
    // The integer cases hold their number in a field `value` of their own.
    check("i64", json!({"value": {"value": min_as_float}}), true);
    check("i64", json!({"value": {"value": 9.3e18}}), false);
    check("u64", json!({"value": {"value": 1.8e19}}), true);
    check("deny_unknown_fields", json!({"value": [1, "a"]}), false);
}

/// How the mutated values fall (both accept, both refuse, disagreements), over many more values
/// than the property test draws: `cargo test -p phi-agent --test core census -- --ignored
/// --nocapture`. 400,000 values: 61,053 accepted by both, 321,647 refused by both, 0
/// disagreements (the rest had no node their mutations apply to).
#[test]
#[ignore = "a census of 400,000 values, minutes long; run by hand"]
fn census_of_mutated_values() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (
        any::<usize>(),
        any::<usize>(),
        proptest::collection::vec(mutation(), 1..4),
    );
    let (mut both_ok, mut both_err, mut bad) = (0, 0, Vec::new());
    for _ in 0..400000 {
        let (case, value, mutations) = strategy.new_tree(&mut runner).unwrap().current();
        let cases = prepared();
        let prepared = &cases[case % cases.len()];
        let mut args = prepared.args[value % prepared.args.len()].clone();
        let mut applied = false;
        for mutation in &mutations {
            applied |= apply(&mut args, mutation);
        }
        if !applied {
            continue;
        }
        let decoded = prepared.case.call_as_macro_tool(&args);
        let valid = prepared.validator.is_valid(&args);
        match (decoded.is_ok(), valid) {
            (true, true) => both_ok += 1,
            (false, false) => both_err += 1,
            _ => bad.push(format!(
                "{}: {args}: {decoded:?} {valid}",
                prepared.case.name
            )),
        }
    }
    println!(
        "both accept {both_ok}, both refuse {both_err}, disagree {}",
        bad.len()
    );
    for disagreement in bad.iter().take(40) {
        println!("{disagreement}");
    }
    assert!(bad.is_empty());
}
