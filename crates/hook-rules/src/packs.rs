//! The packs compiled into hookwire: YAML rules files embedded in the binary, with an index of
//! their rules made from them at build time (build.rs), which is what a process reads.

use std::sync::OnceLock;

use hook_protocol::{
    Event,
    rules::{PackName, Rule, RulesFile, Undetermined},
};

/// One rule of a pack as the binary embeds it: its JSON, read when a call first needs the
/// rule, and, as written, the fields that tell which calls can need it.
#[derive(Debug)]
pub struct PackRule {
    /// Its name.
    pub name: &'static str,
    json: &'static str,
    events: &'static [&'static str],
    tools: &'static [&'static str],
    commands: &'static [&'static str],
    /// What its command patterns name: each one's program and first operand (`""` for none),
    /// read off the patterns at build time; `None` when a pattern cannot be read without
    /// compiling it.
    keys: Option<&'static [(&'static str, &'static str)]>,
    undetermined: Option<&'static str>,
}

mod index {
    use super::PackRule;
    include!(concat!(env!("OUT_DIR"), "/packs/index.rs"));
}

/// What the binary embeds of one pack: its YAML as shipped and the index of its rules (none for
/// `recommended`, which only names the others).
fn embedded(pack: PackName) -> Option<(&'static str, &'static [PackRule])> {
    macro_rules! pack {
        ($stem:literal, $index:ident) => {
            Some((include_str!(concat!("../packs/", $stem, ".yaml")), index::$index))
        };
    }
    match pack {
        PackName::Filesystem => pack!("filesystem", FILESYSTEM),
        PackName::Git => pack!("git", GIT),
        PackName::Secrets => pack!("secrets", SECRETS),
        PackName::RemoteCode => pack!("remote-code", REMOTE_CODE),
        PackName::Persistence => pack!("persistence", PERSISTENCE),
        PackName::Databases => pack!("databases", DATABASES),
        PackName::Cloud => pack!("cloud", CLOUD),
        PackName::Containers => pack!("containers", CONTAINERS),
        PackName::Recommended => None,
    }
}

/// The text of each pack, as shipped (`crates/hook-rules/packs/*.yaml`).
pub fn source(pack: PackName) -> &'static str {
    embedded(pack).map_or("packs: []\n", |(yaml, _)| yaml)
}

/// The rules of one pack, indexed, in the pack's order (none for `recommended`).
pub fn index(pack: PackName) -> &'static [PackRule] {
    embedded(pack).map_or(&[], |(_, index)| index)
}

/// Parses one pack as the binary embeds it (each rule's JSON), every time (what [`rules`] does
/// once per process; benchmarks time it). build.rs refuses a pack with anything but `rules:`,
/// so these are the whole file.
pub fn parse(pack: PackName) -> Result<RulesFile, serde_json::Error> {
    let rules = index(pack).iter().map(PackRule::rule).collect::<Result<_, _>>()?;
    Ok(RulesFile { rules, ..RulesFile::default() })
}

/// The rules of one pack (none for `recommended`, which only names the others).
pub fn rules(pack: PackName) -> &'static [Rule] {
    static PARSED: OnceLock<Vec<Vec<Rule>>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        PackName::ALL
            .iter()
            .map(|pack| {
                // The packs are tested to parse (tests/packs.rs, and `the_index_is_the_yaml`
                // below); a broken one would be a build defect, never a user's mistake.
                parse(*pack).unwrap_or_else(|e| panic!("pack `{pack}` does not parse: {e}")).rules
            })
            .collect()
    });
    let index = PackName::ALL.iter().position(|p| *p == pack).unwrap_or_default();
    &parsed[index]
}

impl PackRule {
    /// The rule, parsed. The packs are tested to parse (`the_index_is_the_pack` below).
    pub fn rule(&self) -> Result<Rule, serde_json::Error> {
        serde_json::from_str(self.json)
    }

    /// The events it runs on, as [`Rule::effective_events`] reads them.
    pub fn events(&self) -> Vec<Event> {
        if self.events.is_empty() {
            return vec![Event::PreToolExecution];
        }
        // A pack's event names are checked when it is built (tests); one that does not
        // parse would be dropped, so the test compares the lists.
        self.events.iter().filter_map(|name| name.parse().ok()).collect()
    }

    /// Its tool selectors, as written.
    pub fn tools(&self) -> &'static [&'static str] {
        self.tools
    }

    /// Its command patterns, as written.
    pub fn commands(&self) -> &'static [&'static str] {
        self.commands
    }

    /// What its command patterns name (see the field).
    pub fn keys(&self) -> Option<&'static [(&'static str, &'static str)]> {
        self.keys
    }

    /// Its own `undetermined` policy.
    pub fn undetermined(&self) -> Option<Undetermined> {
        self.undetermined.and_then(|policy| serde_json::from_value(serde_json::Value::from(policy)).ok())
    }
}

/// Every event the rules of `pack` run on, without parsing them.
pub fn events(pack: PackName) -> Vec<Event> {
    let mut events = Vec::new();
    for event in index(pack).iter().flat_map(PackRule::events) {
        if !events.contains(&event) {
            events.push(event);
        }
    }
    events
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

    /// The index the binary reads holds exactly the rules of the YAML people edit: a scalar
    /// YAML reads differently from JSON (`yes`, `1`, `~`) would show here.
    #[test]
    fn the_index_is_the_yaml() {
        for pack in PackName::ALL {
            let yaml: RulesFile = serde_saphyr::from_str(source(pack)).expect("the YAML parses");
            let json = parse(pack).expect("the index parses");
            assert_eq!(json, yaml, "pack `{pack}`");
            assert_eq!(rules(pack), yaml.rules.as_slice(), "pack `{pack}`");
        }
    }

    /// The index holds each rule of each pack, in order, with the fields the rule has.
    #[test]
    fn the_index_is_the_pack() {
        let mut n = 0;
        for pack in PackName::ALL {
            let indexed = index(pack);
            assert_eq!(indexed.len(), rules(pack).len(), "pack `{pack}`");
            for (entry, rule) in indexed.iter().zip(rules(pack)) {
                n += 1;
                assert_eq!(&entry.rule().expect("an indexed rule parses"), rule);
                assert_eq!(entry.name, rule.name);
                assert_eq!(entry.events(), rule.effective_events(), "pack `{pack}`, rule `{}`", rule.name);
                let tools: Vec<&str> = rule.tools.iter().map(|t| t.as_str()).collect();
                assert_eq!(entry.tools(), tools.as_slice());
                let commands: Vec<&str> = rule.command.iter().flat_map(|c| c.iter()).collect();
                assert_eq!(entry.commands(), commands.as_slice());
                assert_eq!(entry.undetermined(), rule.undetermined);
            }
        }
        assert!(n > 50, "only {n} pack rules indexed");
    }
}
