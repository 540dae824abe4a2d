//! Globs over normalized absolute paths: `*` and `?` within one path component, `**` across
//! components. Small and total (no I/O, no backtracking blow-up: memoized).

/// Whether `text` matches `pattern` as a whole.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    // Most globs a call meets do not match: the text before the first wildcard and after the
    // last must be the text's own start and end, which rejects them without the full match.
    let Some(first) = pattern.find(['*', '?']) else { return pattern == text };
    let last = pattern.rfind(['*', '?']).unwrap_or(first);
    let mut tail = &pattern[last + 1..];
    if pattern[..=last].ends_with('*') {
        // `**/` also matches no directory at all: its `/` may be absent.
        tail = tail.strip_prefix('/').unwrap_or(tail);
    }
    if !text.starts_with(&pattern[..first]) || !text.ends_with(tail) {
        return false;
    }
    if pattern.is_ascii() && text.is_ascii() {
        return full_match(pattern.as_bytes(), text.as_bytes());
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    full_match(&p, &t)
}

/// Whether `text` matches the glob `prefix` + `rest`, where `prefix` is a literal (a home or
/// working directory): without building the joined glob when `prefix` holds no wildcard.
pub(crate) fn glob_match_under(prefix: &str, rest: &str, text: &str) -> bool {
    if prefix.contains(['*', '?']) {
        return glob_match(&format!("{prefix}{rest}"), text);
    }
    text.strip_prefix(prefix).is_some_and(|tail| glob_match(rest, tail))
}

/// The memoized match of a whole pattern (bytes of ASCII text, or characters).
fn full_match<T: Copy + PartialEq + From<u8>>(p: &[T], t: &[T]) -> bool {
    let mut memo = vec![None; (p.len() + 1) * (t.len() + 1)];
    matches_at(p, t, 0, 0, &mut memo)
}

fn matches_at<T: Copy + PartialEq + From<u8>>(p: &[T], t: &[T], i: usize, j: usize, memo: &mut [Option<bool>]) -> bool {
    let (star, question, slash) = (T::from(b'*'), T::from(b'?'), T::from(b'/'));
    let key = i * (t.len() + 1) + j;
    if let Some(known) = memo[key] {
        return known;
    }
    let result = if i == p.len() {
        j == t.len()
    } else if p[i] == star && p.get(i + 1) == Some(&star) {
        // `**/` also matches no directory at all.
        let after = if p.get(i + 2) == Some(&slash) { i + 3 } else { i + 2 };
        (after == i + 3 && matches_at(p, t, after, j, memo)) || (j..=t.len()).any(|k| matches_at(p, t, i + 2, k, memo))
    } else if p[i] == star {
        (j..=t.len()).take_while(|&k| k == j || t[k - 1] != slash).any(|k| matches_at(p, t, i + 1, k, memo))
    } else if j < t.len() && (p[i] == question && t[j] != slash || p[i] == t[j]) {
        matches_at(p, t, i + 1, j + 1, memo)
    } else {
        false
    };
    memo[key] = Some(result);
    result
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn stars_and_double_stars() {
        assert!(glob_match("/home/u/.ssh/id_*", "/home/u/.ssh/id_rsa"));
        assert!(!glob_match("/home/u/.ssh/id_*", "/home/u/.ssh/x/id_rsa"));
        assert!(glob_match("**/.env", "/p/.env"));
        assert!(glob_match("**/.env.*", "/p/a/b/.env.local"));
        assert!(!glob_match("**/.env", "/p/.envrc"));
        assert!(glob_match("/etc/**", "/etc/passwd"));
        assert!(glob_match("/etc/**", "/etc/a/b"));
        assert!(glob_match("+*", "+main"));
        assert!(glob_match("/home/u/.bashrc", "/home/u/.bashrc"));
        assert!(!glob_match("/home/u/.bashrc", "/home/u/.bashrc.bak"));
        assert!(glob_match("/etc/cron*/**", "/etc/cron.d/x"));
        assert!(glob_match("**/*.pem", "/p/é/k.pem"));
        assert!(glob_match("/p/?/k", "/p/é/k"));
        assert!(!glob_match("ab*ba", "aba"));
        assert!(glob_match("**/.git", ".git"));
        assert!(!glob_match("*/.git", ".git"));
    }

    #[test]
    fn under_a_literal_prefix() {
        use super::glob_match_under;
        assert!(glob_match_under("/home/u", "/.ssh/id_*", "/home/u/.ssh/id_rsa"));
        assert!(glob_match_under("/home/u", "", "/home/u"));
        assert!(!glob_match_under("/home/u", "/**", "/home/uv/x"));
        // A prefix with a wildcard is a glob, as when the two are joined.
        assert!(glob_match_under("/home/*", "/x", "/home/u/x"));
    }

    /// The quick rejections never change an answer: every pack glob against paths around it,
    /// compared with the full match alone.
    #[test]
    fn quick_rejections_agree_with_the_full_match() {
        use super::full_match;
        let reference = |p: &str, t: &str| {
            let (p, t): (Vec<char>, Vec<char>) = (p.chars().collect(), t.chars().collect());
            full_match(&p, &t)
        };
        let globs = [
            "**/.env",
            "**/.env.*",
            "**/.git",
            "/etc/cron*/**",
            "/home/u/.ssh/id_*",
            "/home/u/.ssh/*.pub",
            "**/*.pem",
            "/home/*",
            "/etc/**",
            "/home/u",
            "/home/u/.config/systemd/user/**",
            "+*",
            "a?c",
            "*",
            "**",
            "**/",
            "/p/**/x",
            "*.key",
        ];
        let texts = [
            "",
            "/",
            ".git",
            "/p/.git",
            "/p/.git/x",
            "/p/.env",
            "/p/.env.local",
            "/p/.envrc",
            "/etc",
            "/etc/",
            "/etc/cron.d/x",
            "/etc/crontab",
            "/home/u",
            "/home/u/",
            "/home/u/.ssh/id_rsa",
            "/home/u/.ssh/id_rsa.pub",
            "/home/u/.config/systemd/user/x.service",
            "/p/k.pem",
            "/p/é/k.pem",
            "+main",
            "abc",
            "a/c",
            "/p/x",
            "/p/a/b/x",
            "x.key",
        ];
        for glob in globs {
            for text in texts {
                assert_eq!(glob_match(glob, text), reference(glob, text), "{glob} vs {text}");
            }
        }
    }
}
