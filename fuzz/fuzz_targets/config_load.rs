//! The whole configuration loader, [`hook_config::load`], on one file written to a
//! temporary folder: the first byte picks the file's place (and so its dialect), the rest is the
//! file. Validation, name checks and agent-settings conversion run as in `hookwire check`.
#![cfg_attr(fuzzing, no_main)]

use std::{path::PathBuf, sync::OnceLock};

use hook_core::{Deadlines, Level};
use hook_config::{self as config, ConfigSource};
use hook_protocol::Agent;

/// Where the file goes, relative to the temporary folder, and the agent it is read for.
const PLACES: [(&str, Option<Agent>); 9] = [
    ("hooks.yaml", None),
    ("hooks.json", None),
    ("hooks/guard/HOOK.yaml", None),
    ("picoclaw.json", None),
    ("picoclaw.yaml", None),
    (".claude/settings.json", Some(Agent::Claude)),
    (".gemini/settings.json", Some(Agent::Gemini)),
    (".codex/hooks.json", Some(Agent::Codex)),
    (".github/hooks/guard.json", Some(Agent::Copilot)),
];

/// A folder of this process's own, made once, with the parent folders of every place.
fn folder() -> &'static PathBuf {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let dir = hookwire_fuzz::scratch_dir("config-load");
        for (place, _) in PLACES {
            if let Some(parent) = dir.join(place).parent() {
                std::fs::create_dir_all(parent).expect("make the temporary folder");
            }
        }
        dir
    })
}

fn fuzz(data: &[u8]) {
    let (choice, body) = data.split_first().map_or((0, &[][..]), |(c, rest)| (*c, rest));
    let (place, agent) = PLACES[usize::from(choice) % PLACES.len()];
    let path = folder().join(place);
    std::fs::write(&path, body).expect("write the config file");
    let source = match agent {
        Some(agent) => ConfigSource::agent(&path, Level::User, agent),
        None => ConfigSource::new(&path, Level::User),
    };
    let _ = config::load(&[source], Deadlines::default(), None);
}

hookwire_fuzz::target!(fuzz);
