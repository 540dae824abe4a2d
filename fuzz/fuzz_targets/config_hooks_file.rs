//! j-cli's event-keyed `hooks.yaml` / `hooks.json` ([`HooksFile`]) and a hook directory's
//! `HOOK.yaml` ([`HookDef`]), through the loader's own parse entry points. Round trip: a
//! `HooksFile` read from JSON, written and read back, is the same.
#![cfg_attr(fuzzing, no_main)]

use hook_config::{parse_json, parse_yaml};
use hook_protocol::config::{HookDef, HooksFile};

fn fuzz(data: &[u8]) {
    let text = hookwire_fuzz::text(data);
    let _ = parse_yaml::<HooksFile>(&text);
    let _ = parse_yaml::<HookDef>(&text);
    let _ = parse_json::<HookDef>(&text);
    if let Ok(file) = parse_json::<HooksFile>(&text) {
        hookwire_fuzz::assert_json_round_trip(&file, parse_json::<HooksFile>, |_| {});
    }
}

hookwire_fuzz::target!(fuzz);
