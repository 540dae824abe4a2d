//! Globs over normalized absolute paths: `*` and `?` within one path component, `**` across
//! components. Small and total (no I/O, no backtracking blow-up: memoized).

/// Whether `text` matches `pattern` as a whole.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let mut memo = vec![None; (p.len() + 1) * (t.len() + 1)];
    matches_at(&p, &t, 0, 0, &mut memo)
}

fn matches_at(p: &[char], t: &[char], i: usize, j: usize, memo: &mut [Option<bool>]) -> bool {
    let key = i * (t.len() + 1) + j;
    if let Some(known) = memo[key] {
        return known;
    }
    let result = if i == p.len() {
        j == t.len()
    } else if p[i] == '*' && p.get(i + 1) == Some(&'*') {
        // `**/` also matches no directory at all.
        let after = if p.get(i + 2) == Some(&'/') { i + 3 } else { i + 2 };
        (after == i + 3 && matches_at(p, t, after, j, memo)) || (j..=t.len()).any(|k| matches_at(p, t, i + 2, k, memo))
    } else if p[i] == '*' {
        (j..=t.len()).take_while(|&k| k == j || t[k - 1] != '/').any(|k| matches_at(p, t, i + 1, k, memo))
    } else if j < t.len() && (p[i] == '?' && t[j] != '/' || p[i] == t[j]) {
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
    }
}
