//! What the two Rust servers of the serving benchmark share: their command line.

use std::net::SocketAddr;
use std::time::Duration;

/// How a server is run: `--bind ADDR` (default 127.0.0.1:8808), `--stateless`,
/// `--idle-secs N` (sessions idle this long expire; phi-agent only), `--max-sessions N`
/// (phi-agent only).
pub struct Options {
    /// Where to listen.
    pub bind: SocketAddr,
    /// Serve without sessions (plain JSON answers).
    pub stateless: bool,
    /// How long an idle session lives.
    pub idle: Duration,
    /// How many sessions may be live at once.
    pub max_sessions: usize,
}

impl Options {
    /// Reads the process's arguments; exits with a usage line on a bad one.
    pub fn from_args() -> Self {
        let mut options = Options {
            bind: "127.0.0.1:8808".parse().expect("a valid default address"),
            stateless: false,
            idle: Duration::from_secs(1800),
            max_sessions: 100_000,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
            };
            match arg.as_str() {
                "--bind" => {
                    options.bind = value()
                        .parse()
                        .unwrap_or_else(|_| usage("--bind ADDR:PORT"))
                }
                "--stateless" => options.stateless = true,
                "--idle-secs" => {
                    let secs = value().parse().unwrap_or_else(|_| usage("--idle-secs N"));
                    options.idle = Duration::from_secs(secs);
                }
                "--max-sessions" => {
                    options.max_sessions = value()
                        .parse()
                        .unwrap_or_else(|_| usage("--max-sessions N"))
                }
                other => usage(&format!("unknown argument {other}")),
            }
        }
        options
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "{problem}\nusage: SERVER [--bind 127.0.0.1:8808] [--stateless] [--idle-secs N] [--max-sessions N]"
    );
    std::process::exit(2)
}
