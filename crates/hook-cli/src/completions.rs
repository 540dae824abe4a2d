//! `hookwire completions bash|zsh|fish` and `hookwire man`: generated from the clap
//! definitions, so they never drift from the real flags.

use clap::{Args, CommandFactory as _, ValueEnum};

/// The shells `completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    shell: Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Only this subcommand's page (`hookwire-chat(1)`, ...).
    subcommand: Option<String>,
}

pub(crate) fn completions(args: &CompletionsArgs) -> u8 {
    let mut command = crate::Cli::command();
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "hookwire", &mut out);
    write_out(&out)
}

pub(crate) fn man(args: &ManArgs) -> u8 {
    let mut command = crate::Cli::command();
    command.build();
    let page = match &args.subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => {
                let sub_name: &'static str = Box::leak(format!("hookwire-{}", sub.get_name()).into_boxed_str());
                sub.clone().name(sub_name)
            }
            None => {
                let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
                eprintln!("error: no subcommand `{name}`; the subcommands are: {}", names.join(", "));
                return 2;
            }
        },
    };
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        eprintln!("error: cannot render the manual page: {e}");
        return 1;
    }
    write_out(&out)
}

fn write_out(bytes: &[u8]) -> u8 {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = stdout.write_all(bytes);
    let _ = stdout.flush();
    0
}
