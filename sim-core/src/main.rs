//! The `simcore` command.
fn main() {}
