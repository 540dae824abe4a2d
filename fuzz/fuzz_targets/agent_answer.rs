//! A Claude Code / Gemini CLI / Codex hook's answer, read as that agent reads it: a command
//! hook's exit code, stdout and stderr ([`read_command`]) and an HTTP hook's body
//! ([`read_http_body`]). Byte 0 picks the agent and the context, byte 1 the event, byte 2 the
//! exit code; the rest is stdout, then stderr after the first NUL.
#![cfg_attr(fuzzing, no_main)]

use hook_agents::{CommandRun, read_command, read_http_body};

fn fuzz(data: &[u8]) {
    let [a, e, x, rest @ ..] = data else { return };
    let agent = hookwire_fuzz::agent(*a);
    let event = hookwire_fuzz::event(*e);
    let context = hookwire_fuzz::context(*a);
    let exit_code = match x % 6 {
        0 => Some(0),
        1 => Some(1),
        2 => Some(2),
        3 => None,
        4 => Some(-1),
        _ => Some(i32::from(*x)),
    };
    let (stdout, stderr) = match rest.iter().position(|b| *b == 0) {
        Some(nul) => (hookwire_fuzz::text(&rest[..nul]), hookwire_fuzz::text(&rest[nul + 1..])),
        None => (hookwire_fuzz::text(rest), String::new()),
    };
    let _ = read_command(agent, event, CommandRun { exit_code, stdout: &stdout, stderr: &stderr }, &context);
    let _ = read_http_body(agent, event, &stdout, &context);
}

hookwire_fuzz::target!(fuzz);
