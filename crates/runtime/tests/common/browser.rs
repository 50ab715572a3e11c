//! Headless Chromium for the web UI's tests: the `chromium` command line
//! for a rendered DOM (`--dump-dom`) and a screenshot, and ChromeDriver
//! (W3C WebDriver over HTTP) for clicks. Both come from Debian's
//! `chromium` and `chromium-driver` packages, which `.ci/run` installs.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The flags every run takes: headless, no sandbox (CI runs as root), and
/// none of the background traffic a closed network refuses.
fn flags(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect()
}

/// Why the browser tests cannot run here, if they cannot.
pub fn missing() -> Option<String> {
    for p in [CHROMIUM, CHROMEDRIVER] {
        if !Path::new(p).exists() {
            return Some(format!(
                "{p} is not installed (Debian packages chromium and chromium-driver)"
            ));
        }
    }
    None
}

/// The DOM of `url` after it loaded, as Chromium serialises it.
pub fn dump_dom(url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(CHROMIUM)
        .args(flags(profile.path()))
        .arg("--dump-dom")
        .arg(url)
        .stderr(Stdio::null())
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium --dump-dom {url}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A screenshot of `url` at `width` x `height`, written to `to`.
pub fn screenshot(url: &str, to: &Path, width: u32, height: u32) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(CHROMIUM)
        .args(flags(profile.path()))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", to.display()))
        .arg(url)
        .stderr(Stdio::null())
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium --screenshot {url}: {out:?}");
}

/// Width and height of a PNG file, from its header.
pub fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");
    let be = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// A browser driven through ChromeDriver.
pub struct Driver {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempfile::TempDir,
}

impl Driver {
    /// Start ChromeDriver and a headless browser session.
    pub async fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        for _ in 0..200 {
            if http
                .get(format!("{base}/status"))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": flags(profile.path())}
        }}});
        let r: Value = http
            .post(format!("{base}/session"))
            .json(&caps)
            .send()
            .await
            .expect("chromedriver answers")
            .json()
            .await
            .unwrap();
        let session = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {r}"))
            .to_string();
        Driver {
            driver,
            base,
            session,
            http,
            _profile: profile,
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let r: Value = self
            .http
            .request(method, url)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        r["value"].clone()
    }

    /// Load `url` and wait for it.
    pub async fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", json!({ "url": url }))
            .await;
    }

    /// The first element matching a CSS selector.
    pub async fn find(&self, css: &str) -> Option<String> {
        let v = self
            .call(
                reqwest::Method::POST,
                "/element",
                json!({"using": "css selector", "value": css}),
            )
            .await;
        // A found element is `{"element-6066-...": id}`; a miss is an error
        // object.
        v.get("element-6066-11e4-a52e-4f735466cecf")?
            .as_str()
            .map(str::to_string)
    }

    /// Click an element.
    pub async fn click(&self, element: &str) {
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/click"),
            json!({}),
        )
        .await;
    }

    /// The rendered text of the first element matching `css`.
    pub async fn text(&self, css: &str) -> Option<String> {
        let e = self.find(css).await?;
        self.call(
            reqwest::Method::GET,
            &format!("/element/{e}/text"),
            json!({}),
        )
        .await
        .as_str()
        .map(str::to_string)
    }

    /// Run a script in the page (a returned promise is awaited).
    pub async fn script(&self, js: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            json!({"script": js, "args": []}),
        )
        .await
    }

    /// The page's URL.
    pub async fn url(&self) -> String {
        self.call(reqwest::Method::GET, "/url", json!({}))
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Best effort: end the browser session, then the driver.
        let url = format!("{}/session/{}", self.base, self.session);
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let _ = reqwest::Client::new().delete(url).send().await;
            });
        })
        .join();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Where a test keeps its screenshots: `target/ui-shots` (not cleaned by
/// tests, so they can be looked at).
pub fn shot_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ui-shots");
    std::fs::create_dir_all(&d).unwrap();
    d
}
