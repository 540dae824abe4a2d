//! How long hook-shell takes to read a command: a typical 80-character tool call and a 10 KB
//! script, through `invocations` (rules, `if` rules) and `analyze_shell` (trust). Run with
//! `cargo bench -p hook-shell`; docs/rules.md ("The shell parser") records the figures.

use std::{hint::black_box, path::Path, time::Duration};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_shell::{Vars, analyze_shell, invocations};

/// A command line of the size an agent's tool call usually has.
const LINE: &str = "cd /home/u/proj && git status --short | grep -v '^??' > /tmp/out.txt; echo \"rc: $?\"";

/// A block of a hook script: a function, conditionals, a loop, substitutions, a here-document.
const BLOCK: &str = r##"
check_file() {
    local file="$1"
    if [ -f "$file" ] && grep -q 'rm -rf' "$file"; then
        echo "{\"action\": \"skip\", \"file\": \"$(basename "$file")\"}" >&2
        return 1
    fi
    case "${file##*.}" in
        sh|bash) shellcheck -x "$file" || true ;;
        py) python3 -m py_compile "$file" ;;
        *) : ;;
    esac
}
for f in $(git diff --name-only HEAD~1 2>/dev/null); do
    check_file "$f" || exit 2
done
cat <<DOC > "${TMPDIR:-/tmp}/report.txt"
checked at $(date -u +%FT%TZ) in $PWD
DOC
"##;

/// A hook script of about 10 KB.
fn script() -> String {
    let mut text = String::from("#!/bin/sh\nset -eu\n");
    while text.len() < 10 * 1024 {
        text.push_str(BLOCK);
    }
    text
}

fn bench(c: &mut Criterion) {
    let script = script();
    let mut vars = Vars::default();
    vars.set("CLAUDE_PROJECT_DIR", "/home/u/proj");
    let (cwd, home) = (Path::new("/home/u/proj"), Some(Path::new("/home/u")));
    let mut group = c.benchmark_group("hook-shell");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2)).sample_size(20);
    group.bench_function("invocations, 80-char line", |b| b.iter(|| invocations(black_box(LINE))));
    group.bench_function("invocations, 10 KB script", |b| b.iter(|| invocations(black_box(&script))));
    group.bench_function("analyze_shell, 80-char line", |b| {
        b.iter(|| analyze_shell(black_box(LINE), cwd, &vars, home));
    });
    group.bench_function("analyze_shell, 10 KB script", |b| {
        b.iter(|| analyze_shell(black_box(&script), cwd, &vars, home));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
