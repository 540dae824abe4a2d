//! When an [`OpenAiClient`](crate::OpenAiClient) retries a failed call, and how long it waits.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use reqwest::header::HeaderMap;

/// How an [`OpenAiClient`](crate::OpenAiClient) retries failed calls.
///
/// **What is retried:** a connection that fails (refused, reset, closed before the answer) and
/// the answers `429` and `5xx`, unless the answer carries `x-should-retry: false` (the header
/// OpenAI's API uses to say a retry cannot help). Other statuses (`400`, `401`, `404`, ...),
/// timeouts, answers that are not a chat completion, and streams that have already delivered a
/// delta are not retried.
///
/// **How long it waits:** what the server asked for (`retry-after-ms`, or `Retry-After` in
/// seconds or as an HTTP date), at most [`max_retry_after`](Self::max_retry_after); otherwise
/// exponential backoff, [`initial_backoff`](Self::initial_backoff) doubled on each retry up to
/// [`max_backoff`](Self::max_backoff), less up to 25 % of jitter taken from the clock.
///
/// A call's [`ChatRequest::timeout`](crate::ChatRequest::timeout) bounds its attempts and
/// waits together: a wait that would pass it is not made, and the last error is returned.
/// When a call gave up after more than one attempt, its error says how many were made.
///
/// ```
/// # use std::time::Duration;
/// use hook_llm::RetryPolicy;
/// let patient = RetryPolicy { max_retries: 6, ..RetryPolicy::default() };
/// assert_eq!(patient.max_backoff, Duration::from_secs(8));
/// assert_eq!(RetryPolicy::none().max_retries, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; `0` never retries. Default 3 (4 attempts in all).
    pub max_retries: u32,
    /// The wait before the first retry when the server names none. Default 250 ms.
    pub initial_backoff: Duration,
    /// The longest backoff wait. Default 8 s.
    pub max_backoff: Duration,
    /// The longest wait a server's `Retry-After` can ask for; longer asks wait this long. Default 60 s.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Never retries.
    pub fn none() -> Self {
        RetryPolicy { max_retries: 0, ..RetryPolicy::default() }
    }

    /// The backoff before retry number `retry` (1 for the first retry), jitter included:
    /// between 75 % and 100 % of `initial_backoff * 2^(retry - 1)`, capped at `max_backoff`.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let doubled = self.initial_backoff.saturating_mul(1u32 << retry.saturating_sub(1).min(30));
        doubled.min(self.max_backoff).mul_f64(1.0 - 0.25 * jitter())
    }

    /// The wait before retry number `retry`: what the server asked for (capped), or the backoff.
    pub(crate) fn wait(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        match retry_after {
            Some(asked) => asked.min(self.max_retry_after),
            None => self.backoff(retry),
        }
    }
}

/// Whether an answer with this status may succeed when asked again.
pub(crate) fn retryable_status(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// Whether the server said a retry cannot help (`x-should-retry: false`).
pub(crate) fn server_refuses_retry(headers: &HeaderMap) -> bool {
    headers
        .get("x-should-retry")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim().eq_ignore_ascii_case("false"))
}

/// How long the server asked to wait: `retry-after-ms` (milliseconds), else `Retry-After` as
/// seconds or as an HTTP date (a date in the past asks for no wait). `None` when it asked nothing
/// readable.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64((ms / 1000.0).min(1e9)));
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Some(Duration::from_secs_f64(seconds.min(1e9)));
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Reads an HTTP date in any of the three forms RFC 9110 makes recipients accept:
/// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), `Sunday, 06-Nov-94 08:49:37 GMT` (RFC 850)
/// and `Sun Nov  6 08:49:37 1994` (asctime).
pub(crate) fn parse_http_date(text: &str) -> Option<SystemTime> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (day, month, year, time) = match words.as_slice() {
        [weekday, day, month, year, time, "GMT"] if weekday.ends_with(',') => {
            (day.parse().ok()?, *month, year.parse().ok()?, *time)
        }
        [weekday, date, time, "GMT"] if weekday.ends_with(',') => {
            let mut parts = date.split('-');
            let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
            let year: i64 = year.parse().ok()?;
            let year = match year {
                0..=69 => 2000 + year,
                70..=99 => 1900 + year,
                _ => year,
            };
            (day.parse().ok()?, month, year, *time)
        }
        [_weekday, month, day, time, year] => (day.parse().ok()?, *month, year.parse().ok()?, *time),
        _ => return None,
    };
    let month = 1 + ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|name| name.eq_ignore_ascii_case(month))?;
    let mut clock = time.split(':').map(|part| part.parse::<u64>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month as i64, day);
    let seconds = u64::try_from(days).ok()? * 86_400 + hour * 3600 + minute * 60 + second;
    UNIX_EPOCH.checked_add(Duration::from_secs(seconds))
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A number in `[0, 1)` from the clock's nanoseconds and a call counter, mixed (splitmix64):
/// enough to spread clients' retries apart, with no random-number dependency.
fn jitter() -> f64 {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ CALLS.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn http_dates_in_all_three_forms() {
        let expected = UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(expected));
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(expected));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(expected));
        assert_eq!(
            parse_http_date("Thu, 01 Jan 2037 00:00:00 GMT"),
            Some(UNIX_EPOCH + Duration::from_secs(2_114_380_800))
        );
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(UNIX_EPOCH + Duration::from_secs(951_825_600))
        );
        for bad in ["", "soon", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Nov 1994"] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn retry_after_seconds_dates_and_milliseconds() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_770);
        assert_eq!(retry_after(&headers(&[("retry-after", "7")]), now), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(&headers(&[("retry-after", "1.5")]), now), Some(Duration::from_millis(1500)));
        assert_eq!(
            retry_after(&headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]), now),
            Some(Duration::from_secs(7))
        );
        let later = now + Duration::from_secs(60);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]), later),
            Some(Duration::ZERO),
            "a date in the past asks for no wait"
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7"), ("retry-after-ms", "120")]), now),
            Some(Duration::from_millis(120))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "whenever")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
            ..RetryPolicy::default()
        };
        for _ in 0..200 {
            let first = policy.backoff(1);
            assert!(first >= Duration::from_millis(75) && first <= Duration::from_millis(100), "{first:?}");
            let second = policy.backoff(2);
            assert!(second >= Duration::from_millis(150) && second <= Duration::from_millis(200), "{second:?}");
            let capped = policy.backoff(40);
            assert!(capped >= Duration::from_micros(262_500) && capped <= Duration::from_millis(350), "{capped:?}");
        }
        let waits: std::collections::HashSet<Duration> = (0..50).map(|_| policy.backoff(1)).collect();
        assert!(waits.len() > 1, "the jitter varies: {waits:?}");
    }

    #[test]
    fn server_waits_are_capped_and_statuses_classified() {
        let policy = RetryPolicy { max_retry_after: Duration::from_secs(60), ..RetryPolicy::default() };
        assert_eq!(policy.wait(1, Some(Duration::from_secs(3600))), Duration::from_secs(60));
        assert_eq!(policy.wait(1, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert!(policy.wait(1, None) <= policy.initial_backoff);
        for status in [429, 500, 502, 503, 504, 599] {
            assert!(retryable_status(status), "{status}");
        }
        for status in [200, 400, 401, 403, 404, 408, 409, 422, 600] {
            assert!(!retryable_status(status), "{status}");
        }
        assert!(server_refuses_retry(&headers(&[("x-should-retry", "false")])));
        assert!(!server_refuses_retry(&headers(&[("x-should-retry", "true")])));
        assert!(!server_refuses_retry(&HeaderMap::new()));
    }
}
