//! The model client follows no redirect: the prompt (with the conversation and the bearer
//! token) never goes to another origin, and a redirect's answer is never taken for the model's.

use crate::common;

use common::{API_KEY, HOST_MODEL};
use hook_llm::{ChatModel, ChatRequest, ModelError, OpenAiClient, OpenAiConfig, Reply, ScriptedServer};

fn client_of(server: &ScriptedServer) -> OpenAiClient {
    let config = OpenAiConfig { base_url: server.base_url(), api_key: Some(API_KEY.into()), model: HOST_MODEL.into() };
    OpenAiClient::new(config).unwrap()
}

#[tokio::test]
async fn a_redirect_is_an_error_and_its_target_sees_nothing() {
    for status in [307, 308, 302, 301] {
        let elsewhere = ScriptedServer::always(Reply::Content("the attacker's answer".into())).unwrap();
        let target = format!("{}/chat/completions", elsewhere.base_url());
        let server = ScriptedServer::start([Reply::http(status, "moved").with_header("location", target)]).unwrap();
        let client = client_of(&server);

        let error = client.complete(ChatRequest::default()).await.unwrap_err();

        let ModelError::Status { status: got, .. } = &error else {
            panic!("{status}: expected a status error, got {error:?}")
        };
        assert_eq!(*got, status);
        assert_eq!(elsewhere.n_requests(), 0, "{status}: the redirect target must receive nothing");
        assert_eq!(server.n_requests(), 1, "{status}: a redirect is not retried");
    }
}
