//! The `abgen` command.

fn main() {
    std::process::exit(2);
}
