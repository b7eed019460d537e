//! Snapshots of the code `#[phi_tool]` generates, so that every change to it shows in review.
//!
//! Update with `UPDATE_EXPECT=1 cargo test -p phi-agent-macros`, then read the diff.

use expect_test::expect_file;
use proc_macro2::TokenStream;
use quote::quote;

fn expand(attr: TokenStream, item: TokenStream) -> String {
    let tokens = super::expand(attr, item);
    let file: syn::File = syn::parse2(tokens).expect("the expansion is a valid file");
    prettyplease::unparse(&file)
}

#[test]
fn deferred_async_tool_with_context_and_defaults() {
    let expanded = expand(
        quote!(
            timeout = 30_000,
            exposure = "deferred",
            requires_tools = ["file_read"]
        ),
        quote! {
            /// Get current weather for a city.
            ///
            /// Answers in one line.
            pub async fn get_weather(
                /// City name, e.g. "Beijing"
                city: String,
                /// Days ahead
                #[phi(default = 3)]
                days: u8,
                units: Option<Units>,
                ctx: &ToolContext,
            ) -> AgentResult<String> {
                Ok(format!("{city} {days} {units:?} {}", ctx.session_id()))
            }
        },
    );
    expect_file!["snapshots/get_weather.expanded.rs"].assert_eq(&expanded);
}

#[test]
fn blocking_tool_with_result_name_and_annotations() {
    let expanded = expand(
        quote!(
            name = "calculator",
            read_only,
            idempotent = true,
            exposure = "hidden"
        ),
        quote! {
            /// Apply an operator to two numbers.
            fn calculate(
                a: f64,
                #[phi(rename = "operator")]
                #[serde(alias = "op")]
                op: String,
                b: f64,
            ) -> Result<Calculation, String> {
                apply(a, &op, b)
            }
        },
    );
    expect_file!["snapshots/calculate.expanded.rs"].assert_eq(&expanded);
}

#[test]
fn activation_predicate_crate_path_and_metadata() {
    let expanded = expand(
        quote!(
            crate = ::agent_base,
            exposure = "deferred",
            activate_when = in_git_repo,
            origin = "git-tools",
            version = "1.2.0",
            requirements = ["git"],
        ),
        quote! {
            /// Show the latest commits.
            pub(crate) async fn git_log(#[phi(default)] limit: u32) -> Vec<Content> {
                vec![Content::text(format!("{limit} commits"))]
            }
        },
    );
    expect_file!["snapshots/git_log.expanded.rs"].assert_eq(&expanded);
}

#[test]
fn approval_predicate_and_approval_flag() {
    let predicate = expand(
        quote!(needs_approval = outside_workspace, destructive),
        quote! {
            /// Delete a file.
            pub async fn delete_file(path: String) -> String {
                path
            }
        },
    );
    let flag = expand(
        quote!(needs_approval),
        quote! {
            /// Empty the trash.
            fn empty_trash() -> &'static str {
                "emptied"
            }
        },
    );
    expect_file!["snapshots/delete_file.expanded.rs"].assert_eq(&format!(
        "{predicate}\n// ---- needs_approval (flag)\n\n{flag}"
    ));
}

#[test]
fn on_error_the_fn_and_a_stand_in_are_still_emitted() {
    let expanded = expand(
        quote!(exposure = "visible"),
        quote! {
            async fn lookup(
                /// The name
                name: &str,
            ) -> String {
                name.to_string()
            }
        },
    );
    expect_file!["snapshots/lookup_with_errors.expanded.rs"].assert_eq(&expanded);
}

#[test]
fn tools_list() {
    let tokens = crate::tools_list::expand(
        quote!(::phi_agent; get_weather, weather::forecast, Clock::new()),
    );
    let file: syn::File = syn::parse2(quote!(fn tools() { let _ = #tokens; }))
        .expect("the expansion is a valid expression");
    expect_file!["snapshots/tools_list.expanded.rs"].assert_eq(&prettyplease::unparse(&file));
}

/// A method tool goes through the same generator: only the tool type (holding the receiver),
/// the call and the impl's generics differ from a fn tool's expansion.
#[test]
fn generic_impl_with_method_tools() {
    let tokens = crate::methods::expand(
        quote!(),
        quote! {
            impl<B: Backend> Store<B> {
                /// Look a key up.
                #[tool(read_only)]
                pub async fn lookup(&self, key: String, ctx: &ToolContext) -> AgentResult<Option<String>> {
                    Ok(self.backend.get(&key))
                }

                /// Hand the store to a task.
                #[tool(name = "store_share")]
                async fn share(self: Arc<Self>) -> String {
                    String::new()
                }

                fn helper(&self) {}
            }
        },
    );
    let file: syn::File = syn::parse2(tokens).expect("the expansion is a valid file");
    expect_file!["snapshots/store_methods.expanded.rs"].assert_eq(&prettyplease::unparse(&file));
}
