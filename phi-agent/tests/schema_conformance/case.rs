//! One corpus entry, type-erased: its canonical schema, a decoder, a value generator, and the
//! near-misses written for it.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Values generated per type (and checked against every dialect).
pub const CASES_PER_TYPE: usize = 64;

pub struct Case {
    /// The Rust type as a reader knows it (`Option<u8>`, `HashMap<String, i32>`).
    pub name: &'static str,
    pub canonical: Value,
    decode: fn(&Value) -> Result<(), String>,
    generate: fn() -> Vec<Value>,
    /// Values that are almost right: the decoder must refuse each, and so must every schema.
    pub near_misses: Vec<Value>,
}

impl Case {
    pub fn decode(&self, value: &Value) -> Result<(), String> {
        (self.decode)(value)
    }

    /// `CASES_PER_TYPE` values of the type, serialized; the same on every run.
    pub fn generated(&self) -> Vec<Value> {
        (self.generate)()
    }
}

pub fn case<T>(name: &'static str, near_misses: &[Value]) -> Case
where
    T: Arbitrary + Serialize + DeserializeOwned + JsonSchema + 'static,
{
    Case {
        name,
        canonical: phi_agent::schema::canonical_schema_for::<T>(),
        decode: |value| {
            serde_json::from_value::<T>(value.clone())
                .map(drop)
                .map_err(|e| e.to_string())
        },
        generate: generate::<T>,
        near_misses: near_misses.to_vec(),
    }
}

fn generate<T: Arbitrary + Serialize>() -> Vec<Value> {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = any::<T>();
    (0..CASES_PER_TYPE)
        .map(|_| {
            let tree = strategy
                .new_tree(&mut runner)
                .expect("the corpus strategies never reject");
            serde_json::to_value(tree.current()).expect("corpus values serialize")
        })
        .collect()
}
