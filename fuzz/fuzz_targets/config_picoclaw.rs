//! PicoClaw's configuration ([`PicoClawConfig`]: its `hooks` section), as YAML and as JSON.
//! Round trip: a config read from JSON, written and read back, is the same.
#![cfg_attr(fuzzing, no_main)]

use hook_config::{parse_json, parse_yaml};
use hook_protocol::config::PicoClawConfig;

fn fuzz(data: &[u8]) {
    let text = hookwire_fuzz::text(data);
    let _ = parse_yaml::<PicoClawConfig>(&text);
    if let Ok(config) = parse_json::<PicoClawConfig>(&text) {
        hookwire_fuzz::assert_json_round_trip(&config, parse_json::<PicoClawConfig>, |_| {});
    }
}

hookwire_fuzz::target!(fuzz);
