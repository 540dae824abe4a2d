//! `--since`: a duration back from now (`7d`, `24h`, `30m`) or an RFC 3339 date, as seconds
//! since the Unix epoch, and the record times it is compared with.
//!
//! Written out here rather than pulled in from a date crate: replay needs only UTC instants
//! from RFC 3339 text, which is a few lines of calendar arithmetic.

use std::{
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

/// A `--since` value that is neither a duration nor a date.
#[derive(Debug, thiserror::Error)]
#[error(
    "--since {0:?} is not a duration or a date: give a number and a unit (`7d`, `24h`, `30m`, `90s`, `2w`) \
     or an RFC 3339 date or time (`2026-11-20`, `2026-11-20T08:00:00Z`)"
)]
pub(crate) struct SinceError(String);

/// Now, in seconds since the epoch.
pub(super) fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The instant `--since text` names, given `now`.
pub(super) fn cutoff(text: &str, now: i64) -> Result<i64, SinceError> {
    let bad = || SinceError(text.to_owned());
    let trimmed = text.trim();
    if let Some(at) = parse_time(trimmed) {
        return Ok(at);
    }
    let unit_at = trimmed.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (number, unit) = trimmed.split_at(unit_at);
    let number: i64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    Ok(now.saturating_sub(number.saturating_mul(seconds)))
}

/// When `path` was last written, in seconds since the epoch.
pub(super) fn modified(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let secs = modified.duration_since(UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs).ok()
}

/// An RFC 3339 date-time (`2026-11-20T08:00:00.123Z`, `…+02:00`; a space for the `T` is
/// accepted) or full date (`2026-11-20`, midnight UTC), in seconds since the epoch.
pub(super) fn parse_time(text: &str) -> Option<i64> {
    let number = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
    };
    let (date, time) = match text.find(['T', 't', ' ']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let (year, month, day) = (number(parts.next()?)?, number(parts.next()?)?, number(parts.next()?)?);
    if parts.next().is_some() || date.len() != 10 || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let Some(time) = time else { return Some(days * 86_400) };
    // The offset: `Z`, or `+hh:mm` / `-hh:mm` after the seconds.
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, 0)
    } else {
        let at = time.rfind(['+', '-'])?;
        let (clock, zone) = time.split_at(at);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let (hours, minutes) = zone[1..].split_once(':')?;
        (clock, sign * (number(hours)? * 3_600 + number(minutes)? * 60))
    };
    let clock = clock.split('.').next()?;
    let mut fields = clock.split(':');
    let (hour, minute, second) = (number(fields.next()?)?, number(fields.next()?)?, number(fields.next()?)?);
    if fields.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second - offset)
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_3339_times_and_dates_are_read_as_utc_instants() {
        // `date -u -d 2026-11-20T08:00:00Z +%s`
        assert_eq!(parse_time("2026-11-20T08:00:00Z"), Some(1_795_161_600));
        assert_eq!(parse_time("2026-11-20T08:00:00.771Z"), Some(1_795_161_600));
        assert_eq!(parse_time("2026-11-20T10:00:00+02:00"), Some(1_795_161_600));
        assert_eq!(parse_time("2026-11-20T03:30:00-04:30"), Some(1_795_161_600));
        assert_eq!(parse_time("2026-11-20"), Some(1_795_161_600 - 8 * 3_600));
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_time("2024-02-29T00:00:00Z"), Some(1_709_164_800));
        for bad in ["2026-13-01", "2026-11-20T08:00", "yesterday", "2026-11-20T25:00:00Z", "7d", ""] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations_count_back_from_now_and_bad_values_say_what_is_expected() {
        let now = 1_000_000;
        assert_eq!(cutoff("7d", now).unwrap(), now - 7 * 86_400);
        assert_eq!(cutoff("24h", now).unwrap(), now - 86_400);
        assert_eq!(cutoff("30m", now).unwrap(), now - 1_800);
        assert_eq!(cutoff("2026-11-20", now).unwrap(), 1_795_132_800);
        for bad in ["7", "d", "7 days", "-3h", "soon", "7y"] {
            let error = cutoff(bad, now).unwrap_err().to_string();
            assert!(
                error.contains(&format!("{bad:?}")) && error.contains("7d") && error.contains("RFC 3339"),
                "{error}"
            );
        }
    }
}
