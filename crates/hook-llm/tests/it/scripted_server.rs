//! The ScriptedServer itself: replies in order, then `500 script exhausted`; delays; other
//! paths are 404; every request is recorded; dropping it closes the port.

use crate::common;

use std::time::{Duration, Instant};

use common::{client, server};
use hook_llm::{ChatModel, ChatRequest, ModelError, Reply};

#[tokio::test]
async fn replies_in_order_then_exhausted() {
    let server =
        server([Reply::Content("one".into()), Reply::Content("two".into()).delayed(Duration::from_millis(50))]);
    let client = client(&server);

    let first = client.complete(ChatRequest::default()).await.unwrap();
    let started = Instant::now();
    let second = client.complete(ChatRequest::default()).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(50));
    let third = client.complete(ChatRequest::default()).await.unwrap_err();

    assert_eq!(first.message.text_content(), "one");
    assert_eq!(second.message.text_content(), "two");
    let ModelError::Status { status, body_head } = third else { panic!("expected a status error, got {third:?}") };
    assert_eq!(status, 500);
    assert!(body_head.contains("script exhausted"), "{body_head}");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn other_paths_are_404_and_recorded() {
    let server = server([Reply::Content("unused".into())]);
    hook_llm::install_tls_provider();
    let response = reqwest::Client::new()
        .post(format!("{}/embeddings", server.base_url()))
        .header("x-probe", "1")
        .body("not json")
        .send()
        .await
        .unwrap();

    assert_eq!(response.status().as_u16(), 404);
    let recorded = server.recorded();
    assert_eq!(recorded[0].path, "/v1/embeddings");
    assert_eq!(recorded[0].header("X-Probe"), Some("1"));
    assert_eq!(recorded[0].body, serde_json::json!("not json"));
}

#[tokio::test]
async fn dropping_the_server_closes_its_port() {
    let server = server([Reply::Content("{}".into()).delayed(Duration::from_secs(30))]);
    let addr = server.addr();
    let client = client(&server);
    // A request is pending in a 30 s delay when the server is dropped.
    let pending = tokio::spawn(async move { client.complete(ChatRequest::default()).await });
    while server.n_requests() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    let started = Instant::now();
    drop(server);

    assert!(started.elapsed() < Duration::from_secs(5), "drop waited for the delay");
    let error = pending.await.unwrap().unwrap_err();
    assert!(matches!(error, ModelError::Transport { .. } | ModelError::Connect { .. }), "{error:?}");
    assert!(std::net::TcpStream::connect(addr).is_err(), "nothing listens on {addr} any more");
}
