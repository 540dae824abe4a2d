//! HTTPS: the clients carry rustls with ring as its crypto provider (reqwest without a built-in
//! one). An https base URL is tried as TLS — a server that answers in plain text fails the
//! handshake — and never ends in a panic for want of a provider.

use std::{
    io::{Read, Write},
    net::TcpListener,
    thread,
};

use hook_llm::{ChatModel, ChatRequest, ModelError, OpenAiClient, OpenAiConfig, RetryPolicy};

/// A server on 127.0.0.1 that answers one connection in plain HTTP, whatever it is sent, and
/// returns the first bytes it read.
fn plain_text_server() -> (u16, thread::JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut first = vec![0u8; 5];
        let n = stream.read(&mut first).unwrap_or(0);
        first.truncate(n);
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}");
        first
    });
    (port, handle)
}

#[tokio::test]
async fn an_https_url_is_tried_as_tls() {
    let (port, server) = plain_text_server();
    let config = OpenAiConfig {
        base_url: format!("https://127.0.0.1:{port}/v1"),
        api_key: Some("sk-test".into()),
        model: "m".into(),
    };
    let client = OpenAiClient::new(config).unwrap().with_retry_policy(RetryPolicy::none());

    let error = client.complete(ChatRequest::default()).await.unwrap_err();

    let first = server.join().unwrap();
    // A TLS handshake record (0x16), version 3.x: the client spoke TLS to the server.
    assert!(first.len() >= 2 && first[0] == 0x16 && first[1] == 0x03, "not a TLS ClientHello: {first:?}");
    let (ModelError::Connect { url, message } | ModelError::Transport { url, message }) = &error else {
        panic!("expected a connection error, got {error:?}");
    };
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    assert!(!message.is_empty(), "the error says why: {error}");
    assert!(rustls::crypto::CryptoProvider::get_default().is_some(), "a provider is installed");
}
