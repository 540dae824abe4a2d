//! Turns each pack's YAML (`packs/*.yaml`, the text people read and edit) into JSON in
//! `OUT_DIR`, which the binary embeds and reads instead.
//!
//! Every bridge call is a fresh process that reads the packs it guards with: parsing the eight
//! packs as YAML takes about 1.3 ms there, the same data as JSON about 0.1 ms. The YAML stays
//! the source (`hookwire rules list` and `explain` quote it, with its line numbers); a test
//! checks that both give the same rules.

use std::{env, fs, path::Path};

fn main() {
    let packs = Path::new("packs");
    println!("cargo::rerun-if-changed=packs");
    let out = Path::new(&env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("packs");
    fs::create_dir_all(&out).expect("OUT_DIR is writable");
    let mut entries: Vec<_> =
        fs::read_dir(packs).expect("packs/ exists").map(|e| e.expect("packs/ is readable").path()).collect();
    entries.sort();
    for path in entries.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")) {
        println!("cargo::rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).expect("a pack is UTF-8 text");
        let value: serde_json::Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("the pack {} is not valid YAML: {e}", path.display()));
        let name = path.with_extension("json");
        let name = name.file_name().expect("a pack has a file name");
        fs::write(out.join(name), serde_json::to_string(&value).expect("a YAML value is JSON"))
            .expect("OUT_DIR is writable");
    }
}
