use phi_agent::tools;

struct NotATool;

fn main() {
    let _ = tools![NotATool];
}
