//! hook-shell, the one shell parser: [`invocations`] (the commands rules and Claude Code's `if`
//! rules compare), [`analyze_shell`] and [`analyze_argv`] (the files trust covers) on the
//! input as a command line. Besides not panicking: a text [`invocations`] cannot read is never
//! read by trust as running nothing (it is undetermined there).
#![cfg_attr(fuzzing, no_main)]

use std::path::Path;

use hook_shell::{Vars, analyze_argv, analyze_shell, invocations};

fn fuzz(data: &[u8]) {
    let text = hookwire_fuzz::text(data);
    let mut vars = Vars::default();
    vars.set("CLAUDE_PROJECT_DIR", "/p");
    let home = Some(Path::new("/home/u"));
    let runs = invocations(&text);
    let analysis = analyze_shell(&text, Path::new("/p"), &vars, home);
    if runs.is_err() {
        assert!(!analysis.undetermined.is_empty(), "{text:?} cannot be read but trust found it determined");
    }
    let argv = ["sh".to_owned(), "-c".to_owned(), text.clone()];
    let _ = analyze_argv(&argv, Path::new("/p"), &vars, home);
}

hookwire_fuzz::target!(fuzz);
