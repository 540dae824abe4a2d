//! The packs compiled into hookwire: YAML rules files embedded in the binary, read once.

use std::sync::OnceLock;

use hook_protocol::rules::{PackName, Rule, RulesFile};

/// The text of each pack, as shipped (`crates/hook-rules/packs/*.yaml`).
pub fn source(pack: PackName) -> &'static str {
    match pack {
        PackName::Filesystem => include_str!("../packs/filesystem.yaml"),
        PackName::Git => include_str!("../packs/git.yaml"),
        PackName::Secrets => include_str!("../packs/secrets.yaml"),
        PackName::RemoteCode => include_str!("../packs/remote-code.yaml"),
        PackName::Persistence => include_str!("../packs/persistence.yaml"),
        PackName::Databases => include_str!("../packs/databases.yaml"),
        PackName::Cloud => include_str!("../packs/cloud.yaml"),
        PackName::Containers => include_str!("../packs/containers.yaml"),
        PackName::Recommended => "packs: []\n",
    }
}

/// The rules of one pack (none for `recommended`, which only names the others).
pub fn rules(pack: PackName) -> &'static [Rule] {
    static PARSED: OnceLock<Vec<Vec<Rule>>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        PackName::ALL
            .iter()
            .map(|pack| {
                // The packs are tested to parse (tests/packs.rs); a broken one would be a
                // build defect, never a user's mistake.
                serde_saphyr::from_str::<RulesFile>(source(*pack))
                    .unwrap_or_else(|e| panic!("pack `{pack}` does not parse: {e}"))
                    .rules
            })
            .collect()
    });
    let index = PackName::ALL.iter().position(|p| *p == pack).unwrap_or_default();
    &parsed[index]
}

/// The packs `packs` stands for, each once: `recommended` is every pack.
pub fn expand(packs: &[PackName]) -> Vec<PackName> {
    let mut out = Vec::new();
    for pack in packs {
        let members: &[PackName] =
            if *pack == PackName::Recommended { &PackName::ALL[..8] } else { std::slice::from_ref(pack) };
        for member in members {
            if !out.contains(member) {
                out.push(*member);
            }
        }
    }
    out
}
