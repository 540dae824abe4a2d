//! What a Claude Code / Gemini CLI / Codex hook reads on stdin, as `hookwire hook <agent>` reads
//! it: [`context_from_input`] (byte 0 picks the agent). Property: the input hookwire writes back
//! for that event and context ([`hook_input`], [`input_line`]) is one line of valid JSON.
#![cfg_attr(fuzzing, no_main)]

use hook_agents::{context_from_input, hook_input, input_line};
use hook_protocol::serde_json::{self, Value};

fn fuzz(data: &[u8]) {
    let (choice, text) = hookwire_fuzz::split_choice(data);
    let agent = hookwire_fuzz::agent(choice);
    let Ok(input) = serde_json::from_str::<Value>(&text) else { return };
    let Ok((event, context)) = context_from_input(agent, input) else { return };
    let line = input_line(&hook_input(agent, event, &context));
    let Some(body) = line.strip_suffix(b"\n") else { panic!("the input line does not end with a newline") };
    assert!(!body.contains(&b'\n'), "the input line holds a second newline");
    if let Err(e) = serde_json::from_slice::<Value>(body) {
        panic!("the input line is not JSON: {e}\n{}", String::from_utf8_lossy(&line));
    }
}

hookwire_fuzz::target!(fuzz);
