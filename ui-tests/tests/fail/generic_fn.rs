use phi_agent::phi_tool;

/// Echo the value.
#[phi_tool]
async fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
