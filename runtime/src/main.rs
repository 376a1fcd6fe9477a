//! `abgen-host`: serves a plugin's MCP servers and answers hooks at run time.

fn main() {
    #[expect(clippy::print_stderr, reason = "the skeleton binary has no printer yet")]
    {
        eprintln!("abgen-host: no command is implemented yet");
    }
    std::process::exit(2);
}
