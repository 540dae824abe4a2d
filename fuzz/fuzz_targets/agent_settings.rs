//! A Claude Code / Gemini CLI / Codex settings file ([`AgentSettings`]: the members about
//! hooks). Round trip: settings read, written and read back are the same.
#![cfg_attr(fuzzing, no_main)]

use hook_protocol::{agent_config::AgentSettings, from_json_str};

fn fuzz(data: &[u8]) {
    let text = hookwire_fuzz::text(data);
    if let Ok(settings) = from_json_str::<AgentSettings>(&text) {
        hookwire_fuzz::assert_json_round_trip(&settings, from_json_str::<AgentSettings>, |_| {});
    }
}

hookwire_fuzz::target!(fuzz);
