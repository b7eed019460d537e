//! Compile-pass and compile-fail cases of `#[phi_tool]` and `tools![]`.
//!
//! Regenerate the expected errors with `TRYBUILD=overwrite cargo test -p ui-tests`, then read
//! every changed `.stderr` as a user would.

use std::io::Write as _;

#[test]
fn ui() {
    // Straight to stderr, past libtest's capture: the first step takes minutes on a cold
    // target, and would otherwise show only as "has been running for over 60 seconds".
    let _ = writeln!(
        std::io::stderr(),
        "ui-tests: trybuild first builds phi-agent and its dependencies in target/tests/trybuild \
         (a copy of its own, with other flags; minutes when cold, seconds when warm), then \
         compiles each case in tests/pass and tests/fail; one case: \
         `cargo test -p ui-tests --test ui -- ui trybuild=<file name>`"
    );
    let cases = trybuild::TestCases::new();
    cases.pass("tests/pass/*.rs");
    cases.compile_fail("tests/fail/*.rs");
}
