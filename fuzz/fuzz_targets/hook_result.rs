//! What a j-cli bash or llm hook prints: [`HookResult`] read as hookwire reads it, then turned
//! into the engine's [`HookOutput`] for an event (first byte) with an empty or a full context.
//! Round trip: a result read, written and read back is the same (but for `unknown_fields`,
//! which are never written).
#![cfg_attr(fuzzing, no_main)]

use hook_core::HookOutput;
use hook_protocol::{HookResult, from_json_str};

fn fuzz(data: &[u8]) {
    let (choice, text) = hookwire_fuzz::split_choice(data);
    let Ok(result) = from_json_str::<HookResult>(&text) else { return };
    hookwire_fuzz::assert_json_round_trip(&result, from_json_str::<HookResult>, |r| r.unknown_fields.clear());
    let context = hookwire_fuzz::context(choice);
    let _ = HookOutput::from_hook_result(result, hookwire_fuzz::event(choice), &context);
}

hookwire_fuzz::target!(fuzz);
