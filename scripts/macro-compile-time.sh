#!/usr/bin/env bash
# Compile-time cost of #[phi_tool]: builds a crate of 100 macro tools, a crate of the same 100
# tools written by hand as `TypedTool`s, and a crate of the same 100 tools as `#[tool]` methods of
# one `#[phi_tools]` impl, dependencies prebuilt, and prints the build time of each.
#
# Usage: scripts/macro-compile-time.sh [TOOLS=100] [RUNS=3]
# Both crates live in a generated workspace under target/; the repo's Cargo.lock pins the versions.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
tools=${1:-100}
runs=${2:-3}
work="$repo/target/macro-compile-time"
rm -rf "$work"
mkdir -p "$work/macro-tools/src" "$work/hand-tools/src" "$work/method-tools/src"
cp Cargo.lock "$work/Cargo.lock"

cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = ["macro-tools", "hand-tools", "method-tools"]
TOML

# The macro crate depends on phi-agent alone (plus tokio, unused here): serde and schemars are
# reached through phi-agent.
cat > "$work/macro-tools/Cargo.toml" <<TOML
[package]
name = "macro-tools"
version = "0.1.0"
edition = "2024"

[dependencies]
phi-agent = { path = "$repo/phi-agent" }
tokio = "1"
TOML

cat > "$work/method-tools/Cargo.toml" <<TOML
[package]
name = "method-tools"
version = "0.1.0"
edition = "2024"

[dependencies]
phi-agent = { path = "$repo/phi-agent" }
tokio = "1"
TOML

cat > "$work/hand-tools/Cargo.toml" <<TOML
[package]
name = "hand-tools"
version = "0.1.0"
edition = "2024"

[dependencies]
phi-agent = { path = "$repo/phi-agent" }
async-trait = "0.1"
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
TOML

{
    echo "use phi_agent::{AgentResult, Tool, ToolContext, phi_tool, tools};"
    echo "use std::sync::Arc;"
    for i in $(seq 0 $((tools - 1))); do
        cat <<RS

/// Look up the weather for a city (tool $i).
#[phi_tool(timeout = 5_000)]
pub async fn weather_$i(
    /// City name, e.g. "Beijing"
    city: String,
    /// Days ahead
    #[phi(default = 3)]
    days: u8,
    units: Option<String>,
    ctx: &ToolContext,
) -> AgentResult<String> {
    Ok(format!("$i {city} {days} {units:?} {}", ctx.session_id()))
}
RS
    done
    echo
    echo "/// All tools."
    echo "pub fn all() -> Vec<Arc<dyn Tool>> {"
    echo "    tools!["
    for i in $(seq 0 $((tools - 1))); do echo "        weather_$i,"; done
    echo "    ]"
    echo "}"
} > "$work/macro-tools/src/lib.rs"

# The same tools as methods of one type (with a field, so that `&self` is used).
{
    echo "use phi_agent::{AgentResult, Tool, ToolContext, phi_tools};"
    echo "use std::sync::Arc;"
    echo
    echo "/// The state every tool shares."
    echo "pub struct Weather {"
    echo "    pub prefix: String,"
    echo "}"
    echo
    echo "#[phi_tools]"
    echo "impl Weather {"
    for i in $(seq 0 $((tools - 1))); do
        cat <<RS
    /// Look up the weather for a city (tool $i).
    #[tool(timeout = 5_000)]
    pub async fn weather_$i(
        &self,
        /// City name, e.g. "Beijing"
        city: String,
        /// Days ahead
        #[phi(default = 3)]
        days: u8,
        units: Option<String>,
        ctx: &ToolContext,
    ) -> AgentResult<String> {
        Ok(format!("{}$i {city} {days} {units:?} {}", self.prefix, ctx.session_id()))
    }

RS
    done
    echo "}"
    echo
    echo "/// All tools."
    echo "pub fn all() -> Vec<Arc<dyn Tool>> {"
    echo "    Arc::new(Weather { prefix: String::new() }).tools()"
    echo "}"
} > "$work/method-tools/src/lib.rs"

{
    echo "use async_trait::async_trait;"
    echo "use phi_agent::{AgentResult, Tool, ToolContext, TypedTool};"
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    echo "use std::sync::Arc;"
    for i in $(seq 0 $((tools - 1))); do
        cat <<RS

fn default_days_$i() -> u8 {
    3
}

#[derive(Deserialize, JsonSchema)]
pub struct Weather${i}Args {
    /// City name, e.g. "Beijing"
    pub city: String,
    /// Days ahead
    #[serde(default = "default_days_$i")]
    pub days: u8,
    pub units: Option<String>,
}

/// Look up the weather for a city (tool $i).
pub struct Weather$i;

#[async_trait]
impl TypedTool for Weather$i {
    type Args = Weather${i}Args;
    type Output = String;

    fn name(&self) -> &'static str {
        "weather_$i"
    }

    fn description(&self) -> &'static str {
        "Look up the weather for a city (tool $i)."
    }

    fn timeout_ms(&self) -> Option<u64> {
        Some(5_000)
    }

    async fn call_typed(&self, args: Weather${i}Args, ctx: &ToolContext) -> AgentResult<String> {
        let Weather${i}Args { city, days, units } = args;
        Ok(format!("$i {city} {days} {units:?} {}", ctx.session_id()))
    }
}
RS
    done
    echo
    echo "/// All tools."
    echo "pub fn all() -> Vec<Arc<dyn Tool>> {"
    echo "    vec!["
    for i in $(seq 0 $((tools - 1))); do echo "        Arc::new(Weather$i),"; done
    echo "    ]"
    echo "}"
} > "$work/hand-tools/src/lib.rs"

cd "$work"
# The issue's conditions: a clean (non-incremental) build of the crate, as in CI or a release.
export CARGO_INCREMENTAL=0
echo "Prebuilding dependencies (not timed)..."
cargo build --offline -q -p macro-tools -p hand-tools -p method-tools

time_build() {
    local crate=$1 best=""
    for _ in $(seq "$runs"); do
        touch "$crate/src/lib.rs"
        local start end ms
        start=$(date +%s%N)
        cargo build --offline -q -p "$crate"
        end=$(date +%s%N)
        ms=$(((end - start) / 1000000))
        if [[ -z "$best" || "$ms" -lt "$best" ]]; then best=$ms; fi
    done
    echo "$best"
}

# Interleaved rounds, so that a change in the machine's load hits all three alike.
macro_ms="" hand_ms="" method_ms=""
for _ in $(seq "$runs"); do
    ms=$(runs=1 time_build macro-tools); if [[ -z "$macro_ms" || "$ms" -lt "$macro_ms" ]]; then macro_ms=$ms; fi
    ms=$(runs=1 time_build hand-tools); if [[ -z "$hand_ms" || "$ms" -lt "$hand_ms" ]]; then hand_ms=$ms; fi
    ms=$(runs=1 time_build method-tools); if [[ -z "$method_ms" || "$ms" -lt "$method_ms" ]]; then method_ms=$ms; fi
done
echo
echo "Debug build of the crate alone (dependencies prebuilt, CARGO_INCREMENTAL=0), best of $runs:"
printf '  %-28s %6d ms  (%d lines of source)\n' "$tools tools with #[phi_tool]" "$macro_ms" "$(wc -l < macro-tools/src/lib.rs)"
printf '  %-28s %6d ms  (%d lines of source)\n' "$tools hand-written TypedTools" "$hand_ms" "$(wc -l < hand-tools/src/lib.rs)"
printf '  %-28s %6d ms  (%d lines of source)\n' "$tools #[tool] methods" "$method_ms" "$(wc -l < method-tools/src/lib.rs)"
printf '  ratio #[phi_tool] / hand-written %s (at most 1.2)\n' "$(awk -v m="$macro_ms" -v h="$hand_ms" 'BEGIN { printf "%.2f", m / h }')"
printf '  ratio #[tool] methods / #[phi_tool] fns %s\n' "$(awk -v m="$method_ms" -v f="$macro_ms" 'BEGIN { printf "%.2f", m / f }')"
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
snapshot="$repo/phi-agent-macros/src/tool/snapshots/get_weather.expanded.rs"
echo "  expansion of one such tool by #[phi_tool] (the get_weather snapshot: same parameters, plus deferred activation; serde/schemars derives not expanded): $(wc -l < "$snapshot") lines (see $snapshot)"
