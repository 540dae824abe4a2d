//! Links `hookwire` as a position-dependent executable on Linux.
//!
//! An agent starts `hookwire hook <agent>` once per event, so the binary's start-up is paid on
//! every tool call. As a position-independent executable (the default) the dynamic loader applies
//! about 34,000 relative relocations at every start, one copy-on-write page fault per page of
//! vtables and static tables it touches; linked with `-no-pie` the addresses are fixed at link
//! time and none is left. docs/performance.md has the measurement. The cost: the executable's
//! own image is not address-randomized (its libraries, stack and heap still are).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo::rustc-link-arg-bin=hookwire=-no-pie");
    }
}
