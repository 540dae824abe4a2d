//! The packs compiled into hookwire: YAML rules files embedded in the binary (as JSON made
//! from them at build time), read once.

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

/// The same text as JSON, made from the YAML at build time (build.rs): what a fresh process
/// parses, eight times faster than the YAML.
fn compiled(pack: PackName) -> &'static str {
    macro_rules! json {
        ($name:literal) => {
            include_str!(concat!(env!("OUT_DIR"), "/packs/", $name, ".json"))
        };
    }
    match pack {
        PackName::Filesystem => json!("filesystem"),
        PackName::Git => json!("git"),
        PackName::Secrets => json!("secrets"),
        PackName::RemoteCode => json!("remote-code"),
        PackName::Persistence => json!("persistence"),
        PackName::Databases => json!("databases"),
        PackName::Cloud => json!("cloud"),
        PackName::Containers => json!("containers"),
        PackName::Recommended => r#"{"packs":[]}"#,
    }
}

/// Parses one pack as the binary embeds it, every time (what [`rules`] does once per process;
/// benchmarks time it).
pub fn parse(pack: PackName) -> Result<RulesFile, serde_json::Error> {
    serde_json::from_str(compiled(pack))
}

/// The rules of one pack (none for `recommended`, which only names the others).
pub fn rules(pack: PackName) -> &'static [Rule] {
    static PARSED: OnceLock<Vec<Vec<Rule>>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        PackName::ALL
            .iter()
            .map(|pack| {
                // The packs are tested to parse (tests/packs.rs, and `the_json_is_the_yaml`
                // below); a broken one would be a build defect, never a user's mistake.
                parse(*pack).unwrap_or_else(|e| panic!("pack `{pack}` does not parse: {e}")).rules
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON the binary reads holds exactly the rules of the YAML people edit: a scalar
    /// YAML reads differently from JSON (`yes`, `1`, `~`) would show here.
    #[test]
    fn the_json_is_the_yaml() {
        for pack in PackName::ALL {
            let yaml: RulesFile = serde_saphyr::from_str(source(pack)).expect("the YAML parses");
            let json: RulesFile = serde_json::from_str(compiled(pack)).expect("the JSON parses");
            assert_eq!(json, yaml, "pack `{pack}`");
            assert_eq!(rules(pack), yaml.rules.as_slice(), "pack `{pack}`");
        }
    }
}
