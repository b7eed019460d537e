//! The decoder against serde_json's own `&Value` deserializer and against the limits' walk.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use serde::de::IgnoredAny;

use super::decode;
use crate::error::ROOT_PATH;
use crate::limits::{self, MAX_ARGUMENT_DEPTH, Measure};

#[derive(Debug, PartialEq, Deserialize)]
struct Point {
    x: i32,
    y: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Outer {
    point: Point,
    points: Vec<Point>,
    shape: Shape,
    tags: Option<Vec<u8>>,
    keyed: BTreeMap<u16, bool>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Shape {
    Dot,
    Line(u8, u8),
    Box { w: u8 },
    Named(String),
}

fn strict<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    decode::<T>(value, usize::MAX).map_err(|e| e.to_string())
}

#[test]
fn what_serde_json_reads_from_an_object_it_reads_the_same() {
    let value = json!({
        "point": {"x": 1, "y": "a"},
        "points": [{"x": 2, "y": "b"}],
        "shape": {"box": {"w": 3}},
        "tags": [1, 2],
        "keyed": {"7": true, "8": false}
    });
    let ours: Outer = strict(&value).unwrap();
    assert_eq!(ours, Outer::deserialize(&value).unwrap());
    for shape in [json!("dot"), json!({"line": [1, 2]}), json!({"named": "n"})] {
        assert_eq!(
            strict::<Shape>(&shape).unwrap(),
            Shape::deserialize(&shape).unwrap()
        );
    }
    let map: HashMap<i64, f64> = strict(&json!({"-3": 1.5})).unwrap();
    assert_eq!(map[&-3], 1.5);
}

#[test]
fn a_struct_is_never_read_from_an_array_at_any_depth() {
    let positional = json!({"x": 1, "y": "a"});
    assert!(
        Point::deserialize(&json!([1, "a"])).is_ok(),
        "serde_json would"
    );
    let refused = strict::<Point>(&json!([1, "a"])).unwrap_err();
    assert!(refused.contains("invalid type: sequence"), "{refused}");
    let nested = json!({
        "point": [1, "a"],
        "points": [], "shape": "dot", "tags": null, "keyed": {}
    });
    assert!(strict::<Outer>(&nested).is_err());
    let listed = json!({
        "point": positional, "points": [[2, "b"]], "shape": "dot", "tags": null, "keyed": {}
    });
    assert!(strict::<Outer>(&listed).is_err());
    assert!(strict::<Shape>(&json!({"box": [3]})).is_err());
}

#[test]
fn the_errors_are_serde_json_s() {
    let too_long = strict::<(u8, u8)>(&json!([1, 2, 3])).unwrap_err();
    assert_eq!(
        too_long,
        <(u8, u8)>::deserialize(&json!([1, 2, 3]))
            .unwrap_err()
            .to_string()
    );
    let key = strict::<HashMap<u8, u8>>(&json!({"x": 1})).unwrap_err();
    assert!(key.contains("invalid type"), "{key}");
    let two = strict::<Shape>(&json!({"dot": null, "box": {"w": 1}})).unwrap_err();
    assert!(two.contains("map with a single key"), "{two}");
}

fn failure<T: DeserializeOwned>(value: &Value) -> (String, String) {
    match decode::<T>(value, usize::MAX) {
        Ok(_) => panic!("{value} decoded"),
        Err(error) => (error.path(), error.message().to_string()),
    }
}

#[test]
fn an_error_says_where_it_happened_as_a_json_path() {
    let valid = json!({
        "point": {"x": 1, "y": "a"},
        "points": [{"x": 2, "y": "b"}, {"x": 3, "y": "c"}],
        "shape": {"box": {"w": 3}}, "tags": [1], "keyed": {"7": true}
    });
    let at = |pointer: &str, bad: Value| {
        let mut value = valid.clone();
        *value.pointer_mut(pointer).unwrap() = bad;
        failure::<Outer>(&value)
    };
    assert_eq!(
        at("/points/1/x", json!("three")),
        (
            "points[1].x".to_string(),
            "invalid type: string \"three\", expected i32".to_string()
        )
    );
    assert_eq!(at("/tags/0", json!(-1)).0, "tags[0]");
    assert_eq!(at("/shape/box/w", json!(300)).0, "shape.box.w");
    assert_eq!(at("/keyed/7", json!(null)).0, "keyed.7");
    assert_eq!(
        at("/keyed/7", json!(null)).1,
        "invalid type: null, expected a boolean"
    );
    // What a struct itself lacks is reported at the struct.
    assert_eq!(
        at("/point", json!({"x": 1})),
        ("point".to_string(), "missing field `y`".to_string())
    );
    assert_eq!(failure::<Outer>(&json!({})).0, ROOT_PATH);
    // An unknown variant is the enum's own mistake, not its content's.
    assert_eq!(at("/shape", json!({"circle": 1})).0, "shape");
}

/// What decodes within `max_bytes`, or the decoder's message.
fn within<T: DeserializeOwned>(value: &Value, max_bytes: usize) -> Result<T, String> {
    decode::<T>(value, max_bytes).map_err(|e| e.to_string())
}

/// A value that decodes counts exactly what the registry's walk counts: it decodes within
/// its measured length and not within one byte less.
fn counts_as_the_walk<T: DeserializeOwned>(value: &Value) {
    let Measure::Fits(len) = limits::measure(value, usize::MAX, MAX_ARGUMENT_DEPTH) else {
        panic!("{value} is past the limits");
    };
    assert!(within::<T>(value, usize::MAX).is_ok(), "{value} decodes");
    if let Err(error) = within::<T>(value, len) {
        panic!("{value} within its length {len}: {error}");
    }
    assert!(
        within::<T>(value, len - 1).is_err(),
        "{value} decoded within {} bytes, one less than the walk counts",
        len - 1
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Open {
    name: String,
    #[serde(default)]
    size: Option<u32>,
}

#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Either {
    Number(u32),
    Point { x: i32, y: String },
}

#[derive(Deserialize)]
#[serde(tag = "kind")]
#[allow(dead_code)]
enum Tagged {
    Circle { r: f64 },
    Empty,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Flattened {
    id: u8,
    #[serde(flatten)]
    rest: HashMap<String, Value>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Unit;

#[derive(Deserialize)]
#[allow(dead_code)]
struct Wrapper(Vec<Option<bool>>);

/// One field of every scalar kind the decoder counts where it reads it.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Scalars {
    float: f64,
    letter: char,
    wide: i128,
    flag: bool,
    nothing: (),
    unit: Unit,
    absent: Option<String>,
    present: Option<u8>,
    shape: Shape,
    any: Value,
    skipped: IgnoredAny,
}

#[test]
fn every_scalar_kind_is_counted_as_the_walk_counts_it() {
    counts_as_the_walk::<Scalars>(&json!({
        "float": 1.5, "letter": "é", "wide": -5,
        "flag": true, "nothing": null, "unit": null, "absent": null, "present": 7,
        "shape": "dot", "any": "text", "skipped": 12
    }));
    counts_as_the_walk::<Scalars>(&json!({
        "float": 2, "letter": "x", "wide": 1, "flag": false, "nothing": null, "unit": null,
        "absent": "here", "present": null, "shape": {"named": "n"}, "any": [1, {"k": false}],
        "skipped": {"deep": ["a", null]}
    }));
    // A top-level scalar counts itself.
    counts_as_the_walk::<String>(&json!("alone"));
    counts_as_the_walk::<u64>(&json!(42));
}

#[test]
fn what_decodes_is_counted_as_the_walk_counts_it() {
    counts_as_the_walk::<Outer>(&json!({
        "point": {"x": 1, "y": "a"},
        "points": [{"x": 2, "y": "bé"}, {"x": -3, "y": ""}],
        "shape": {"box": {"w": 3}}, "tags": [1, 2], "keyed": {"7": true, "80": false}
    }));
    counts_as_the_walk::<Outer>(&json!({
        "point": {"x": 1, "y": "a"}, "points": [], "shape": "dot", "tags": null, "keyed": {}
    }));
    for shape in [
        json!("dot"),
        json!({"dot": null}),
        json!({"line": [1, 2]}),
        json!({"named": "n"}),
        json!({"box": {"w": 9}}),
    ] {
        counts_as_the_walk::<Shape>(&shape);
    }
    // Fields the type ignores are skipped by the decoder, and counted all the same.
    counts_as_the_walk::<Open>(&json!({"name": "x", "extra": {"deep": [1, {"a": "bc"}]}}));
    counts_as_the_walk::<Open>(&json!({"extra": "long text", "name": "x", "size": null}));
    // Types serde reads through its own buffer, and free-form values.
    counts_as_the_walk::<Either>(&json!(7));
    counts_as_the_walk::<Either>(&json!({"x": 1, "y": "z"}));
    counts_as_the_walk::<Tagged>(&json!({"kind": "Circle", "r": 1.5}));
    counts_as_the_walk::<Tagged>(&json!({"kind": "Empty"}));
    counts_as_the_walk::<Flattened>(&json!({"id": 1, "a": [null, {"b": true}], "c": "d"}));
    counts_as_the_walk::<Value>(&json!({"a": [1, "two", null, {"b": [[]]}], "c": {}}));
    counts_as_the_walk::<HashMap<String, Vec<u8>>>(&json!({"k": [1, 2], "": []}));
    counts_as_the_walk::<(u8, String)>(&json!([1, "x"]));
    counts_as_the_walk::<Unit>(&json!(null));
    counts_as_the_walk::<Wrapper>(&json!([true, null, false]));
    counts_as_the_walk::<Vec<u8>>(&json!([]));
}

/// `{"v": [[...[]...]]}`: an object around `arrays` nested arrays.
fn nested(arrays: usize) -> Value {
    let mut value = json!([]);
    for _ in 1..arrays {
        value = Value::Array(vec![value]);
    }
    let mut root = json!({});
    root["v"] = value;
    root
}

#[test]
fn values_nested_past_the_depth_limit_stop_the_decoder() {
    let deepest = nested(MAX_ARGUMENT_DEPTH - 1);
    assert!(within::<HashMap<String, Value>>(&deepest, usize::MAX).is_ok());
    let deeper = nested(MAX_ARGUMENT_DEPTH);
    let refused = within::<HashMap<String, Value>>(&deeper, usize::MAX).unwrap_err();
    assert!(refused.contains("nested deeper"), "{refused}");
    // Built in memory, far past what a parser would accept: refused without a stack
    // overflow (serde_json's own `&Value` decoder recurses once per level).
    let mut far = nested(100_000);
    assert!(within::<HashMap<String, Value>>(&far, usize::MAX).is_err());
    assert!(within::<HashMap<String, IgnoredAny>>(&far, usize::MAX).is_err());
    limits::defuse_deep_arguments(&mut far);
}

#[test]
fn a_long_string_stops_the_decoder_before_it_is_copied() {
    let value = json!({"name": "x".repeat(1_000)});
    assert!(within::<Open>(&value, 1_000).is_err());
    assert!(within::<Open>(&value, 1_020).is_ok());
}
