//! Browser tests: the web apps in a real headless Chromium, driven over the
//! DevTools protocol with chromiumoxide.
//!
//! A scenario is a plain `#[test]`: it spawns a `TestApp`, then
//! `Browser::launch` starts a Chromium of its own (fresh profile, 1280×800) on
//! a tokio runtime of its own, and every step below blocks until done:
//!
//! ```ignore
//! let app = TestApp::spawn();
//! let Some(mut browser) = Browser::launch(&app) else { return };
//! browser.login_as_owner();
//! browser.nav("menu");
//! browser.screenshot("menu");
//! browser.finish();
//! ```
//!
//! Without a Chromium (`$BRIGADE_CHROMIUM`, `/usr/bin/chromium`, or `chromium`
//! on `PATH`) `launch` prints one line and returns `None`, so the scenario
//! passes as skipped; with `BRIGADE_REQUIRE_BROWSER=1` it fails instead.
//!
//! The page's console errors, uncaught exceptions and browser log errors (a
//! Content-Security-Policy violation, a failed load) are collected; `finish`
//! (or the end of the scenario) fails on any. A network answer in the 4xx range
//! is not one: the app shows those. A step that waits fails after the timeout
//! with the selector in its message and a screenshot of the page.

mod attendance;
mod back_office;
mod campaigns;
mod floor;
mod harness;
mod integrations;
mod kitchen;
mod pairing;
mod reservations;
mod schedule;
mod shell;
mod staff;

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};

use brigade::auth::Role;
use chromiumoxide::browser::BrowserConfig;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::browser_protocol::log::{EventEntryAdded, LogEntryLevel, LogEntrySource};
use chromiumoxide::cdp::js_protocol::runtime::{
    ConsoleApiCalledType, EventConsoleApiCalled, EventExceptionThrown, RemoteObject,
};
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::keys;
use chromiumoxide::layout::Point;
use chromiumoxide::page::ScreenshotParams;
use chromiumoxide::Page;
use futures::StreamExt;
use rocket::tokio;
use rocket::tokio::runtime::Runtime;
use rocket::tokio::task::JoinHandle;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tempfile::TempDir;
use uuid::Uuid;

use crate::helpers::{TestApp, PASSWORD};

/// The owner `TestApp::spawn` makes.
pub const OWNER_EMAIL: &str = "owner@test.example";

pub const DESKTOP: (u32, u32) = (1280, 800);
/// A 10-inch tablet held in landscape.
pub const TABLET: (u32, u32) = (1024, 768);

/// How long a step waits by default before it fails.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);

const POLL: Duration = Duration::from_millis(50);

const NO_CHROMIUM: &str =
    "no Chromium found (install the chromium package, or set BRIGADE_CHROMIUM)";

/// The Chromium to drive: `$BRIGADE_CHROMIUM`, `/usr/bin/chromium`, or
/// `chromium` on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("BRIGADE_CHROMIUM").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "BRIGADE_CHROMIUM is {}, which is not a file",
            path.display()
        );
        return Some(path);
    }
    let installed = PathBuf::from("/usr/bin/chromium");
    if installed.is_file() {
        return Some(installed);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("chromium"))
        .find(|path| path.is_file())
}

/// `target/`: `$CARGO_TARGET_DIR`, or the one beside Cargo.toml.
pub fn target_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("CARGO_TARGET_DIR").filter(|p| !p.is_empty()) {
        Some(dir) => manifest.join(dir),
        None => manifest.join("target"),
    }
}

/// Where `Browser::screenshot` writes: `target/screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    target_dir().join("screenshots")
}

/// A new user of `role` in the app's tenant, with `helpers::PASSWORD`; returns
/// the email to log in with.
pub fn new_user(app: &TestApp, role: Role) -> String {
    let email = format!("{}-{}@test.example", role.as_str(), Uuid::now_v7().simple());
    app.create_user(&app.tenant_id, &email, role);
    email
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A JS string literal (or `null`) for a value.
fn js(value: Option<&str>) -> String {
    serde_json::to_string(&value).expect("a string serializes")
}

/// Finds the first visible element matching `sel` whose text contains `text`
/// (when not null), as `el`; then runs `body`, which returns a JSON value. An
/// invalid selector comes back as `{ error }`.
fn probe(selector: &str, text: Option<&str>, body: &str) -> String {
    format!(
        r#"(() => {{
  const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)
    && getComputedStyle(el).visibility !== "hidden";
  try {{
    const text = {text};
    const el = Array.from(document.querySelectorAll({selector})).find((el) => visible(el)
      && (text === null || (el.innerText || el.textContent || "").includes(text))) || null;
    {body}
  }} catch (e) {{
    return {{ error: String(e) }};
  }}
}})()"#,
        selector = js(Some(selector)),
        text = js(text),
    )
}

/// A readable line for a remote value in a console call.
fn describe(object: &RemoteObject) -> String {
    match &object.value {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => object
            .description
            .clone()
            .unwrap_or_else(|| format!("{:?}", object.r#type)),
    }
}

/// Chromium reports a response in error as "Failed to load resource: the
/// server responded with a status of 401 (Unauthorized)".
fn is_client_error_response(text: &str) -> bool {
    text.split("status of ")
        .nth(1)
        .is_some_and(|rest| rest.starts_with('4'))
}

/// The name of the running test, for failure screenshots: libtest names each
/// test's thread after it.
fn test_name() -> String {
    let name = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("browser")
        .to_string();
    name.replace("::", "-")
}

/// One Chromium with one tab on a `TestApp`'s server. Every method blocks.
pub struct Browser {
    base: String,
    name: String,
    timeout: Duration,
    errors: Arc<Mutex<Vec<String>>>,
    ignored: Vec<String>,
    finished: bool,
    failure_saved: bool,
    page: Page,
    chromium: chromiumoxide::Browser,
    tasks: Vec<JoinHandle<()>>,
    _profile: TempDir,
    runtime: Runtime,
}

impl Browser {
    /// Starts a Chromium for the server of `app`, on a blank tab. `None` when
    /// no Chromium is installed (after printing why, once per run), unless
    /// `BRIGADE_REQUIRE_BROWSER=1`.
    pub fn launch(app: &TestApp) -> Option<Browser> {
        let Some(executable) = find_chromium() else {
            assert!(
                std::env::var("BRIGADE_REQUIRE_BROWSER").as_deref() != Ok("1"),
                "{NO_CHROMIUM}, and BRIGADE_REQUIRE_BROWSER=1 requires one"
            );
            static SAID: Once = Once::new();
            // Straight to stderr: the test harness would swallow `eprintln!`.
            SAID.call_once(|| {
                let _ = writeln!(std::io::stderr(), "browser tests skipped: {NO_CHROMIUM}");
            });
            return None;
        };
        Some(Browser::start(&executable, &app.base))
    }

    fn start(executable: &Path, base: &str) -> Browser {
        let runtime = rocket::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let profile = tempfile::tempdir().expect("a profile dir");
        let (width, height) = DESKTOP;
        let config = BrowserConfig::builder()
            .chrome_executable(executable)
            .new_headless_mode()
            .no_sandbox()
            .user_data_dir(profile.path())
            .window_size(width, height)
            .viewport(Viewport {
                width,
                height,
                ..Viewport::default()
            })
            .launch_timeout(Duration::from_secs(60))
            .request_timeout(Duration::from_secs(60))
            .args([
                "disable-gpu",
                "disable-quic",
                "no-first-run",
                "disable-background-networking",
                "disable-component-update",
                "disable-sync",
            ])
            .build()
            .expect("a browser config");
        let errors = Arc::new(Mutex::new(Vec::new()));
        let (chromium, page, tasks) = runtime.block_on(async {
            let (chromium, mut handler) = chromiumoxide::Browser::launch(config)
                .await
                .unwrap_or_else(|e| panic!("{} did not start: {e}", executable.display()));
            // The handler drives the connection; it must be polled all along.
            let mut tasks = vec![tokio::spawn(async move {
                while handler.next().await.is_some() {}
            })];
            let page = chromium.new_page("about:blank").await.expect("a new tab");
            tasks.extend(collect_errors(&page, &errors).await);
            page.enable_log().await.expect("the Log domain");
            (chromium, page, tasks)
        });
        Browser {
            base: base.to_string(),
            name: test_name(),
            timeout: DEFAULT_TIMEOUT,
            errors,
            ignored: Vec::new(),
            finished: false,
            failure_saved: false,
            page,
            chromium,
            tasks,
            _profile: profile,
            runtime,
        }
    }

    /// The server's origin, `http://127.0.0.1:PORT`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// How long the waiting steps wait from now on.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The chromiumoxide tab, for what the helpers do not cover (with `block_on`).
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Runs a future on the browser's runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    // ---- navigation ----

    /// Loads `path` (`/admin/menu`) from the server and waits for its load event.
    pub fn open(&mut self, path: &str) {
        let url = format!("{}{path}", self.base);
        if let Err(e) = self.runtime.block_on(self.page.goto(url.as_str())) {
            self.fail(&format!("could not open {url}: {e}"));
        }
    }

    pub fn reload(&mut self) {
        if let Err(e) = self.runtime.block_on(self.page.reload()) {
            self.fail(&format!("could not reload: {e}"));
        }
    }

    /// The page's path and query, `/admin/menu`.
    pub fn path(&mut self) -> String {
        self.eval("location.pathname + location.search")
    }

    // ---- the admin app ----

    /// Logs in through the login form (opening `/admin/` when it is not shown)
    /// and waits for the sidebar.
    pub fn login(&mut self, email: &str, password: &str) {
        self.submit_login(email, password);
        self.wait_for("nav.sidebar");
    }

    pub fn login_as_owner(&mut self) {
        self.login(OWNER_EMAIL, PASSWORD);
    }

    /// Fills and submits the login form without waiting for what follows.
    pub fn submit_login(&mut self, email: &str, password: &str) {
        if !self.exists("input[name=email]") {
            self.open("/admin/");
        }
        self.fill("input[name=email]", email);
        self.fill("input[name=password]", password);
        self.click("button[type=submit]");
    }

    /// Clicks the sidebar's "Log out" and waits for the login form.
    pub fn logout(&mut self) {
        self.click("button[data-action=logout]");
        self.wait_for("input[name=email]");
    }

    /// Follows the sidebar link `a[data-nav=NAME]` (dashboard, floor, waitlist,
    /// reservations, orders, menu, integrations, settings) and waits until it
    /// is the current page.
    #[allow(dead_code)] // For the scenarios of each screen.
    pub fn nav(&mut self, name: &str) {
        self.click(&format!("a[data-nav={name}]"));
        self.wait_for(&format!("a[data-nav={name}][aria-current=page]"));
    }

    // ---- waiting and reading ----

    /// Waits until an element matching `selector` is visible.
    pub fn wait_for(&mut self, selector: &str) {
        self.wait_for_element(selector, None);
    }

    /// Waits until an element matching `selector` is visible and its text
    /// contains `text` (`"body"` for anywhere on the page).
    pub fn wait_for_text(&mut self, selector: &str, text: &str) {
        self.wait_for_element(selector, Some(text));
    }

    /// Waits until no element matching `selector` is visible.
    pub fn wait_gone(&mut self, selector: &str) {
        let script = probe(selector, None, "return { done: el === null };");
        self.poll(&format!("`{selector}` to go away"), &script, |v| {
            v["done"] == true
        });
    }

    /// Waits until the JS expression `condition` is truthy; `what` names it in
    /// the failure.
    pub fn wait_until(&mut self, what: &str, condition: &str) {
        let script = format!(
            "(async () => {{ try {{ return {{ done: !!(await ({condition})) }}; }} \
             catch (e) {{ return {{ done: false, last: String(e) }}; }} }})()"
        );
        self.poll(what, &script, |v| v["done"] == true);
    }

    /// Whether a visible element matches `selector` now (no waiting).
    pub fn exists(&mut self, selector: &str) -> bool {
        self.count(selector) > 0
    }

    /// How many visible elements match `selector` now (no waiting).
    pub fn count(&mut self, selector: &str) -> usize {
        self.texts(selector).len()
    }

    /// The text of the first visible element matching `selector`, trimmed,
    /// once there is one.
    pub fn text(&mut self, selector: &str) -> String {
        let found = self.wait_for_element(selector, None);
        found["text"].as_str().unwrap_or("").trim().to_string()
    }

    /// The texts of every visible element matching `selector` now, trimmed.
    pub fn texts(&mut self, selector: &str) -> Vec<String> {
        let script = format!(
            "(() => {{ try {{ return Array.from(document.querySelectorAll({}))
               .filter((el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)
                 && getComputedStyle(el).visibility !== 'hidden')
               .map((el) => (el.innerText || el.textContent || '').trim()); }}
             catch (e) {{ return {{ error: String(e) }}; }} }})()",
            js(Some(selector))
        );
        let value: Value = self.eval(&script);
        if let Some(error) = value.get("error") {
            self.fail(&format!("bad selector `{selector}`: {error}"));
        }
        serde_json::from_value(value).expect("a list of texts")
    }

    /// The `value` of the input matching `selector`, once visible.
    pub fn value(&mut self, selector: &str) -> String {
        let found = self.wait_for_element(selector, None);
        found["value"].as_str().unwrap_or("").to_string()
    }

    /// An attribute of the first visible element matching `selector`.
    pub fn attribute(&mut self, selector: &str, name: &str) -> Option<String> {
        self.wait_for(selector);
        let script = probe(
            selector,
            None,
            &format!("return {{ value: el.getAttribute({}) }};", js(Some(name))),
        );
        let value: Value = self.eval(&script);
        value["value"].as_str().map(str::to_string)
    }

    /// Evaluates a JS expression (a promise is awaited) and returns its JSON value.
    pub fn eval<T: DeserializeOwned>(&mut self, expression: &str) -> T {
        match self.try_eval(expression) {
            Ok(value) => serde_json::from_value(value.clone()).unwrap_or_else(|e| {
                self.fail(&format!(
                    "`{expression}` gave {value}, which does not read as wanted: {e}"
                ))
            }),
            Err(e) => self.fail(&format!("`{expression}` failed: {e}")),
        }
    }

    fn try_eval(&self, expression: &str) -> Result<Value, String> {
        let result = self
            .runtime
            .block_on(self.page.evaluate_expression(expression));
        match result {
            Ok(result) => Ok(result.value().cloned().unwrap_or(Value::Null)),
            Err(CdpError::JavascriptException(details)) => Err(details
                .exception
                .as_ref()
                .and_then(|e| e.description.clone())
                .unwrap_or(details.text.clone())),
            Err(e) => Err(e.to_string()),
        }
    }

    // ---- acting ----

    /// Clicks the middle of the first visible element matching `selector`
    /// with the mouse, once it is enabled and nothing covers it.
    pub fn click(&mut self, selector: &str) {
        self.click_element(selector, None);
    }

    /// Clicks the first visible element matching `selector` whose text
    /// contains `text`: `click_text("button", "Save")`.
    pub fn click_text(&mut self, selector: &str, text: &str) {
        self.click_element(selector, Some(text));
    }

    /// Types `text` into the input matching `selector` with the keyboard,
    /// after clearing it, and checks that it holds `text`.
    pub fn fill(&mut self, selector: &str, text: &str) {
        let found = self.wait_for_element(selector, None);
        let script = probe(
            selector,
            None,
            r#"if (!el) return { found: false };
    el.scrollIntoView({ block: "nearest", inline: "nearest" });
    el.focus();
    if (el.select) el.select();
    return { found: true, focused: document.activeElement === el, value: el.value ?? null };"#,
        );
        let focused: Value = self.eval(&script);
        if focused["focused"] != true {
            self.fail(&format!(
                "`{selector}` cannot take the keyboard focus ({found})"
            ));
        }
        if focused["value"].as_str().is_some_and(|v| !v.is_empty()) {
            self.press("Backspace");
        }
        let cleared: Value = self.eval(&probe(
            selector,
            None,
            "return { value: el ? el.value : null };",
        ));
        if cleared["value"].as_str().is_some_and(|v| !v.is_empty()) {
            self.fail(&format!(
                "`{selector}` still holds {} after clearing",
                cleared["value"]
            ));
        }
        self.type_text(text);
        let typed: Value = self.eval(&probe(
            selector,
            None,
            "return { value: el ? el.value : null, type: el ? (el.type || el.tagName) : null };",
        ));
        let checkable = typed["type"].as_str().is_some_and(|t| {
            [
                "text", "email", "password", "search", "tel", "url", "textarea",
            ]
            .contains(&t)
        });
        if checkable && typed["value"] != text {
            self.fail(&format!(
                "typed {text:?} into `{selector}`, which holds {}",
                typed["value"]
            ));
        }
    }

    /// Types `text` at the keyboard focus, key by key (characters without a
    /// key on a US keyboard are inserted as an input method would).
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            let c = c.to_string();
            let typed = if keys::get_key_definition(&c).is_some() {
                self.key(&c)
            } else {
                self.runtime
                    .block_on(self.page.execute(InsertTextParams::new(c.clone())))
                    .map(|_| ())
            };
            if let Err(e) = typed {
                self.fail(&format!("could not type {c:?}: {e}"));
            }
        }
    }

    /// Presses one key (`Enter`, `Escape`, `Tab`, `Backspace`, `a`) at the
    /// keyboard focus.
    pub fn press(&mut self, key: &str) {
        if let Err(e) = self.key(key) {
            self.fail(&format!("could not press {key}: {e}"));
        }
    }

    /// A key down and up, as chromiumoxide's `Element::press_key` sends them.
    fn key(&self, key: &str) -> Result<(), CdpError> {
        let definition = keys::get_key_definition(key)
            .ok_or_else(|| CdpError::msg(format!("no key {key:?}")))?;
        let mut event = DispatchKeyEventParams::builder()
            .key(definition.key)
            .code(definition.code)
            .windows_virtual_key_code(definition.key_code)
            .native_virtual_key_code(definition.key_code);
        let down = match definition.text {
            Some(text) => {
                event = event.text(text);
                DispatchKeyEventType::KeyDown
            }
            None if definition.key.chars().count() == 1 => {
                event = event.text(definition.key);
                DispatchKeyEventType::KeyDown
            }
            None => DispatchKeyEventType::RawKeyDown,
        };
        self.runtime.block_on(async {
            let press = event.clone().r#type(down).build().map_err(CdpError::msg)?;
            self.page.execute(press).await?;
            let release = event
                .r#type(DispatchKeyEventType::KeyUp)
                .build()
                .map_err(CdpError::msg)?;
            self.page.execute(release).await?;
            Ok(())
        })
    }

    /// Presses the mouse at `from`, moves it to `to` in steps, and lets go.
    pub fn drag(&mut self, from: (f64, f64), to: (f64, f64)) {
        let mouse = |kind: DispatchMouseEventType, (x, y): (f64, f64), buttons: i64| {
            DispatchMouseEventParams::builder()
                .r#type(kind)
                .x(x)
                .y(y)
                .button(MouseButton::Left)
                .buttons(buttons)
                .click_count(1)
                .build()
                .map_err(CdpError::msg)
        };
        let page = self.page.clone();
        let dragged: Result<(), CdpError> = self.runtime.block_on(async {
            page.execute(mouse(DispatchMouseEventType::MouseMoved, from, 0)?)
                .await?;
            page.execute(mouse(DispatchMouseEventType::MousePressed, from, 1)?)
                .await?;
            for step in 1..=12 {
                let f = f64::from(step) / 12.0;
                let at = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
                page.execute(mouse(DispatchMouseEventType::MouseMoved, at, 1)?)
                    .await?;
            }
            page.execute(mouse(DispatchMouseEventType::MouseReleased, to, 0)?)
                .await?;
            Ok(())
        });
        if let Err(e) = dragged {
            self.fail(&format!("could not drag from {from:?} to {to:?}: {e}"));
        }
    }

    /// Sets an input's value as a script would and tells the app (`input`
    /// and `change` events): for date, time, number or range inputs.
    pub fn set_value(&mut self, selector: &str, value: &str) {
        self.wait_for(selector);
        let script = probe(
            selector,
            None,
            &format!(
                r#"const proto = Object.getPrototypeOf(el);
    const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
    if (!setter) return {{ error: "not an input" }};
    setter.call(el, {value});
    el.dispatchEvent(new Event("input", {{ bubbles: true }}));
    el.dispatchEvent(new Event("change", {{ bubbles: true }}));
    return {{ value: el.value }};"#,
                value = js(Some(value))
            ),
        );
        let result: Value = self.eval(&script);
        if let Some(error) = result.get("error") {
            self.fail(&format!("cannot set `{selector}`: {error}"));
        }
    }

    /// Chooses the option whose value is `value` in the `<select>` matching
    /// `selector`, once the select has it: options often arrive with a list
    /// the screen is still loading.
    pub fn select(&mut self, selector: &str, value: &str) {
        self.wait_for(selector);
        let script = probe(
            selector,
            None,
            &format!(
                r#"const value = {value};
    if (!el.options) return {{ error: "not a select" }};
    if (!Array.from(el.options).some((o) => o.value === value))
      return {{ missing: "no option " + JSON.stringify(value) + " among "
        + JSON.stringify(Array.from(el.options).map((o) => o.value)) }};
    el.value = value;
    el.dispatchEvent(new Event("input", {{ bubbles: true }}));
    el.dispatchEvent(new Event("change", {{ bubbles: true }}));
    return {{ value: el.value }};"#,
                value = js(Some(value))
            ),
        );
        self.poll(&format!("option {value:?} in `{selector}`"), &script, |v| {
            v.get("value").is_some()
        });
    }

    // ---- looking ----

    /// Saves a PNG of the viewport as `target/screenshots/<name>.png`, once
    /// the page has painted; returns its path.
    pub fn screenshot(&mut self, name: &str) -> PathBuf {
        let _: Value = self.eval(
            "document.fonts.ready.then(() => new Promise((done) => \
             requestAnimationFrame(() => requestAnimationFrame(() => done(null)))))",
        );
        match self.save_png(name) {
            Ok(path) => path,
            Err(e) => self.fail(&format!("could not save screenshot {name}: {e}")),
        }
    }

    fn save_png(&self, name: &str) -> Result<PathBuf, String> {
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(format!("{name}.png"));
        let png = self
            .runtime
            .block_on(async {
                tokio::time::timeout(
                    Duration::from_secs(20),
                    self.page.screenshot(ScreenshotParams::builder().build()),
                )
                .await
            })
            .map_err(|_| "timed out".to_string())?
            .map_err(|e| e.to_string())?;
        std::fs::write(&path, png).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    /// Resizes the viewport (the page sees it as its window).
    pub fn set_viewport(&mut self, (width, height): (u32, u32)) {
        let resize = SetDeviceMetricsOverrideParams::new(width, height, 1.0, false);
        if let Err(e) = self.runtime.block_on(self.page.execute(resize)) {
            self.fail(&format!("could not resize to {width}×{height}: {e}"));
        }
        let size = format!("innerWidth === {width} && innerHeight === {height}");
        self.wait_until(&format!("the window to be {width}×{height}"), &size);
    }

    /// A 10-inch tablet in landscape, 1024×768.
    pub fn tablet(&mut self) {
        self.set_viewport(TABLET);
    }

    /// Back to 1280×800.
    pub fn desktop(&mut self) {
        self.set_viewport(DESKTOP);
    }

    // ---- the console ----

    /// The console errors, uncaught exceptions and log errors so far.
    pub fn console_errors(&self) -> Vec<String> {
        let ignored = &self.ignored;
        lock(&self.errors)
            .iter()
            .filter(|e| !ignored.iter().any(|i| e.contains(i.as_str())))
            .cloned()
            .collect()
    }

    /// Returns the errors so far and forgets them: for a scenario that
    /// expects one.
    pub fn take_console_errors(&mut self) -> Vec<String> {
        self.settle();
        let errors = self.console_errors();
        lock(&self.errors).clear();
        errors
    }

    /// Errors containing `fragment` are expected from now on and not counted.
    pub fn ignore_console(&mut self, fragment: &str) {
        self.ignored.push(fragment.to_string());
    }

    /// Lets the events in flight reach the collectors.
    fn settle(&self) {
        let _ = self.try_eval("new Promise((done) => setTimeout(() => done(null), 50))");
        std::thread::sleep(Duration::from_millis(100));
    }

    /// Ends the scenario: closes the browser, and fails if the page logged
    /// an error (with a screenshot of how it looked).
    pub fn finish(mut self) {
        if let Err(message) = self.end() {
            panic!("{message}");
        }
    }

    /// Checks the console and closes the browser, once.
    fn end(&mut self) -> Result<(), String> {
        self.finished = true;
        self.settle();
        let errors = self.console_errors();
        let verdict = if errors.is_empty() {
            Ok(())
        } else {
            let shot = self.save_failure_screenshot();
            Err(format!(
                "the page logged {} error(s):\n  {}\n{shot}",
                errors.len(),
                errors.join("\n  ")
            ))
        };
        self.close();
        verdict
    }

    // ---- inside ----

    /// Waits for a visible match and returns `{ text, value }` of it.
    fn wait_for_element(&mut self, selector: &str, text: Option<&str>) -> Value {
        let script = probe(
            selector,
            text,
            "return el ? { found: true, text: el.innerText ?? \"\", value: el.value ?? null } : { found: false };",
        );
        let what = match text {
            Some(text) => format!("`{selector}` containing {text:?}"),
            None => format!("`{selector}`"),
        };
        self.poll(&what, &script, |v| v["found"] == true)
    }

    fn click_element(&mut self, selector: &str, text: Option<&str>) {
        let script = probe(
            selector,
            text,
            r#"if (!el) return { ready: false, why: "not found" };
    if (el.disabled || el.getAttribute("aria-disabled") === "true")
      return { ready: false, why: "disabled" };
    el.scrollIntoView({ block: "nearest", inline: "nearest" });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (hit !== el && !el.contains(hit)) {
      const name = (n) => n ? n.tagName.toLowerCase() + (n.className ? "." + String(n.className).split(" ").join(".") : "") : "nothing";
      return { ready: false, why: "covered by " + name(hit) };
    }
    return { ready: true, x, y };"#,
        );
        let what = match text {
            Some(text) => format!("`{selector}` containing {text:?} to be clickable"),
            None => format!("`{selector}` to be clickable"),
        };
        let mut target = self.poll(&what, &script, |v| v["ready"] == true);
        // A screen still laying out (a card above it loading) can move the
        // element between the probe and the click: click once it stays put.
        let deadline = Instant::now() + self.timeout;
        loop {
            std::thread::sleep(POLL);
            let again = self.poll(&what, &script, |v| v["ready"] == true);
            if again["x"] == target["x"] && again["y"] == target["y"] {
                break;
            }
            if Instant::now() >= deadline {
                self.fail(&format!("{what}: it kept moving ({target} then {again})"));
            }
            target = again;
        }
        let point = Point {
            x: target["x"].as_f64().unwrap_or_default(),
            y: target["y"].as_f64().unwrap_or_default(),
        };
        if let Err(e) = self.runtime.block_on(self.page.click(point)) {
            self.fail(&format!("could not click {what}: {e}"));
        }
    }

    /// Evaluates `script` until `done` accepts its value; fails after the
    /// timeout naming `what`, with the last answer.
    fn poll(&mut self, what: &str, script: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + self.timeout;
        let mut last;
        loop {
            match self.try_eval(script) {
                Ok(value) => {
                    if let Some(error) = value.get("error") {
                        self.fail(&format!("while waiting for {what}: {error}"));
                    }
                    if done(&value) {
                        return value;
                    }
                    last = value;
                }
                // A navigation can replace the page under a probe.
                Err(e) => last = json!({ "evaluation failed": e }),
            }
            if Instant::now() >= deadline {
                self.fail(&format!(
                    "timed out after {:?} waiting for {what} (last answer: {last})",
                    self.timeout
                ));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Fails the scenario: saves `failed-<test>.png`, adds the page's URL
    /// and console errors to the message, and panics.
    #[track_caller]
    pub fn fail(&mut self, message: &str) -> ! {
        let shot = self.save_failure_screenshot();
        let url = self.try_eval("location.href").unwrap_or(Value::Null);
        let errors = self.console_errors();
        let errors = if errors.is_empty() {
            String::new()
        } else {
            format!("\nconsole errors:\n  {}", errors.join("\n  "))
        };
        panic!("{message}\npage: {url}\n{shot}{errors}");
    }

    fn save_failure_screenshot(&mut self) -> String {
        if self.failure_saved {
            return String::new();
        }
        self.failure_saved = true;
        match self.save_png(&format!("failed-{}", self.name)) {
            Ok(path) => format!("screenshot: {}", path.display()),
            Err(e) => format!("no screenshot: {e}"),
        }
    }

    fn close(&mut self) {
        self.runtime.block_on(async {
            let closed = tokio::time::timeout(Duration::from_secs(10), self.chromium.close()).await;
            let exited = tokio::time::timeout(Duration::from_secs(10), self.chromium.wait()).await;
            if !matches!((closed, exited), (Ok(Ok(_)), Ok(Ok(_)))) {
                let _ = self.chromium.kill().await;
            }
        });
        for task in self.tasks.drain(..) {
            task.abort();
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if !std::thread::panicking() {
            // The scenario ended without `finish`: the console still counts.
            if let Err(message) = self.end() {
                panic!("{message}");
            }
            return;
        }
        self.finished = true;
        if !self.failure_saved {
            // An assertion of the scenario failed: show how the page looked.
            let shot = self.save_failure_screenshot();
            let errors = self.console_errors();
            eprintln!("{shot}");
            if !errors.is_empty() {
                eprintln!("console errors:\n  {}", errors.join("\n  "));
            }
        }
        self.close();
    }
}

/// Listens for console errors, uncaught exceptions and log errors on `page`.
async fn collect_errors(page: &Page, errors: &Arc<Mutex<Vec<String>>>) -> Vec<JoinHandle<()>> {
    let mut console = page
        .event_listener::<EventConsoleApiCalled>()
        .await
        .expect("console events");
    let mut exceptions = page
        .event_listener::<EventExceptionThrown>()
        .await
        .expect("exception events");
    let mut log = page
        .event_listener::<EventEntryAdded>()
        .await
        .expect("log events");
    let sink = errors.clone();
    let console = tokio::spawn(async move {
        while let Some(event) = console.next().await {
            if matches!(
                event.r#type,
                ConsoleApiCalledType::Error | ConsoleApiCalledType::Assert
            ) {
                let text: Vec<String> = event.args.iter().map(describe).collect();
                let at = event
                    .stack_trace
                    .as_ref()
                    .and_then(|s| s.call_frames.first())
                    .map(|f| format!(" ({}:{})", f.url, f.line_number + 1))
                    .unwrap_or_default();
                lock(&sink).push(format!("console.error: {}{at}", text.join(" ")));
            }
        }
    });
    let sink = errors.clone();
    let exceptions = tokio::spawn(async move {
        while let Some(event) = exceptions.next().await {
            let details = &event.exception_details;
            let text = details
                .exception
                .as_ref()
                .and_then(|e| e.description.clone())
                .unwrap_or_else(|| details.text.clone());
            let at = details
                .url
                .as_ref()
                .map(|url| format!(" ({url}:{})", details.line_number + 1))
                .unwrap_or_default();
            lock(&sink).push(format!("uncaught exception: {text}{at}"));
        }
    });
    let sink = errors.clone();
    let log = tokio::spawn(async move {
        while let Some(event) = log.next().await {
            let entry = &event.entry;
            if entry.level != LogEntryLevel::Error {
                continue;
            }
            if entry.source == LogEntrySource::Network && is_client_error_response(&entry.text) {
                continue;
            }
            let at = entry
                .url
                .as_ref()
                .map(|url| format!(" ({url})"))
                .unwrap_or_default();
            lock(&sink).push(format!(
                "{} error: {}{at}",
                entry.source.as_ref(),
                entry.text
            ));
        }
    });
    vec![console, exceptions, log]
}
