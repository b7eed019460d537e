fn tools() {
    let _ = {
        use ::phi_agent::__private::duplicate_name as __phi_duplicate_name;
        const __PHI_NAMES: &[&str; 2usize] = &[
            ::phi_agent::__private::tool_fn_name(&GetWeather),
            ::phi_agent::__private::tool_fn_name(&weather::Forecast),
        ];
        const __PHI_LABELS: &[&str] = &["get_weather", "weather::forecast"];
        const __PHI_EARLIER: [usize; 2usize] = ::phi_agent::__private::earlier_duplicates::<
            2usize,
            4usize,
        >(__PHI_NAMES);
        const _: () = if let ::core::option::Option::Some(message) = &__phi_duplicate_name(
            __PHI_NAMES,
            __PHI_LABELS,
            &__PHI_EARLIER,
            1usize,
        ) {
            ::core::panic!("{}", message.as_str())
        };
        let __phi_tools: ::std::vec::Vec<::std::sync::Arc<dyn ::phi_agent::Tool>> = ::std::vec![
            ::phi_agent::__private::IntoTypedTool::into_typed_tool(GetWeather),
            ::phi_agent::__private::IntoTypedTool::into_typed_tool(weather::Forecast),
            ::phi_agent::__private::into_tool(Clock::new())
        ];
        __phi_tools
    };
}
