//! Inputs of up to 1 MB built to break a shell parser (deep nesting, 100k pipes, unterminated
//! quotes and here-documents) must come back, in bounded time, as commands or an error:
//! never a panic, a stack overflow or a hang. Each runs on a thread with a small stack (as an
//! async runtime's worker has), so a parse that recursed on the caller's stack would abort the
//! test process.

use std::{
    path::Path,
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use hook_shell::{ShellError, Vars, analyze_shell, invocations};

const MB: usize = 1 << 20;

/// `unit` repeated up to 1 MB, between `head` and `tail` repeated as often.
fn repeated(head: &str, unit: &str, tail: &str) -> String {
    let n = MB / (head.len() + unit.len() + tail.len()).max(1);
    format!("{}{}{}", head.repeat(n), unit, tail.repeat(n))
}

fn cases() -> Vec<(&'static str, String)> {
    vec![
        ("nested $( )", repeated("$(", "x", ")")),
        ("nested \"$( )\"", repeated("\"$(", "x", ")\"")),
        ("nested backquotes", repeated("`", "x", "`")),
        ("nested subshells", repeated("(", "x", ")")),
        ("nested braces", repeated("{ ", "x", "; }")),
        ("nested ifs", repeated("if x; then ", "x", "; fi")),
        ("nested ${ }", repeated("${x:-", "x", "}")),
        ("nested [[ ]]", format!("[[ {} x {} ]]", "( ".repeat(MB / 4), ") ".repeat(MB / 4))),
        ("100k pipes", format!("{}true", "true | ".repeat(100_000))),
        ("100k and-lists", format!("{}true", "true && ".repeat(100_000))),
        ("100k commands", "rm -rf x;\n".repeat(100_000)),
        ("unterminated single quote", format!("echo '{}", "a".repeat(MB))),
        ("unterminated double quote", format!("echo \"{}", "$x ".repeat(MB / 3))),
        ("unterminated $(", format!("echo $({}", "a ".repeat(MB / 2))),
        ("unterminated here-document", format!("bash <<EOF\n{}", "rm -rf ~\n".repeat(MB / 9))),
        ("100k here-documents", "cat <<EOF\n".repeat(100_000)),
        ("hidden openers in $'...'", format!("bash -c $'{}'", "\\x28".repeat(MB / 4))),
        ("100k sh -c", repeated("sh -c ", "x", "")),
        ("1 MB word", "a".repeat(MB)),
        ("1 MB of operators", ";&|<>()".repeat(MB / 7)),
    ]
}

/// Runs `work` on a 2 MB thread and waits a generous bound for it.
fn bounded<T: Send + 'static>(name: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    let started = Instant::now();
    thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let _ = send.send(work());
        })
        .expect("a thread starts");
    match receive.recv_timeout(Duration::from_secs(120)) {
        Ok(result) => result,
        Err(_) => panic!("{name}: no answer after {:?}", started.elapsed()),
    }
}

#[test]
fn one_megabyte_adversarial_inputs_end_without_a_panic() {
    for (name, text) in cases() {
        let started = Instant::now();
        assert!(text.len() <= MB + 64, "{name}: {} bytes", text.len());
        let copy = text.clone();
        let result = bounded(name, move || invocations(&copy));
        match &result {
            Ok(runs) => assert!(!runs.is_empty(), "{name}: read as running nothing"),
            Err(error) => assert!(
                matches!(error, ShellError::Unclosed | ShellError::TooDeep | ShellError::Syntax),
                "{name}: {error}"
            ),
        }
        if name.starts_with("unterminated") {
            assert!(result.is_err(), "{name}: read as {} commands", result.map(|r| r.len()).unwrap_or_default());
        }
        let analysis = bounded(name, move || {
            let mut vars = Vars::default();
            vars.set("HOME", "/home/u");
            analyze_shell(&text, Path::new("/p"), &vars, Some(Path::new("/home/u")))
        });
        if result.is_err() {
            assert!(!analysis.undetermined.is_empty(), "{name}: an unreadable command is determined");
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{name}: {:?}", started.elapsed());
    }
}

#[test]
fn nesting_just_under_the_bound_parses_on_a_small_caller_stack() {
    // Below the bound the text is parsed (on a thread of the parser's own), not refused.
    for (name, text) in [
        ("2000 braces", format!("{}rm -rf x{}", "{ ".repeat(2000), "; }".repeat(2000))),
        ("1000 ifs", format!("{}rm -rf x{}", "if true; then ".repeat(1000), "; fi".repeat(1000))),
        // `((` would open an arithmetic command, as in bash.
        ("2000 subshells", format!("{}rm -rf x{}", "(\n".repeat(2000), "\n)".repeat(2000))),
    ] {
        let runs = bounded(name, move || invocations(&text));
        let runs = runs.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(runs.iter().any(|run| run.words == ["rm", "-rf", "x"]), "{name}: {runs:?}");
    }
}
