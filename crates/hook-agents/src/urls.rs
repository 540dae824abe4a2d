//! Which URLs an agent's `http` hooks may call: `allowedHttpHookUrls` as Claude Code reads it.
//! The loader (`hook-config`) merges the lists of each level; the http executor checks the URL
//! against the result before each call.

/// Whether `url` matches one of `patterns` as a whole, `*` matching any characters (none
/// included) and every other character itself: `allowedHttpHookUrls` as Claude Code reads it.
pub fn url_allowed(patterns: &[String], url: &str) -> bool {
    patterns.iter().any(|pattern| wildcard_match(pattern, url))
}

fn wildcard_match(pattern: &str, text: &str) -> bool {
    let (pattern, text) = (pattern.as_bytes(), text.as_bytes());
    let (mut p, mut t) = (0, 0);
    // The last `*` seen, and where in `text` its match currently ends.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            // Let the `*` take one more character and try again after it.
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}
