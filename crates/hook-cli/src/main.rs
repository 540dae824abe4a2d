//! The `hookwire` command.
fn main() {}
