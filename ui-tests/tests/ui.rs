//! Compile-pass and compile-fail cases of `#[phi_tool]` and `tools![]`.
//!
//! Regenerate the expected errors with `TRYBUILD=overwrite cargo test -p ui-tests`, then read
//! every changed `.stderr` as a user would.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/pass/*.rs");
    cases.compile_fail("tests/fail/*.rs");
}
