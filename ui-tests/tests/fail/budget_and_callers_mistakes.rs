use phi_agent::phi_tool;

/// Read a file.
#[phi_tool(max_result = "8 kib", callers = "model")]
fn read_file(path: String) -> String {
    path
}

/// Read a directory.
#[phi_tool(max_result = 0, callers = code)]
fn read_dir(path: String) -> String {
    path
}

fn main() {}
