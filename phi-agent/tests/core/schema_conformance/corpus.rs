//! The conformance corpus: argument types a tool may take, with hand-written near-misses.
//!
//! Each entry is an arguments type (the root object a model sends). A scalar or container type
//! is tested as the single field `value` of a wrapper struct, which is how `#[phi_tool]` sees it.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use proptest_derive::Arbitrary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::case::Case;

fn finite_f64() -> impl Strategy<Value = f64> {
    use proptest::num::f64::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

fn finite_f32() -> impl Strategy<Value = f32> {
    use proptest::num::f32::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

/// Defines `struct $name { value: $ty }` for a type tested as a single field.
macro_rules! wrapper {
    ($name:ident, $ty:ty) => {
        #[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
        pub struct $name {
            /// The value under test.
            pub value: $ty,
        }
    };
    ($name:ident, $ty:ty, $strategy:literal) => {
        #[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
        pub struct $name {
            /// The value under test.
            #[proptest(strategy = $strategy)]
            pub value: $ty,
        }
    };
}

wrapper!(I8, i8);
wrapper!(I16, i16);
wrapper!(I32, i32);
wrapper!(I64, i64);
wrapper!(Isize, isize);
wrapper!(I128, i128, "any::<i64>().prop_map(i128::from)");
wrapper!(U128, u128, "any::<u64>().prop_map(u128::from)");
wrapper!(U8, u8);
wrapper!(U16, u16);
wrapper!(U32, u32);
wrapper!(U64, u64);
wrapper!(Usize, usize);
wrapper!(F32, f32, "finite_f32()");
wrapper!(F64, f64, "finite_f64()");
wrapper!(Bool, bool);
wrapper!(Char, char);
wrapper!(Text, String);
wrapper!(OptI8, Option<i8>);
wrapper!(OptI16, Option<i16>);
wrapper!(OptI32, Option<i32>);
wrapper!(OptI64, Option<i64>);
wrapper!(OptIsize, Option<isize>);
wrapper!(OptU8, Option<u8>);
wrapper!(OptU16, Option<u16>);
wrapper!(OptU32, Option<u32>);
wrapper!(OptU64, Option<u64>);
wrapper!(OptUsize, Option<usize>);
wrapper!(OptF32, Option<f32>, "proptest::option::of(finite_f32())");
wrapper!(OptF64, Option<f64>, "proptest::option::of(finite_f64())");
wrapper!(OptBool, Option<bool>);
wrapper!(OptChar, Option<char>);
wrapper!(OptText, Option<String>);
wrapper!(VecText, Vec<String>);
wrapper!(VecVecI32, Vec<Vec<i32>>);
wrapper!(Array3, [u8; 3]);
wrapper!(HashMapI32, HashMap<String, i32>);
wrapper!(BTreeMapText, BTreeMap<String, String>);
wrapper!(Tuple, (i32, String));
wrapper!(BoxedU16, Box<u16>);
wrapper!(
    AnyJson,
    Value,
    "proptest::prop_oneof![Just(Value::Null), any::<i32>().prop_map(Value::from), \".*\".prop_map(Value::from), any::<bool>().prop_map(Value::from)]"
);

/// A unit enum without docs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Red,
    Green,
    DarkBlue,
}
wrapper!(UnitEnum, Color);
wrapper!(OptUnitEnum, Option<Color>);

/// A unit enum whose variants have docs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    /// Degrees Celsius.
    Metric,
    /// Degrees Fahrenheit.
    Imperial,
}
wrapper!(DocumentedEnum, Units);

/// Externally tagged (serde's default).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub enum External {
    Ping,
    Move { x: i32, y: i32 },
    Say(String),
}
wrapper!(ExternallyTagged, External);

/// Internally tagged.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    Circle { radius: u32 },
    Rectangle { width: u32, height: u32 },
}
wrapper!(InternallyTagged, Shape);

/// Adjacently tagged.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "op", content = "args")]
pub enum Command {
    Stop,
    Go(u16),
    Turn { degrees: i16 },
}
wrapper!(AdjacentlyTagged, Command);

/// Untagged.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(untagged)]
pub enum Loose {
    Number(i64),
    Word(String),
    Pair { left: bool, right: bool },
}
wrapper!(Untagged, Loose);

/// Four levels of nested structs.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Level1 {
    /// The first level.
    pub name: String,
    pub level2: Level2,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Level2 {
    pub count: u32,
    pub level3: Option<Level3>,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Level3 {
    pub tags: Vec<String>,
    pub level4: Level4,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Level4 {
    /// The deepest flag.
    pub deep: bool,
}

/// A recursive struct.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TreeNode {
    /// The node's label.
    pub label: String,
    /// The node's children.
    pub children: Vec<TreeNode>,
}

impl Arbitrary for TreeNode {
    type Parameters = ();
    type Strategy = BoxedStrategy<Self>;
    fn arbitrary_with((): ()) -> Self::Strategy {
        let leaf = "[a-z]{0,4}".prop_map(|label| TreeNode {
            label,
            children: Vec::new(),
        });
        leaf.prop_recursive(3, 12, 3, |inner| {
            ("[a-z]{0,4}", prop::collection::vec(inner, 0..3))
                .prop_map(|(label, children)| TreeNode { label, children })
        })
        .boxed()
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Tree {
    /// The root of the tree.
    pub root: TreeNode,
}

/// A newtype.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Meters(#[proptest(strategy = "finite_f64()")] pub f64);
wrapper!(Newtype, Meters);

/// serde renames.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    pub user_name: String,
    #[serde(rename = "ID")]
    pub user_id: u64,
}

/// A flattened struct.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Paging {
    pub page: u32,
    pub per_page: u8,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Flattened {
    pub query: String,
    #[serde(flatten)]
    pub paging: Paging,
}

/// Unknown fields collected by a flattened map.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct FlattenedMap {
    pub id: u32,
    #[serde(flatten)]
    #[proptest(strategy = "prop::collection::hash_map(\"x[a-z]{1,4}\", any::<i32>(), 0..3)")]
    pub extra: HashMap<String, i32>,
}

/// A field with a default.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Defaulted {
    pub city: String,
    /// Days ahead.
    #[serde(default = "three")]
    pub days: u8,
}
fn three() -> u8 {
    3
}

/// A skipped field.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Skipped {
    pub visible: bool,
    #[serde(skip)]
    #[allow(dead_code, reason = "skipped by serde: the point of the case")]
    pub internal: u64,
}

/// Unknown fields refused.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    pub a: i32,
    pub b: Option<String>,
}

/// A flattened internally tagged enum: its alternatives land at the root of the arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct FlattenedEnum {
    pub query: String,
    #[serde(flatten)]
    pub shape: Shape,
}

/// An optional nested struct and a nested filter with a map, as in real tools.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Filters {
    pub since: Option<String>,
    pub extra: BTreeMap<String, String>,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Search {
    pub query: String,
    pub filters: Filters,
}
wrapper!(OptStruct, Option<Level4>);

/// An order of lines, as in the shop of issue 32; the lines leave unknown fields open (serde's
/// default, and so the canonical schema's).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Line {
    pub sku: String,
    pub quantity: u32,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Order {
    pub lines: Vec<Line>,
}

/// The same order with every level closed by serde (`deny_unknown_fields`).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
pub struct ClosedLine {
    pub sku: String,
    pub quantity: u32,
    pub note: Option<String>,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
pub struct ClosedOrder {
    pub lines: Vec<ClosedLine>,
    pub gift: Option<ClosedLine>,
}

/// Closed for schemars only: `#[schemars(deny_unknown_fields)]` writes
/// `additionalProperties: false`, and serde is not told.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[schemars(deny_unknown_fields)]
pub struct SchemaClosedLine {
    pub sku: String,
    pub quantity: u32,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct SchemaClosedOrder {
    pub lines: Vec<SchemaClosedLine>,
}

/// Internally tagged, unknown fields refused.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClosedShape {
    Circle { radius: u32 },
    Rectangle { width: u32, height: u32 },
}
wrapper!(ClosedInternallyTagged, ClosedShape);

/// Adjacently tagged, unknown fields refused.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "op", content = "args", deny_unknown_fields)]
pub enum ClosedCommand {
    Stop,
    Go(u16),
    Turn { degrees: i16 },
}
wrapper!(ClosedAdjacentlyTagged, ClosedCommand);

/// Externally tagged with struct variants whose fields are closed.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
pub enum ClosedExternal {
    Ping,
    Move { x: i32, y: i32 },
}
wrapper!(ClosedExternallyTagged, ClosedExternal);

/// `{"value": v}`: a near-miss for a wrapper type.
fn v(value: Value) -> Value {
    json!({ "value": value })
}

/// Every corpus entry, in table order.
pub fn all() -> Vec<Case> {
    use super::case::case;
    let int_misses = |above: Value, below: Value| {
        vec![
            v(above),
            v(below),
            v(json!(1.5)),
            v(json!("1")),
            v(Value::Null),
            json!({}),
        ]
    };
    let opt_int_misses =
        |above: Value, below: Value| vec![v(above), v(below), v(json!(1.5)), v(json!("1"))];
    vec![
        case::<I8>("i8", &int_misses(json!(128), json!(-129))),
        case::<I16>("i16", &int_misses(json!(32768), json!(-32769))),
        case::<I32>(
            "i32",
            &int_misses(json!(2147483648_i64), json!(-2147483649_i64)),
        ),
        case::<I64>("i64", &int_misses(json!("9223372036854775808"), json!(0.5))),
        case::<Isize>("isize", &int_misses(json!(true), json!(-0.5))),
        case::<I128>("i128", &int_misses(json!("1"), json!(-0.5))),
        case::<U128>("u128", &int_misses(json!(false), json!(-1))),
        case::<U8>("u8", &int_misses(json!(256), json!(-1))),
        case::<U16>("u16", &int_misses(json!(65536), json!(-1))),
        case::<U32>("u32", &int_misses(json!(4294967296_u64), json!(-1))),
        case::<U64>("u64", &int_misses(json!([1]), json!(-1))),
        case::<Usize>("usize", &int_misses(json!({}), json!(-1))),
        case::<F32>(
            "f32",
            &[v(json!("1.0")), v(Value::Null), v(json!([1.0])), json!({})],
        ),
        case::<F64>(
            "f64",
            &[v(json!("1.0")), v(Value::Null), v(json!(true)), json!({})],
        ),
        case::<Bool>(
            "bool",
            &[v(json!(1)), v(json!("true")), v(Value::Null), json!({})],
        ),
        case::<Char>(
            "char",
            &[v(json!("ab")), v(json!("")), v(json!(97)), json!({})],
        ),
        case::<Text>(
            "String",
            &[v(json!(1)), v(Value::Null), v(json!(["a"])), json!({})],
        ),
        case::<OptI8>("Option<i8>", &opt_int_misses(json!(128), json!(-129))),
        case::<OptI16>("Option<i16>", &opt_int_misses(json!(32768), json!(-32769))),
        case::<OptI32>(
            "Option<i32>",
            &opt_int_misses(json!(2147483648_i64), json!(-2147483649_i64)),
        ),
        case::<OptI64>("Option<i64>", &opt_int_misses(json!(false), json!(0.5))),
        case::<OptIsize>("Option<isize>", &opt_int_misses(json!([]), json!(-0.5))),
        case::<OptU8>("Option<u8>", &opt_int_misses(json!(256), json!(-1))),
        case::<OptU16>("Option<u16>", &opt_int_misses(json!(65536), json!(-1))),
        case::<OptU32>(
            "Option<u32>",
            &opt_int_misses(json!(4294967296_u64), json!(-1)),
        ),
        case::<OptU64>("Option<u64>", &opt_int_misses(json!({}), json!(-1))),
        case::<OptUsize>("Option<usize>", &opt_int_misses(json!("0"), json!(-1))),
        case::<OptF32>("Option<f32>", &[v(json!("1.0")), v(json!(true))]),
        case::<OptF64>("Option<f64>", &[v(json!("1.0")), v(json!([]))]),
        case::<OptBool>("Option<bool>", &[v(json!(0)), v(json!("false"))]),
        case::<OptChar>("Option<char>", &[v(json!("ab")), v(json!(""))]),
        case::<OptText>("Option<String>", &[v(json!(1)), v(json!({}))]),
        case::<VecText>(
            "Vec<String>",
            &[v(json!("a")), v(json!([1])), v(Value::Null)],
        ),
        case::<VecVecI32>(
            "Vec<Vec<i32>>",
            &[v(json!([1])), v(json!([[1.5]])), v(json!([["1"]]))],
        ),
        case::<Array3>(
            "[u8; 3]",
            &[
                v(json!([1, 2])),
                v(json!([1, 2, 3, 4])),
                v(json!([1, 2, 256])),
            ],
        ),
        case::<BoxedU16>("Box<u16>", &[v(json!(65536)), v(json!(-1))]),
        case::<HashMapI32>(
            "HashMap<String, i32>",
            &[v(json!({"a": "x"})), v(json!([])), v(json!({"a": 1.5}))],
        ),
        case::<BTreeMapText>(
            "BTreeMap<String, String>",
            &[v(json!({"a": 1})), v(json!("a"))],
        ),
        case::<Tuple>(
            "(i32, String)",
            &[v(json!([1])), v(json!([1, "a", 2])), v(json!(["a", 1]))],
        ),
        case::<AnyJson>("serde_json::Value", &[json!({})]),
        case::<UnitEnum>(
            "unit enum",
            &[v(json!("blue")), v(json!("Red")), v(json!(0))],
        ),
        case::<OptUnitEnum>("Option<unit enum>", &[v(json!("blue")), v(json!(1))]),
        case::<DocumentedEnum>(
            "unit enum with docs",
            &[v(json!("kelvin")), v(json!("Metric"))],
        ),
        case::<ExternallyTagged>(
            "externally tagged enum",
            &[
                v(json!("Move")),
                v(json!({"Say": 1})),
                v(json!({"Jump": {}})),
                v(json!({"Move": {"x": 1}})),
            ],
        ),
        case::<InternallyTagged>(
            "internally tagged enum",
            &[
                v(json!({"kind": "triangle"})),
                v(json!({"kind": "circle"})),
                v(json!({"radius": 1})),
            ],
        ),
        case::<AdjacentlyTagged>(
            "adjacently tagged enum",
            &[
                v(json!({"op": "Fly"})),
                v(json!({"op": "Go"})),
                v(json!({"op": "Go", "args": -1})),
            ],
        ),
        case::<Untagged>(
            "untagged enum",
            &[
                v(json!(true)),
                v(json!({"left": true})),
                v(json!(1.5)),
                v(json!([])),
            ],
        ),
        case::<OptStruct>(
            "Option<struct>",
            &[v(json!({})), v(json!(1)), v(json!({"deep": "yes"}))],
        ),
        case::<Level1>(
            "structs nested four deep",
            &[
                json!({"name": "a", "level2": {"count": 1, "level3": {"tags": [], "level4": {}}}}),
                json!({"name": "a", "level2": {"count": -1}}),
                json!({"name": "a"}),
                json!({"name": "a", "level2": {"count": 1, "level3": {"tags": [1], "level4": {"deep": true}}}}),
            ],
        ),
        case::<Tree>(
            "recursive struct",
            &[
                json!({"root": {"label": "a", "children": [{"label": 1, "children": []}]}}),
                json!({"root": {"label": "a", "children": [{"label": "b"}]}}),
                json!({"root": {"label": "a"}}),
            ],
        ),
        case::<TreeNode>(
            "recursive struct (as the arguments)",
            &[
                json!({"label": "a", "children": [{"label": "b"}]}),
                json!({"label": "a", "children": {}}),
            ],
        ),
        case::<FlattenedEnum>(
            "flatten (enum)",
            &[
                json!({"query": "a", "kind": "circle"}),
                json!({"query": "a", "kind": "oval", "radius": 1}),
                json!({"kind": "circle", "radius": 1}),
            ],
        ),
        case::<Newtype>(
            "newtype struct",
            &[v(json!("1.0")), v(json!([1.0])), v(json!({"0": 1.0}))],
        ),
        case::<Renamed>(
            "rename / rename_all",
            &[
                json!({"user_name": "a", "ID": 1}),
                json!({"userName": "a", "user_id": 1}),
                json!({"userName": "a", "ID": -1}),
            ],
        ),
        case::<Flattened>(
            "flatten (struct)",
            &[
                json!({"query": "a", "paging": {"page": 1, "per_page": 2}}),
                json!({"query": "a", "page": 1}),
                json!({"query": "a", "page": 1, "per_page": 256}),
            ],
        ),
        case::<FlattenedMap>(
            "flatten (map of extra fields)",
            &[
                json!({"id": 1, "xa": "text"}),
                json!({"xa": 1}),
                json!({"id": 1, "xb": 1.5}),
            ],
        ),
        case::<Defaulted>(
            "default",
            &[
                json!({"days": 3}),
                json!({"city": "a", "days": 256}),
                json!({"city": "a", "days": null}),
            ],
        ),
        case::<Skipped>("skip", &[json!({"visible": "yes"}), json!({"internal": 1})]),
        case::<Strict>(
            "deny_unknown_fields",
            &[
                json!({"a": 1, "c": 2}),
                json!({"b": "x"}),
                json!({"a": 1, "b": 2}),
            ],
        ),
        case::<Order>(
            "nested open struct (Vec<Line>)",
            &[
                json!({"lines": [{"sku": "MUG-02"}]}),
                json!({"lines": [{"sku": "MUG-02", "quantity": -1}]}),
            ],
        ),
        case::<ClosedOrder>(
            "nested deny_unknown_fields",
            &[
                json!({"lines": [{"sku": "MUG-02", "quantity": 1, "gift_wrap": true}], "gift": null}),
                json!({"lines": [], "gift": {"sku": "A", "quantity": 1, "colour": "red"}}),
            ],
        ),
        case::<SchemaClosedOrder>(
            "nested schemars(deny_unknown_fields)",
            &[
                json!({"lines": [{"sku": "MUG-02", "quantity": 1, "gift_wrap": true}]}),
                json!({"lines": [{"sku": "MUG-02"}]}),
            ],
        ),
        case::<ClosedInternallyTagged>(
            "internally tagged, deny_unknown_fields",
            &[
                v(json!({"kind": "circle", "radius": 1, "colour": "red"})),
                v(json!({"kind": "square", "side": 1})),
            ],
        ),
        case::<ClosedAdjacentlyTagged>(
            "adjacently tagged, deny_unknown_fields",
            &[
                v(json!({"op": "Go", "args": 3, "speed": 1})),
                v(json!({"op": "Turn", "args": {"degrees": 1, "radians": 1}})),
            ],
        ),
        case::<ClosedExternallyTagged>(
            "externally tagged, deny_unknown_fields",
            &[
                v(json!({"Move": {"x": 1, "y": 2, "z": 3}})),
                v(json!({"Move": {"x": 1}})),
            ],
        ),
        case::<Search>(
            "struct with a nested map",
            &[
                json!({"query": "a", "filters": {"extra": {"k": 1}}}),
                json!({"query": "a", "filters": {"since": null}}),
            ],
        ),
    ]
}
