//! The client's timeout, retries and configuration, over real HTTP against a ScriptedServer on
//! 127.0.0.1: `429` honours `Retry-After` (seconds or date, capped), `5xx` and refused
//! connections are retried with backoff, other `4xx` are not, retries are bounded and the
//! error counts the attempts, a silent server times out, and a client with no base URL sends
//! nothing anywhere.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hook_llm::{
    ChatModel, ChatRequest, DEFAULT_TIMEOUT, ModelError, OpenAiClient, OpenAiConfig, Reply, RetryPolicy,
    ScriptedServer, StreamDelta,
};

fn server(script: impl IntoIterator<Item = Reply>) -> ScriptedServer {
    ScriptedServer::start(script).expect("start the scripted server on 127.0.0.1")
}

fn config(base_url: String) -> OpenAiConfig {
    OpenAiConfig { base_url, api_key: None, model: "m1".into() }
}

/// The default client (120 s timeout, 3 retries from a 250 ms backoff) against `server`.
fn client(server: &ScriptedServer) -> OpenAiClient {
    OpenAiClient::new(config(server.base_url())).expect("build the HTTP client")
}

/// A client whose backoff is 20 ms, doubling, so retry tests stay fast.
fn quick_client(server: &ScriptedServer) -> OpenAiClient {
    client(server)
        .with_retry_policy(RetryPolicy { initial_backoff: Duration::from_millis(20), ..RetryPolicy::default() })
}

#[test]
fn defaults() {
    let client = OpenAiClient::new(config("http://127.0.0.1:9/v1".into())).unwrap();
    assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(120));
    assert_eq!(client.timeout(), DEFAULT_TIMEOUT);
    assert_eq!(client.retry_policy().max_retries, 3);
    assert_eq!(client.retry_policy().max_retry_after, Duration::from_secs(60));
    let tuned = client.clone().with_timeout(Duration::from_secs(5)).with_max_retries(7);
    assert_eq!((tuned.timeout(), tuned.retry_policy().max_retries), (Duration::from_secs(5), 7));
    assert_eq!(client.timeout(), DEFAULT_TIMEOUT, "tuning a clone leaves the original as it was");
}

#[tokio::test]
async fn a_429_waits_as_retry_after_says_then_succeeds() {
    let server = server([Reply::http(429, "slow down").with_header("Retry-After", "1"), Reply::Content("ok".into())]);

    let started = Instant::now();
    let response = client(&server).complete(ChatRequest::default()).await.unwrap();
    let elapsed = started.elapsed();

    assert_eq!(response.message.text_content(), "ok");
    assert_eq!(server.n_requests(), 2);
    assert!(elapsed >= Duration::from_millis(950), "waited {elapsed:?}, the server asked for 1 s");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn retry_after_as_an_http_date() {
    let at = SystemTime::now() + Duration::from_secs(2);
    let server = server([Reply::http(503, "").with_header("retry-after", http_date(at)), Reply::Content("ok".into())]);

    let started = Instant::now();
    let response = client(&server).complete(ChatRequest::default()).await.unwrap();
    let elapsed = started.elapsed();

    assert_eq!(response.message.text_content(), "ok");
    // The date has whole seconds: the wait is between 1 and 2 s.
    assert!(elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(server.n_requests(), 2);
}

#[tokio::test]
async fn a_long_retry_after_is_capped() {
    let server = server([Reply::http(429, "").with_header("retry-after", "3600"), Reply::Content("ok".into())]);
    let policy = RetryPolicy { max_retry_after: Duration::from_millis(500), ..RetryPolicy::default() };

    let started = Instant::now();
    let response = client(&server).with_retry_policy(policy).complete(ChatRequest::default()).await.unwrap();
    let elapsed = started.elapsed();

    assert_eq!(response.message.text_content(), "ok");
    assert!(elapsed >= Duration::from_millis(450) && elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff() {
    let server = server([Reply::http(500, "oops"), Reply::http(502, "bad gateway"), Reply::Content("ok".into())]);
    let policy = RetryPolicy { initial_backoff: Duration::from_millis(100), ..RetryPolicy::default() };

    let started = Instant::now();
    let response = client(&server).with_retry_policy(policy).complete(ChatRequest::default()).await.unwrap();
    let elapsed = started.elapsed();

    assert_eq!(response.message.text_content(), "ok");
    assert_eq!(server.n_requests(), 3);
    // 75..100 ms, then 150..200 ms.
    assert!(elapsed >= Duration::from_millis(225), "backed off {elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[tokio::test]
async fn other_client_errors_are_not_retried() {
    for status in [400, 401, 404, 422] {
        let server = server([Reply::http(status, "bad request"), Reply::Content("never".into())]);

        let error = quick_client(&server).complete(ChatRequest::default()).await.unwrap_err();

        assert_eq!(error, ModelError::Status { status, body_head: "bad request".into() });
        assert_eq!(server.n_requests(), 1, "HTTP {status} was not retried");
    }
}

#[tokio::test]
async fn x_should_retry_false_is_honoured() {
    let server = server([Reply::http(503, "down").with_header("x-should-retry", "false"), Reply::Content("ok".into())]);

    let error = quick_client(&server).complete(ChatRequest::default()).await.unwrap_err();

    assert_eq!(error, ModelError::Status { status: 503, body_head: "down".into() });
    assert_eq!(server.n_requests(), 1);
}

#[tokio::test]
async fn exhausted_retries_name_the_attempts() {
    let first = server((0..5).map(|_| Reply::http(503, "overloaded")));

    let error = quick_client(&first).complete(ChatRequest::default()).await.unwrap_err();

    let ModelError::Status { status, body_head } = &error else { panic!("expected a status error, got {error:?}") };
    assert_eq!(*status, 503);
    assert_eq!(body_head, "overloaded (gave up after 4 attempts)");
    assert!(error.to_string().contains("HTTP 503: overloaded (gave up after 4 attempts)"), "{error}");
    assert_eq!(first.n_requests(), 4, "1 attempt and 3 retries");

    let second = server((0..5).map(|_| Reply::http(429, "")));
    let error = quick_client(&second).with_max_retries(1).complete(ChatRequest::default()).await.unwrap_err();
    assert_eq!(error, ModelError::Status { status: 429, body_head: "(gave up after 2 attempts)".into() });
    assert_eq!(second.n_requests(), 2);
}

#[tokio::test]
async fn a_failure_after_retries_says_which_attempt() {
    let server = server([Reply::http(502, ""), Reply::http(400, "no such model"), Reply::Content("never".into())]);

    let error = quick_client(&server).complete(ChatRequest::default()).await.unwrap_err();

    assert_eq!(error, ModelError::Status { status: 400, body_head: "no such model (on attempt 2)".into() });
    assert_eq!(server.n_requests(), 2);
}

#[tokio::test]
async fn refused_connections_are_retried_then_named() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let policy = RetryPolicy { initial_backoff: Duration::from_millis(100), ..RetryPolicy::default() };
    let client = OpenAiClient::new(config(format!("http://127.0.0.1:{port}/v1"))).unwrap().with_retry_policy(policy);

    let started = Instant::now();
    let error = client.complete(ChatRequest::default()).await.unwrap_err();
    let elapsed = started.elapsed();

    let ModelError::Connect { url, message } = &error else { panic!("expected Connect, got {error:?}") };
    assert!(url.contains(&format!("127.0.0.1:{port}")), "{url}");
    assert!(message.ends_with("(gave up after 4 attempts)"), "{message}");
    // 75..100 + 150..200 + 300..400 ms of backoff.
    assert!(elapsed >= Duration::from_millis(525) && elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn the_call_timeout_bounds_retries() {
    let server = server([Reply::http(503, "busy").with_header("retry-after", "30"), Reply::Content("ok".into())]);
    let request = ChatRequest { timeout: Some(Duration::from_secs(1)), ..ChatRequest::default() };

    let started = Instant::now();
    let error = client(&server).complete(request).await.unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(3), "did not wait 30 s past a 1 s timeout");
    assert_eq!(error, ModelError::Status { status: 503, body_head: "busy".into() });
    assert_eq!(server.n_requests(), 1);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let server = server([Reply::Content("late".into()).delayed(Duration::from_secs(60))]);
    let client = client(&server).with_timeout(Duration::from_secs(2));

    let started = Instant::now();
    let error = client.complete(ChatRequest::default()).await.unwrap_err();
    let elapsed = started.elapsed();

    assert_eq!(error, ModelError::Timeout { after: Duration::from_secs(2) });
    assert!(error.to_string().contains("within 2s"), "{error}");
    assert!(elapsed >= Duration::from_millis(1900) && elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert_eq!(server.n_requests(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn a_streamed_call_is_retried_before_it_starts() {
    let server = server([Reply::http(503, "warming up"), Reply::streamed_text(["a", "b"])]);
    let mut texts = Vec::new();

    let response = quick_client(&server)
        .complete_streaming(ChatRequest::default(), &mut |delta| {
            if let StreamDelta::Text(text) = delta {
                texts.push(text);
            }
        })
        .await
        .unwrap();

    assert_eq!(response.message.text_content(), "ab");
    assert_eq!(texts, ["a", "b"], "nothing from the failed attempt");
    assert_eq!(server.n_requests(), 2);
}

#[tokio::test]
async fn no_base_url_fails_clearly_and_sends_nothing() {
    // Everything the client sends goes through this proxy: a request anywhere would reach it.
    let proxy = server([Reply::Content("never".into())]);
    hook_llm::install_tls_provider();
    let http = reqwest::Client::builder()
        .proxy(reqwest::Proxy::all(format!("http://{}", proxy.addr())).unwrap())
        .build()
        .unwrap();
    let config = OpenAiConfig::from_lookup(|name| match name {
        "OPENAI_API_KEY" => Some("sk-test".into()),
        "HOOKWIRE_MODEL" => Some("qwen".into()),
        _ => None,
    });
    assert_eq!(config.base_url, "", "no public endpoint by default");
    let client = OpenAiClient::with_http_client(config, http);

    let started = Instant::now();
    let error = client.complete(ChatRequest::default()).await.unwrap_err();
    let streamed = client.complete_streaming(ChatRequest::default(), &mut |_| {}).await.unwrap_err();

    let ModelError::Client { message } = &error else { panic!("expected a Client error, got {error:?}") };
    for variable in ["OPENAI_BASE_URL", "OPENAI_API_KEY", "HOOKWIRE_MODEL"] {
        assert!(message.contains(variable), "the error names {variable}: {message}");
    }
    assert_eq!(error.to_string(), *message);
    assert_eq!(streamed, error);
    assert!(started.elapsed() < Duration::from_secs(1), "no retries: {:?}", started.elapsed());
    assert_eq!((proxy.n_connections(), proxy.n_requests()), (0, 0), "nothing was sent anywhere");
    assert!(OpenAiClient::new(OpenAiConfig::from_lookup(|_| None)).is_ok(), "the client itself can be built");
}

/// `at` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    let month_name =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][(month - 1) as usize];
    format!("{weekday}, {day:02} {month_name} {year} {:02}:{:02}:{:02} GMT", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[test]
fn the_test_date_formatter() {
    assert_eq!(http_date(UNIX_EPOCH + Duration::from_secs(784_111_777)), "Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(http_date(UNIX_EPOCH + Duration::from_secs(951_825_600)), "Tue, 29 Feb 2000 12:00:00 GMT");
}
