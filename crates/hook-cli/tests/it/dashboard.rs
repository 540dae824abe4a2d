//! `hookwire ui` in a real headless Chromium (Debian's `chromium`, driven by Python
//! Playwright): a denial recorded by the bridge is shown with its reason and its hook's source
//! file:line, and a fire recorded after the page loaded appears without a reload. Also what
//! the server refuses: no token, a wrong one, another origin, another Host.
//!
//! Without chromium or Playwright the browser test is skipped with the reason printed, unless
//! `CI` is set and `HOOKWIRE_REQUIRE_BROWSER=1`, when it fails.

// A skipped test says why on stderr.
#![allow(clippy::print_stderr)]

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::TcpStream,
    path::Path,
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use crate::{common::python, store::Recorded};

/// The Chromium the test drives: Debian's, unless `HOOKWIRE_CHROMIUM` names another.
fn chromium() -> String {
    std::env::var("HOOKWIRE_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned())
}

/// Why the browser test cannot run here, if it cannot.
fn browser_missing() -> Option<String> {
    let chromium = chromium();
    if !Path::new(&chromium).exists() {
        return Some(format!("{chromium} is not installed (apt-get install chromium)"));
    }
    let probe = Command::new(python()).args(["-c", "import playwright.sync_api"]).output();
    match probe {
        Ok(output) if output.status.success() => None,
        _ => Some("Python Playwright is not installed (pip install playwright)".to_owned()),
    }
}

/// `true` when the test may run; prints why it is skipped, or fails where a browser is
/// required.
fn browser_available() -> bool {
    let Some(why) = browser_missing() else { return true };
    let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        && std::env::var("HOOKWIRE_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    assert!(!required, "the dashboard's browser test is required here (CI, HOOKWIRE_REQUIRE_BROWSER=1): {why}");
    eprintln!("skipped: the dashboard's browser test needs a headless Chromium: {why}");
    false
}

/// `hookwire ui` on the project's store, and the URL it printed.
struct Ui {
    child: Child,
    url: String,
}

impl Ui {
    fn start(recorded: &Recorded) -> Ui {
        let mut child = recorded.hookwire(&["ui"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = stdout.read_line(&mut line);
            let _ = sender.send(line);
            // Keep reading so the server never blocks on a full pipe.
            let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        });
        let line = receiver.recv_timeout(Duration::from_secs(30)).expect("`hookwire ui` prints its URL");
        let url =
            line.trim().strip_prefix("hookwire ui: ").unwrap_or_else(|| panic!("unexpected: {line:?}")).to_owned();
        assert!(url.starts_with("http://127.0.0.1:") && url.contains("/?token="), "{url}");
        Ui { child, url }
    }

    fn port(&self) -> u16 {
        self.url["http://127.0.0.1:".len()..].split('/').next().unwrap().parse().unwrap()
    }

    fn token(&self) -> &str {
        self.url.split("token=").nth(1).unwrap()
    }

    /// The status line of a raw GET of `target` with `headers`.
    fn status(&self, target: &str, headers: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port())).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(stream, "GET {target} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n").unwrap();
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        response.lines().next().unwrap_or_default().to_owned()
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_server_answers_only_with_its_token_its_host_and_its_origin() {
    let recorded = Recorded::new("ui-refusals");
    recorded.call("s", "curl x");
    let ui = Ui::start(&recorded);
    let host = format!("Host: 127.0.0.1:{}\r\n", ui.port());
    let token = ui.token().to_owned();
    assert!(ui.status(&format!("/?token={token}"), &host).contains("200"));
    assert!(ui.status(&format!("/api/fires?token={token}"), &host).contains("200"));
    assert!(ui.status("/", &host).contains("403"), "no token");
    assert!(ui.status("/api/fires", &host).contains("403"), "no token");
    assert!(ui.status("/api/fires?token=0123456789abcdef0123456789abcdef", &host).contains("403"), "wrong token");
    let evil = format!("{host}Origin: http://evil.example\r\n");
    assert!(ui.status(&format!("/api/fires?token={token}"), &evil).contains("403"), "foreign origin");
    let rebound = "Host: evil.example\r\n";
    assert!(ui.status(&format!("/api/fires?token={token}"), rebound).contains("403"), "foreign host");
    let own = format!("{host}Origin: http://127.0.0.1:{}\r\n", ui.port());
    assert!(ui.status(&format!("/api/fires?token={token}"), &own).contains("200"), "its own origin");
}

/// The Playwright script: loads the page, checks the denial, waits for the test to fire again,
/// checks the new fire appears without a reload, and saves screenshots.
const SCRIPT: &str = r##"
import json, sys
from playwright.sync_api import sync_playwright

url, shots, reason, source, second, chromium = sys.argv[1:7]
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=chromium, headless=True,
                                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    card = page.locator("article.fire.deny").first
    card.wait_for(timeout=20000)
    text = card.inner_text()
    assert reason in text, "the reason %r is not in the card: %r" % (reason, text)
    assert source in text, "the hook source %r is not in the card: %r" % (source, text)
    page.evaluate("window.__loaded_once = true")
    page.locator("#live.on").wait_for(timeout=20000)
    print("loaded", flush=True)
    assert sys.stdin.readline().strip() == "fired"
    page.locator("article.fire", has_text=second).first.wait_for(timeout=20000)
    assert page.evaluate("window.__loaded_once === true"), "the page was reloaded"
    page.screenshot(path=shots + "/dashboard-wide.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=shots + "/dashboard-phone.png", full_page=True)
    assert not errors, "errors in the page: %r" % errors
    browser.close()
print("ok", flush=True)
"##;

#[test]
fn the_dashboard_shows_a_denial_with_its_source_and_a_later_fire_without_a_reload() {
    if !browser_available() {
        return;
    }
    let recorded = Recorded::new("ui-browser");
    let denied = recorded.call("session-denied", "curl https://example.invalid/secret");
    let reason = denied.deny_reason();
    let fires = recorded.log(&[]);
    let hook = &fires[0]["hooks"][0];
    let source = format!("{}:{}", hook["source_file"].as_str().unwrap(), hook["source_line"]);
    let ui = Ui::start(&recorded);
    let shots = recorded.project.path("shots");
    std::fs::create_dir_all(&shots).unwrap();
    let script = recorded.project.write("dashboard.py", SCRIPT);
    let mut browser = Command::new(python())
        .arg(&script)
        .args([&ui.url, &shots.display().to_string(), reason.trim(), &source, "session-later", &chromium()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(browser.stdout.take().unwrap());
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        while stdout.read_line(&mut line).unwrap_or(0) > 0 {
            let _ = sender.send(line.trim().to_owned());
            line.clear();
        }
    });
    let failure = |browser: &mut Child| {
        let _ = browser.kill();
        let mut stderr = String::new();
        let _ = browser.stderr.take().unwrap().read_to_string(&mut stderr);
        stderr
    };
    match receiver.recv_timeout(Duration::from_secs(90)) {
        Ok(line) if line == "loaded" => {}
        other => panic!("the page did not show the denial ({other:?}):\n{}", failure(&mut browser)),
    }
    let later = recorded.call("session-later", "echo after the page loaded");
    assert_eq!(later.permission(), None, "{}", later.describe());
    writeln!(browser.stdin.as_mut().unwrap(), "fired").unwrap();
    match receiver.recv_timeout(Duration::from_secs(60)) {
        Ok(line) if line == "ok" => {}
        other => panic!("the new fire did not appear ({other:?}):\n{}", failure(&mut browser)),
    }
    assert!(browser.wait().unwrap().success());
    for shot in ["dashboard-wide.png", "dashboard-phone.png"] {
        let size = std::fs::metadata(shots.join(shot)).map(|m| m.len()).unwrap_or(0);
        assert!(size > 10_000, "{shot} is {size} bytes");
    }
    if let Some(keep) = std::env::var_os("HOOKWIRE_KEEP_SCREENSHOTS") {
        for shot in ["dashboard-wide.png", "dashboard-phone.png"] {
            let _ = std::fs::copy(shots.join(shot), Path::new(&keep).join(shot));
        }
    }
}
