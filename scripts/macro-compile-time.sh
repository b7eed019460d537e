#!/usr/bin/env bash
# Compile-time cost of #[phi_tool], against a framework-free floor. Builds one crate per way of
# writing the same N tools and prints each one's build time and its ratio to the floor:
#
# - floor: one arguments struct per tool deriving `Deserialize` + `JsonSchema`, a hand-written
#   `match name` dispatcher and a definitions list; serde, schemars and serde_json only. The work
#   any tool kit has to do: derive the arguments, decode, call, list definitions.
# - typed: the same tools written by hand as phi-agent `TypedTool`s, registered into a
#   `ToolRegistry`.
# - macro: the same tools as `#[phi_tool]` fns, `tools![..]` into a `ToolRegistry`.
# - methods: the same tools as `#[tool]` methods (`&self`) of one `#[phi_tools]` impl, its
#   `tools()` into a `ToolRegistry`.
# - baseline (only with BASELINE=<path of another phi-agent checkout>): the macro crate built
#   against that checkout, so that a change is measured before and after in the same run.
#
# The tools: even ones take `{a: i64, b: i64}`, odd ones `{query: String, filters: Filters}` with
# `Filters {tags: Vec<String>, since: Option<String>, limit: u32}`.
#
# Usage: [INSTRUCTIONS=1] scripts/macro-compile-time.sh [TOOLS=100] [RUNS=3]
# Environment: COMPILE_TIME_DIR (where the scratch workspace goes; kept, so the next run reuses
# its prebuilt dependencies; default: a temporary directory, removed at exit), BASELINE (above).
# Each run builds every variant once, in turn, so that the machine's load affects them alike;
# the figure is the median over the runs. The repo's Cargo.lock pins the versions.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
tools=${1:-100}
runs=${2:-3}
if [[ -n "${COMPILE_TIME_DIR:-}" ]]; then
    work=$COMPILE_TIME_DIR
    mkdir -p "$work"
    # Keep the target directories (prebuilt dependencies); regenerate the crates.
    find "$work" -mindepth 1 -maxdepth 1 ! -name target ! -name target-baseline -exec rm -rf {} +
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
variants=(floor typed macro methods)
mkdir -p "$work/floor/src" "$work/typed/src" "$work/macro/src" "$work/methods/src"
cp Cargo.lock "$work/Cargo.lock"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = ["floor", "typed", "macro", "methods"]
TOML
if [[ -n "${BASELINE:-}" ]]; then
    # A workspace of its own (one lockfile cannot hold two phi-agents), with that checkout's
    # lockfile and its own target directory.
    baseline=$(cd "$BASELINE" && pwd)
    variants+=(baseline)
    mkdir -p "$work/baseline/src"
    cp "$baseline/Cargo.lock" "$work/baseline/Cargo.lock"
fi

manifest() {
    local name=$1 deps=$2
    cat <<TOML
[package]
name = "$name"
version = "0.1.0"
edition = "2024"

[dependencies]
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
$deps
TOML
}
manifest floor "" > "$work/floor/Cargo.toml"
manifest typed "phi-agent = { path = \"$repo/phi-agent\" }
async-trait = \"0.1\"" > "$work/typed/Cargo.toml"
manifest macro "phi-agent = { path = \"$repo/phi-agent\" }" > "$work/macro/Cargo.toml"
manifest methods "phi-agent = { path = \"$repo/phi-agent\" }" > "$work/methods/Cargo.toml"
if [[ -n "${baseline:-}" ]]; then
    {
        manifest baseline "phi-agent = { path = \"$baseline/phi-agent\" }"
        echo
        echo "[workspace]"
    } > "$work/baseline/Cargo.toml"
fi

# The shared type of the odd tools' `filters`, and the fields' doc comments (schema descriptions).
filters() {
    cat <<'RS'

/// Which results to keep.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Filters {
    /// Only results with all these tags
    pub tags: Vec<String>,
    /// Only results newer than this date
    pub since: Option<String>,
    /// At most this many results
    pub limit: u32,
}
RS
}
add_fields() {
    printf '    /// The first addend\n    %sa: i64,\n    /// The second addend\n    %sb: i64,\n' "$1" "$1"
}
search_fields() {
    printf '    /// Words to look for\n    %squery: String,\n    /// Which results to keep\n    %sfilters: Filters,\n' "$1" "$1"
}
add_body='Ok(a + b + $i)'
search_body='Ok(format!("$i {query} {} {:?} {}", filters.tags.len(), filters.since, filters.limit))'

{
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    echo "use serde_json::Value;"
    filters
    for i in $(seq 0 $((tools - 1))); do
        echo
        echo "#[derive(Deserialize, JsonSchema)]"
        echo "pub struct Tool${i}Args {"
        if ((i % 2 == 0)); then add_fields "pub "; else search_fields "pub "; fi
        echo "}"
        if ((i % 2 == 0)); then
            echo "pub async fn tool_$i(a: i64, b: i64) -> Result<i64, String> { ${add_body//\$i/$i} }"
        else
            echo "pub async fn tool_$i(query: String, filters: Filters) -> Result<String, String> { ${search_body//\$i/$i} }"
        fi
    done
    echo
    echo "/// Decodes the arguments of the tool called \`name\` and runs it."
    echo "pub async fn dispatch(name: &str, args: &Value) -> Result<String, String> {"
    echo "    match name {"
    for i in $(seq 0 $((tools - 1))); do
        echo "        \"tool_$i\" => {"
        echo "            let args = Tool${i}Args::deserialize(args).map_err(|e| e.to_string())?;"
        if ((i % 2 == 0)); then
            echo "            tool_$i(args.a, args.b).await.map(|v| v.to_string())"
        else
            echo "            tool_$i(args.query, args.filters).await"
        fi
        echo "        }"
    done
    echo "        _ => Err(format!(\"no tool {name}\")),"
    echo "    }"
    echo "}"
    echo
    echo "/// Every tool's name, description and argument schema."
    echo "pub fn definitions() -> Vec<(&'static str, &'static str, Value)> {"
    echo "    vec!["
    for i in $(seq 0 $((tools - 1))); do
        if ((i % 2 == 0)); then desc="Add two integers (tool $i)."; else desc="Search the catalogue (tool $i)."; fi
        echo "        (\"tool_$i\", \"$desc\", serde_json::to_value(schemars::schema_for!(Tool${i}Args)).unwrap()),"
    done
    echo "    ]"
    echo "}"
} > "$work/floor/src/lib.rs"

{
    echo "use async_trait::async_trait;"
    echo "use phi_agent::registry::ToolRegistry;"
    echo "use phi_agent::{AgentResult, ToolContext, TypedTool};"
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    filters
    for i in $(seq 0 $((tools - 1))); do
        echo
        echo "#[derive(Deserialize, JsonSchema)]"
        echo "pub struct Tool${i}Args {"
        if ((i % 2 == 0)); then add_fields "pub "; else search_fields "pub "; fi
        echo "}"
        echo
        echo "pub struct Tool$i;"
        echo
        echo "#[async_trait]"
        echo "impl TypedTool for Tool$i {"
        echo "    type Args = Tool${i}Args;"
        if ((i % 2 == 0)); then
            echo "    type Output = i64;"
            echo "    fn name(&self) -> &'static str { \"tool_$i\" }"
            echo "    fn description(&self) -> &'static str { \"Add two integers (tool $i).\" }"
            echo "    async fn call_typed(&self, args: Tool${i}Args, _ctx: &ToolContext) -> AgentResult<i64> {"
            echo "        let Tool${i}Args { a, b } = args;"
            echo "        ${add_body//\$i/$i}"
        else
            echo "    type Output = String;"
            echo "    fn name(&self) -> &'static str { \"tool_$i\" }"
            echo "    fn description(&self) -> &'static str { \"Search the catalogue (tool $i).\" }"
            echo "    async fn call_typed(&self, args: Tool${i}Args, _ctx: &ToolContext) -> AgentResult<String> {"
            echo "        let Tool${i}Args { query, filters } = args;"
            echo "        ${search_body//\$i/$i}"
        fi
        echo "    }"
        echo "}"
    done
    echo
    echo "/// Every tool, registered."
    echo "pub fn registry() -> AgentResult<ToolRegistry> {"
    echo "    let mut registry = ToolRegistry::default();"
    for i in $(seq 0 $((tools - 1))); do echo "    registry.register(Tool$i)?;"; done
    echo "    Ok(registry)"
    echo "}"
} > "$work/typed/src/lib.rs"

{
    echo "use phi_agent::registry::ToolRegistry;"
    echo "use phi_agent::{AgentResult, phi_tool, tools};"
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    filters
    for i in $(seq 0 $((tools - 1))); do
        echo
        if ((i % 2 == 0)); then
            echo "/// Add two integers (tool $i)."
            echo "#[phi_tool]"
            echo "pub async fn tool_$i("
            add_fields ""
            echo ") -> AgentResult<i64> {"
            echo "    ${add_body//\$i/$i}"
        else
            echo "/// Search the catalogue (tool $i)."
            echo "#[phi_tool]"
            echo "pub async fn tool_$i("
            search_fields ""
            echo ") -> AgentResult<String> {"
            echo "    ${search_body//\$i/$i}"
        fi
        echo "}"
    done
    echo
    echo "/// Every tool, registered."
    echo "pub fn registry() -> AgentResult<ToolRegistry> {"
    echo "    let mut registry = ToolRegistry::default();"
    echo "    registry.register_all(tools!["
    for i in $(seq 0 $((tools - 1))); do echo "        tool_$i,"; done
    echo "    ])?;"
    echo "    Ok(registry)"
    echo "}"
} > "$work/macro/src/lib.rs"
if [[ -n "${baseline:-}" ]]; then cp "$work/macro/src/lib.rs" "$work/baseline/src/lib.rs"; fi

{
    echo "use std::sync::Arc;"
    echo
    echo "use phi_agent::registry::ToolRegistry;"
    echo "use phi_agent::{AgentResult, phi_tools};"
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    filters
    echo
    echo "/// The state the tools share."
    echo "pub struct Catalogue {"
    echo "    pub offset: i64,"
    echo "}"
    echo
    echo "#[phi_tools]"
    echo "impl Catalogue {"
    for i in $(seq 0 $((tools - 1))); do
        if ((i % 2 == 0)); then
            echo "    /// Add two integers (tool $i)."
            echo "    #[tool]"
            echo "    pub async fn tool_$i("
            echo "        &self,"
            add_fields "" | sed 's/^/    /'
            echo "    ) -> AgentResult<i64> {"
            echo "        Ok(a + b + $i + self.offset)"
        else
            echo "    /// Search the catalogue (tool $i)."
            echo "    #[tool]"
            echo "    pub async fn tool_$i("
            echo "        &self,"
            search_fields "" | sed 's/^/    /'
            echo "    ) -> AgentResult<String> {"
            echo "        ${search_body//\$i/$i}"
        fi
        echo "    }"
        echo
    done
    echo "}"
    echo
    echo "/// Every tool, registered."
    echo "pub fn registry() -> AgentResult<ToolRegistry> {"
    echo "    let mut registry = ToolRegistry::default();"
    echo "    registry.register_all(Arc::new(Catalogue { offset: 0 }).tools())?;"
    echo "    Ok(registry)"
    echo "}"
} > "$work/methods/src/lib.rs"

cd "$work"
# The issue's conditions: a clean (non-incremental) debug build of the crate alone.
export CARGO_INCREMENTAL=0
build() {
    if [[ $1 == baseline ]]; then
        CARGO_TARGET_DIR="$work/target-baseline" cargo build --offline -q --manifest-path baseline/Cargo.toml
    else
        cargo build --offline -q -p "$1"
    fi
}
echo "Prebuilding dependencies (not timed)..."
for variant in "${variants[@]}"; do build "$variant"; done

# Wall time, and the CPU time (user + system) of the build: on a machine shared with other
# builds the wall time stretches with theirs, the CPU time much less, so both are reported.
declare -A times cpu
TIMEFORMAT='%R %U %S'
for run in $(seq "$runs"); do
    for variant in "${variants[@]}"; do
        touch "$variant/src/lib.rs"
        read -r real user sys < <({ time build "$variant"; } 2>&1 >/dev/null | tail -1)
        times[$variant]="${times[$variant]:-} $(awk -v r="$real" 'BEGIN { printf "%d", r * 1000 }')"
        cpu[$variant]="${cpu[$variant]:-} $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')"
    done
    echo "  run $run/$runs done (load average $(cut -d' ' -f1-3 /proc/loadavg))"
done

median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
floor_ms=$(median "${times[floor]}")
declare -A labels=(
    [floor]="floor (serde + schemars, match)"
    [typed]="hand-written TypedTools"
    [macro]="#[phi_tool] fns + tools![]"
    [methods]="#[tool] methods + tools()"
    [baseline]="#[phi_tool] fns, BASELINE"
)
# Each run's ratio to the floor of the same run, then their median: the machine's speed drifts
# over minutes (a shared host), and a ratio within one run cancels most of that.
paired_ratio() {
    paste -d' ' <(tr ' ' '\n' <<<"$1" | sed '/^$/d') <(tr ' ' '\n' <<<"${2:-${times[floor]}}" | sed '/^$/d') |
        awk '{ printf "%.4f\n", $1 / $2 }' | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'
}
echo
echo "Debug build of the crate alone ($tools tools; dependencies prebuilt, CARGO_INCREMENTAL=0),"
echo "median of $runs interleaved runs (each run's times in brackets); 'paired' is the median of"
echo "each run's own ratio to that run's floor:"
for variant in "${variants[@]}"; do
    ms=$(median "${times[$variant]}")
    printf '  %-34s %6d ms  %5sx floor  paired %5sx  [%s ]  (%d lines of source)\n' \
        "${labels[$variant]}" "$ms" "$(awk -v m="$ms" -v f="$floor_ms" 'BEGIN { printf "%.2f", m / f }')" \
        "$(paired_ratio "${times[$variant]}")" "${times[$variant]}" "$(wc -l < "$variant/src/lib.rs")"
done
echo
echo "CPU time (user + system) of the same builds, median, and paired with the floor's:"
floor_cpu=$(median "${cpu[floor]}")
for variant in "${variants[@]}"; do
    ms=$(median "${cpu[$variant]}")
    printf '  %-34s %6d ms  %5sx floor  paired %5sx  [%s ]\n' \
        "${labels[$variant]}" "$ms" "$(awk -v m="$ms" -v f="$floor_cpu" 'BEGIN { printf "%.2f", m / f }')" \
        "$(paired_ratio "${cpu[$variant]}" "${cpu[floor]}")" "${cpu[$variant]}"
done
echo "  goal: #[phi_tool] fns at most 1.20x the floor, #[tool] methods at most 1.30x"
macro_ms=$(median "${times[macro]}")
methods_ms=$(median "${times[methods]}")
echo "  #[tool] methods / #[phi_tool] fns: $(awk -v m="$methods_ms" -v f="$macro_ms" 'BEGIN { printf "%.2f", m / f }')"

# With INSTRUCTIONS=1: the instructions each variant's compiler run executes, counted once by
# valgrind (callgrind; about a minute per variant). A count does not move with the machine's load,
# so it decides what wall and CPU times on a shared machine cannot. The compiler is run as cargo
# runs it (`cargo build -v` prints the command with its environment).
if [[ ${INSTRUCTIONS:-0} == 1 ]]; then
    echo
    echo "Instructions of the compiler run (callgrind, one run each):"
    declare -A instructions
    for variant in "${variants[@]}"; do
        touch "$variant/src/lib.rs"
        if [[ $variant == baseline ]]; then
            command=$(CARGO_TARGET_DIR="$work/target-baseline" cargo build --offline -v --manifest-path baseline/Cargo.toml 2>&1 |
                sed -n 's/^ *Running `\(.*--crate-name baseline .*\)`$/\1/p')
        else
            command=$(cargo build --offline -v -p "$variant" 2>&1 | sed -n "s/^ *Running \`\\(.*--crate-name $variant .*\\)\`\$/\\1/p")
        fi
        out="$work/callgrind-$variant.out"
        dir=$work
        [[ $variant == baseline ]] && dir=$work/baseline
        # `cargo build -v` leaves out the package's environment, which `env!` in the expansion reads.
        (cd "$dir" && CARGO_PKG_NAME=$variant CARGO_PKG_VERSION=0.1.0 CARGO_MANIFEST_DIR="$work/$variant" \
            CARGO_CRATE_NAME=$variant eval "valgrind --tool=callgrind --callgrind-out-file=$out $command" \
            >"$out.log" 2>&1) || { echo "the compiler failed for $variant: see $out.log" >&2; exit 1; }
        instructions[$variant]=$(sed -n 's/^summary: //p' "$out")
    done
    for variant in "${variants[@]}"; do
        printf '  %-34s %14d  %5sx floor\n' "${labels[$variant]}" "${instructions[$variant]}" \
            "$(awk -v m="${instructions[$variant]}" -v f="${instructions[floor]}" 'BEGIN { printf "%.3f", m / f }')"
    done
fi
