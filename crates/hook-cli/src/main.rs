//! The `hookwire` command: check a hook configuration, fire one event through it, run an agent with hooks.

use clap::Parser;

/// hookwire: a lifecycle hook engine for AI agents, running PicoClaw process hooks and j-cli
/// command hooks unmodified.
#[derive(Debug, Parser)]
#[command(name = "hookwire", version, about, long_about = None)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
}
