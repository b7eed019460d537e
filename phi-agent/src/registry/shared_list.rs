//! One tool list shared by every session that sees exactly the Direct tools, and the rule every
//! cache of a tool list follows.
//!
//! # The reuse rule
//!
//! A tool list (`Arc<[ToolSpec]>`) is the same list exactly when it is the same allocation
//! (`Arc::ptr_eq`), never by comparing its specs. So:
//! - whoever hands out lists (this registry, and whatever extends one: the live tools appended
//!   in `live`, the final-answer tool the agent appends) hands out the *same* `Arc` for as long
//!   as the list is unchanged, and a new one whenever it changes;
//! - whoever derives something from a list (an adapter's serialized tools, an extended list)
//!   keys it on the list's pointer and holds that `Arc` beside it, so that the pointer cannot be
//!   freed and reused by another list while the key is kept.
//!
//! Each cache then costs one pointer comparison per turn, and a derived value is computed once
//! per distinct list. The caches that follow the rule point here rather than restating it.
//!
//! # The Direct list
//!
//! If each new session built its own list, every session's first turn would serialize all tools
//! again (and sessions running side by side would evict each other's bytes). Sessions start with
//! the Direct tools, and most never activate anything else, so the registry builds that one list
//! once and hands the same `Arc` to all of them.

use std::sync::Arc;

use super::activation::ActiveTools;
use super::registered::RegisteredTool;
use super::spec::ToolSpec;
use super::tool_registry::ToolRegistry;
use crate::tool::ToolExposure;

impl ToolRegistry {
    /// The specs of the tools active in `set`, in registration order. A set of exactly the Direct
    /// tools gets the registry's shared list (see the module docs).
    pub(crate) fn tool_specs(&self, set: &ActiveTools) -> Arc<[ToolSpec]> {
        if !set.found().is_empty() {
            return self.tool_specs_with(set, None);
        }
        // Direct tools are always active, so a set showing only Direct tools shows all of them.
        let only_direct = self
            .visible(set)
            .all(|tool| tool.exposure == ToolExposure::Direct);
        if only_direct {
            return self
                .direct_list
                .0
                .get_or_init(|| self.offered(set).map(|tool| tool.spec()).collect())
                .clone();
        }
        self.offered(set).map(|tool| tool.spec()).collect()
    }

    /// The specs of the tools active in `set`: those not revealed by a search in registration
    /// order, then `extra` (the search tool), then the revealed ones in the order they were
    /// found. Each revealed tool is appended, so every earlier entry stays where it was.
    pub(crate) fn tool_specs_with(
        &self,
        set: &ActiveTools,
        extra: Option<&ToolSpec>,
    ) -> Arc<[ToolSpec]> {
        let revealed = |index: usize| set.found().contains(&index);
        self.tools
            .iter()
            .enumerate()
            .filter(|(index, tool)| set.is_active(*index) && !revealed(*index) && self.offers(tool))
            .map(|(_, tool)| tool.spec())
            .chain(extra.cloned())
            .chain(self.found_offered(set).map(RegisteredTool::spec))
            .collect()
    }

    /// The tools a search revealed in `set` that the model is offered, in the order found.
    pub(crate) fn found_offered<'a>(
        &'a self,
        set: &'a ActiveTools,
    ) -> impl Iterator<Item = &'a RegisteredTool> + 'a {
        set.found()
            .iter()
            .map(|&index| &self.tools[index])
            .filter(|tool| self.offers(tool))
    }

    /// The active tools of `set` the model is offered ([`offers`](Self::offers)), in
    /// registration order.
    fn offered<'a>(
        &'a self,
        set: &'a ActiveTools,
    ) -> impl Iterator<Item = &'a RegisteredTool> + 'a {
        self.visible(set).filter(|tool| self.offers(tool))
    }

    /// The specs of the discoverable tools of `set`, revealed ones included, in registration
    /// order: what a provider's own tool search may find.
    pub(crate) fn discoverable_specs(&self, set: &ActiveTools) -> Arc<[ToolSpec]> {
        self.tools
            .iter()
            .enumerate()
            .filter(|(index, tool)| set.is_discoverable(*index) && self.offers(tool))
            .map(|(_, tool)| tool.spec())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ActivationContext;

    use crate::registry::test_tool::Named;

    fn names(list: &[ToolSpec]) -> Vec<&str> {
        list.iter().map(|spec| spec.name).collect()
    }

    #[test]
    fn sessions_showing_the_direct_tools_share_one_list() {
        let mut registry = ToolRegistry::default();
        registry.register(Named("a", ToolExposure::Direct)).unwrap();
        registry
            .register(Named("later", ToolExposure::Deferred))
            .unwrap();
        registry
            .register(Named("secret", ToolExposure::Hidden))
            .unwrap();
        let context = ActivationContext::default();
        let first = registry.tool_specs(&registry.active_tools(&context));
        let second = registry.tool_specs(&registry.active_tools(&context));
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(names(&first), ["a"]);

        let with_deferred = ActivationContext {
            current_tools: vec!["later".into()],
            ..ActivationContext::default()
        };
        let own = registry.tool_specs(&registry.active_tools(&with_deferred));
        assert_eq!(names(&own), ["a", "later"]);

        registry.register(Named("b", ToolExposure::Direct)).unwrap();
        let after = registry.tool_specs(&registry.active_tools(&context));
        assert_eq!(
            names(&after),
            ["a", "b"],
            "a new tool empties the shared list"
        );
    }

    #[tokio::test]
    async fn discovered_tools_wait_to_be_revealed_and_come_last_in_the_order_found() {
        let mut registry = ToolRegistry::default();
        registry
            .register(Named("x", ToolExposure::Deferred))
            .unwrap();
        registry.register(Named("a", ToolExposure::Direct)).unwrap();
        registry
            .register(Named("y", ToolExposure::Deferred))
            .unwrap();
        registry.register(Named("h", ToolExposure::Hidden)).unwrap();
        let mut set = registry.active_tools(&ActivationContext::default());
        set.start_discovery();
        assert!(registry.activate(&mut set).await.is_empty());
        assert_eq!(set.discoverable_count(), 2);
        assert!(set.is_discoverable(0) && !set.is_active(0));
        assert!(
            !set.is_discoverable(3),
            "hidden tools are never discoverable"
        );

        let extra = ToolSpec::new("search", "", json!({"type": "object"}));
        let generation = set.generation();
        assert_eq!(registry.reveal(&mut set, [2, 3]), ["y"]);
        assert_eq!(registry.reveal(&mut set, [0, 2]), ["x"]);
        assert!(set.generation() > generation);
        assert_eq!(
            names(&registry.tool_specs_with(&set, Some(&extra))),
            ["a", "search", "y", "x"]
        );
        assert_eq!(names(&registry.tool_specs(&set)), ["a", "y", "x"]);
        assert_eq!(
            set.names(),
            ["x", "a", "y"],
            "names stay in registration order"
        );

        let mut undecided = registry.active_tools(&ActivationContext::default());
        undecided.start_discovery();
        registry.activate(&mut undecided).await;
        assert_eq!(registry.end_discovery(&mut undecided).await, ["x", "y"]);
        assert!(!undecided.is_discovering());
        assert_eq!(names(&registry.tool_specs(&undecided)), ["x", "a", "y"]);
    }
}
