//! `hookwire ui`: a local web dashboard of the decision store (docs/observability.md).
//!
//! A small HTTP/1.1 server on tokio's `TcpListener`, written here rather than taken from a
//! framework: it answers a handful of GET requests and one server-sent event stream, one
//! request per connection, which fits in this file; hyper is in the dependency tree (through
//! reqwest) but only as a client, and its server side would bring more code than it saves.
//!
//! It listens on 127.0.0.1 only, on a random port unless `--port`, and answers only requests
//! that carry the random token of the URL it prints, name this server in `Host` (a page of
//! another site that resolves its own name to 127.0.0.1 is refused) and, when they have an
//! `Origin`, come from this server's. The page (one HTML file, its CSS and JavaScript inline) is
//! in the binary: no CDN, no network.

use std::{collections::BTreeMap, io::Read as _, time::Duration};

use clap::Args;
use hook_store::{Filter, Reader};
use serde_json::json;
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::{TcpListener, TcpStream},
};

use crate::log::{StoreArgs, fire_json, parse_age};

/// The dashboard page.
const PAGE: &str = include_str!("ui.html");

/// The largest request head read.
const MAX_HEAD: usize = 16 * 1024;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// How often the event stream looks for new rows.
const POLL_EVERY: Duration = Duration::from_millis(300);

/// `hookwire ui`.
#[derive(Debug, Args)]
pub(crate) struct UiArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Listen on this port of 127.0.0.1 (default: a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
}

/// What every request is checked against.
#[derive(Debug)]
struct Server {
    token: String,
    port: u16,
    store: std::path::PathBuf,
}

pub(crate) async fn run(args: UiArgs) -> u8 {
    let store = match args.store.path() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return 1;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    let token = match random_token() {
        Ok(token) => token,
        Err(e) => {
            eprintln!("error: cannot read /dev/urandom for the dashboard's token: {e}");
            return 1;
        }
    };
    if !store.exists() {
        eprintln!("note: nothing recorded yet at {}; the page fills in as fires are recorded", store.display());
    }
    outln!("hookwire ui: http://127.0.0.1:{port}/?token={token}");
    let server = std::sync::Arc::new(Server { token, port, store });
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let server = std::sync::Arc::clone(&server);
        tokio::spawn(async move {
            let _ = server.serve(stream).await;
        });
    }
}

/// 128 random bits, hex.
fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A parsed request head.
#[derive(Debug)]
struct Request {
    method: String,
    path: String,
    query: BTreeMap<String, String>,
    headers: BTreeMap<String, String>,
}

fn parse_head(head: &str) -> Option<Request> {
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let target = first.next()?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key), percent_decode(value))
        })
        .collect();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Some(Request { method, path: percent_decode(path), query, headers })
}

/// `%XX` and `+` decoded; invalid escapes kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `a` and `b` are equal, in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         Referrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n\
         Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
         connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    stream.shutdown().await
}

async fn refuse(stream: &mut TcpStream, status: &str, why: &str) -> std::io::Result<()> {
    respond(stream, status, "text/plain; charset=utf-8", format!("hookwire ui: {why}\n").as_bytes()).await
}

impl Server {
    async fn serve(&self, mut stream: TcpStream) -> std::io::Result<()> {
        let Some(request) = read_head(&mut stream).await? else {
            return refuse(&mut stream, "400 Bad Request", "a GET request head was expected").await;
        };
        if request.method != "GET" {
            return refuse(&mut stream, "405 Method Not Allowed", "only GET is served").await;
        }
        let ours = [format!("127.0.0.1:{}", self.port), format!("localhost:{}", self.port)];
        if !request.headers.get("host").is_some_and(|host| ours.iter().any(|o| o == host)) {
            return refuse(&mut stream, "403 Forbidden", "the Host header does not name this server").await;
        }
        if let Some(origin) = request.headers.get("origin")
            && !ours.iter().any(|o| *origin == format!("http://{o}"))
        {
            return refuse(&mut stream, "403 Forbidden", "requests from another origin are refused").await;
        }
        if !request.query.get("token").is_some_and(|token| same(token, &self.token)) {
            return refuse(&mut stream, "403 Forbidden", "missing or wrong token: open the URL `hookwire ui` printed")
                .await;
        }
        match request.path.as_str() {
            "/" | "/index.html" => respond(&mut stream, "200 OK", "text/html; charset=utf-8", PAGE.as_bytes()).await,
            "/api/fires" => {
                let body = self.fires(&request.query);
                self.json(&mut stream, body).await
            }
            "/api/stats" => {
                let body = self.stats(&request.query);
                self.json(&mut stream, body).await
            }
            "/api/events" => self.events(stream, &request.query).await,
            _ => refuse(&mut stream, "404 Not Found", "no such page").await,
        }
    }

    async fn json(&self, stream: &mut TcpStream, body: Result<serde_json::Value, String>) -> std::io::Result<()> {
        match body {
            Ok(value) => respond(stream, "200 OK", "application/json", value.to_string().as_bytes()).await,
            Err(why) => {
                let value = json!({ "error": why });
                respond(stream, "503 Service Unavailable", "application/json", value.to_string().as_bytes()).await
            }
        }
    }

    fn reader(&self) -> Result<Option<Reader>, String> {
        // Bridge calls leave their fires in the spool until a reader imports them.
        if !self.store.exists() && !hook_store::spool_pending(&self.store) {
            return Ok(None);
        }
        Reader::open(&self.store).map(Some).map_err(|e| e.to_string())
    }

    fn filter(query: &BTreeMap<String, String>) -> Result<Filter, String> {
        let text = |name: &str| query.get(name).filter(|v| !v.is_empty()).cloned();
        let since_ms = match text("since") {
            Some(age) => Some(hook_store::now_ms() - i64::try_from(parse_age(&age)?.as_millis()).unwrap_or(0)),
            None => None,
        };
        Ok(Filter {
            session: text("session"),
            agent: text("agent"),
            project: text("project"),
            decision: text("decision"),
            hook: text("hook"),
            rule: text("rule"),
            since_ms,
            after_id: text("after").and_then(|v| v.parse().ok()),
            limit: text("limit").and_then(|v| v.parse().ok()).unwrap_or(500).min(5000),
        })
    }

    fn fires(&self, query: &BTreeMap<String, String>) -> Result<serde_json::Value, String> {
        let filter = Server::filter(query)?;
        let Some(reader) = self.reader()? else { return Ok(json!({ "fires": [], "last_id": 0 })) };
        let fires = reader.fires(&filter).map_err(|e| e.to_string())?;
        let last_id = reader.last_id().map_err(|e| e.to_string())?;
        Ok(json!({ "fires": fires.iter().map(fire_json).collect::<Vec<_>>(), "last_id": last_id }))
    }

    fn stats(&self, query: &BTreeMap<String, String>) -> Result<serde_json::Value, String> {
        let filter = Server::filter(query)?;
        let Some(reader) = self.reader()? else { return Ok(json!({ "hooks": [], "dropped": { "rows": 0 } })) };
        let hooks = reader.stats(filter.since_ms).map_err(|e| e.to_string())?;
        Ok(json!({ "hooks": hooks, "dropped": reader.drops(filter.since_ms) }))
    }

    /// The event stream: every fire recorded after `after`, as it lands (`event: fire`).
    async fn events(&self, mut stream: TcpStream, query: &BTreeMap<String, String>) -> std::io::Result<()> {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
                    X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 1000\n\n";
        stream.write_all(head.as_bytes()).await?;
        let mut after: i64 = query.get("after").and_then(|v| v.parse().ok()).unwrap_or(0);
        let mut reader: Option<Reader> = None;
        let mut quiet = Duration::ZERO;
        loop {
            if reader.is_none() {
                reader = self.reader().ok().flatten();
            }
            let mut sent = false;
            if let Some(open) = &reader {
                let filter = Filter { after_id: Some(after), limit: 200, ..Filter::default() };
                match open.fires(&filter) {
                    Ok(fires) => {
                        for fire in &fires {
                            let message = format!("id: {}\nevent: fire\ndata: {}\n\n", fire.id, fire_json(fire));
                            stream.write_all(message.as_bytes()).await?;
                            after = fire.id;
                            sent = true;
                        }
                    }
                    Err(_) => reader = None,
                }
            }
            quiet = if sent { Duration::ZERO } else { quiet + POLL_EVERY };
            if quiet >= Duration::from_secs(15) {
                // A comment line: finds a closed connection, keeps proxies from timing out.
                stream.write_all(b": ping\n\n").await?;
                quiet = Duration::ZERO;
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
    }
}

/// Reads a request head (up to the blank line); `None` when it is not one.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    let read = tokio::time::timeout(HEAD_TIMEOUT, async {
        loop {
            let n = stream.read(&mut buffer).await?;
            if n == 0 {
                return Ok::<bool, std::io::Error>(false);
            }
            head.extend_from_slice(&buffer[..n]);
            if head.windows(4).any(|w| w == b"\r\n\r\n") {
                return Ok(true);
            }
            if head.len() > MAX_HEAD {
                return Ok(false);
            }
        }
    })
    .await;
    match read {
        Ok(Ok(true)) => Ok(parse_head(&String::from_utf8_lossy(&head))),
        Ok(Ok(false)) | Err(_) => Ok(None),
        Ok(Err(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_heads_and_escapes_are_read() {
        let request =
            parse_head("GET /api/fires?token=ab%2Fc&hook=user%3Aguard+x HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
                .unwrap();
        assert_eq!(request.path, "/api/fires");
        assert_eq!(request.query["token"], "ab/c");
        assert_eq!(request.query["hook"], "user:guard x");
        assert_eq!(request.headers["host"], "127.0.0.1:9");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }
}
