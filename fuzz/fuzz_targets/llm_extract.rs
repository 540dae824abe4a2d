//! A model's reply to an llm hook, searched for the [`HookResult`] JSON in it
//! ([`extract_hook_result`]: fenced blocks, bare objects, prose around them). Property: a result
//! written as JSON alone is extracted as itself (floats aside).
#![cfg_attr(fuzzing, no_main)]

use hook_llm::extract_hook_result;
use hook_protocol::HookResult;

fn fuzz(data: &[u8]) {
    let text = hookwire_fuzz::text(data);
    let Ok(result) = extract_hook_result(&text) else { return };
    hookwire_fuzz::assert_json_round_trip(&result, extract_hook_result, |r: &mut HookResult| r.unknown_fields.clear());
}

hookwire_fuzz::target!(fuzz);
