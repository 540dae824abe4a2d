//! Makes an index of each pack's rules (`OUT_DIR/packs/index.rs`) from its YAML
//! (`packs/*.yaml`, the text people read and edit): each rule's own JSON, which the binary
//! parses instead of the YAML, with what decides whether a call needs the rule (its events,
//! tools, command patterns and `undetermined`), as written.
//!
//! Every bridge call is a fresh process that reads the packs it guards with: parsing the eight
//! packs as YAML takes about 1.3 ms there, the same data as JSON about 0.2 ms, and compiling
//! every rule as much again. With the index a call parses and compiles only the rules it can
//! reach (the rules naming the programs its command runs, say). The YAML stays the source
//! (`hookwire rules list` and `explain` quote it, with its line numbers); tests check that the
//! index gives the YAML's rules (`packs.rs`, `rules.rs`).

use std::{env, fs, path::Path};

fn main() {
    let packs = Path::new("packs");
    println!("cargo::rerun-if-changed=packs");
    let out = Path::new(&env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("packs");
    fs::create_dir_all(&out).expect("OUT_DIR is writable");
    let mut entries: Vec<_> =
        fs::read_dir(packs).expect("packs/ exists").map(|e| e.expect("packs/ is readable").path()).collect();
    entries.sort();
    let mut index = String::from("// Made by build.rs from packs/*.yaml.\n");
    for path in entries.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")) {
        println!("cargo::rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).expect("a pack is UTF-8 text");
        let value: serde_json::Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("the pack {} is not valid YAML: {e}", path.display()));
        // The index holds a pack's rules only: a pack is nothing else.
        if let Some(key) = value.as_object().and_then(|pack| pack.keys().find(|key| *key != "rules")) {
            panic!("the pack {} has `{key}:`; a pack holds `rules:` only", path.display());
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("a pack's name is UTF-8");
        index.push_str(&index_of(stem, &value));
    }
    fs::write(out.join("index.rs"), index).expect("OUT_DIR is writable");
}

/// `pub(crate) static NAME: &[PackRule] = &[...];` for the pack `stem`: each rule's fields as
/// written (the runtime reads them with the same code as a rules file's).
fn index_of(stem: &str, pack: &serde_json::Value) -> String {
    use serde_json::Value;
    let strings = |value: Option<&Value>| -> Vec<String> {
        match value {
            None => Vec::new(),
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(many)) => many
                .iter()
                .map(|v| v.as_str().unwrap_or_else(|| panic!("pack {stem}: a list of strings holds {v}")).to_owned())
                .collect(),
            Some(other) => panic!("pack {stem}: a string or a list of strings was expected, not {other}"),
        }
    };
    let list =
        |items: Vec<String>| format!("&[{}]", items.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", "));
    let mut out = format!("pub(crate) static {}: &[PackRule] = &[\n", stem.to_uppercase().replace('-', "_"));
    let rules = pack.get("rules").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for rule in rules {
        let field = |key: &str| rule.get(key);
        let name = field("name").and_then(Value::as_str).unwrap_or_else(|| panic!("pack {stem}: a rule has no name"));
        let undetermined = match field("undetermined").and_then(Value::as_str) {
            Some(policy) => format!("Some({policy:?})"),
            None => "None".to_owned(),
        };
        out.push_str(&format!(
            "    PackRule {{ name: {name:?}, json: {:?}, events: {}, tools: {}, commands: {}, keys: {}, undetermined: {undetermined} }},\n",
            serde_json::to_string(rule).expect("a YAML value is JSON"),
            list(strings(field("events"))),
            list(strings(field("tools"))),
            list(strings(field("command"))),
            keys(&strings(field("command"))),
        ));
    }
    out.push_str("];\n");
    out
}

/// `Some(&[(program, first operand or ""), ...])`, what a rule's command patterns name, read
/// from their first two words when every pattern starts with plain words (the operand only when
/// the second word is no flag); `None` otherwise: the rule is then tried on every command. The
/// runtime's `every_pack_rule_compiles` test checks each against the compiled pattern.
fn keys(patterns: &[String]) -> String {
    let plain = |word: &str| {
        word.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+' | b'/' | b':'))
    };
    let mut keys = Vec::new();
    for pattern in patterns {
        let mut words = pattern.split_ascii_whitespace();
        let Some(first) = words.next().filter(|w| plain(w)) else { return "None".to_owned() };
        let program = first.trim_start_matches('\\').rsplit('/').next().unwrap_or(first);
        let operand = words.next().filter(|w| plain(w) && !w.starts_with('-')).unwrap_or("");
        keys.push(format!("({program:?}, {operand:?})"));
    }
    format!("Some(&[{}])", keys.join(", "))
}
