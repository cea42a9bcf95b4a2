//! The harness itself: its form helpers act as a user would, its waits fail
//! with the selector named and a screenshot, and it hears what the page logs.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use serde_json::Value;

use super::{screenshot_dir, Browser};
use crate::helpers::TestApp;

/// A few controls beside the app, on its page and under its content policy.
const PROBE: &str = r#"(() => {
  document.body.insertAdjacentHTML("beforeend", `<section id="probe">
    <input id="name" type="text" value="old text">
    <select id="pick"><option value="a">A</option><option value="b">B</option></select>
    <input id="when" type="date">
    <button type="button" id="go">Go</button>
    <button type="button" disabled>Never</button>
    <ul><li>one</li><li>two</li><li hidden>hidden</li></ul>
    <p id="log"></p>
  </section>`);
  const log = document.getElementById("log");
  const name = document.getElementById("name");
  document.getElementById("go").addEventListener("click", () => { log.textContent = "clicked " + name.value; });
  name.addEventListener("keydown", (e) => { if (e.key === "Enter") log.textContent = "entered " + name.value; });
  document.getElementById("pick").addEventListener("change", (e) => { log.textContent = "picked " + e.target.value; });
  return null;
})()"#;

/// The panic message of a failed step.
fn message(outcome: std::thread::Result<()>) -> String {
    let payload = outcome.expect_err("the step fails");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn the_harness_fills_clicks_and_reads_like_a_user() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/admin/");
    browser.wait_for("input[name=email]");
    let _: Value = browser.eval(PROBE);

    browser.fill("#name", "Crème brûlée, 12 €");
    assert_eq!(browser.value("#name"), "Crème brûlée, 12 €");
    browser.click_text("#probe button", "Go");
    browser.wait_for_text("#log", "clicked Crème brûlée, 12 €");
    browser.fill("#name", "Table 4");
    browser.press("Enter");
    browser.wait_for_text("#log", "entered Table 4");

    browser.select("#pick", "b");
    browser.wait_for_text("#log", "picked b");
    browser.set_value("#when", "2030-01-31");
    assert_eq!(browser.value("#when"), "2030-01-31");

    assert_eq!(
        browser.texts("#probe li"),
        ["one", "two"],
        "hidden ones are left out"
    );
    assert_eq!(browser.count("#probe li"), 2);
    assert_eq!(browser.text("#probe li"), "one");
    assert_eq!(browser.attribute("#pick", "id"), Some("pick".to_string()));
    assert!(!browser.exists("#missing"));
    browser.wait_until("the title", "document.title === 'Brigade'");
    assert_eq!(browser.path(), "/admin/");
    assert_eq!(browser.base(), app.base);
    let title = browser.block_on(browser.page().get_title()).unwrap();
    assert_eq!(title.as_deref(), Some("Brigade"));

    // A wait that runs out names what it waited for and saves a screenshot.
    browser.set_timeout(Duration::from_millis(300));
    let failed = message(catch_unwind(AssertUnwindSafe(|| {
        browser.wait_for("#never-there")
    })));
    assert!(failed.contains("`#never-there`"), "{failed}");
    let shot = screenshot_dir().join(
        failed
            .lines()
            .find_map(|l| l.strip_prefix("screenshot: "))
            .and_then(|p| std::path::Path::new(p).file_name())
            .expect("a screenshot is named"),
    );
    assert!(shot.is_file(), "{}", shot.display());
    std::fs::remove_file(shot).unwrap();
    let failed = message(catch_unwind(AssertUnwindSafe(|| {
        browser.click_text("#probe button", "Never")
    })));
    assert!(failed.contains("disabled"), "{failed}");
    browser.set_timeout(super::DEFAULT_TIMEOUT);

    let _: Value = browser.eval("setTimeout(() => document.getElementById('probe').remove(), 100)");
    browser.wait_gone("#probe");

    browser.tablet();
    assert_eq!(browser.eval::<i64>("innerWidth"), 1024);
    browser.desktop();
    assert_eq!(browser.eval::<i64>("innerWidth"), 1280);
    browser.finish();
}

#[test]
fn the_harness_hears_errors_exceptions_and_policy_violations() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/admin/");
    browser.wait_for("input[name=email]");

    let _: Value = browser.eval("console.error('boom', 42)");
    let _: Value = browser.eval("setTimeout(() => { throw new Error('thrown later'); }, 0)");
    // The policy allows no inline script.
    let _: Value = browser.eval(
        "(() => { const s = document.createElement('script'); \
         s.textContent = 'window.inlineRan = true'; document.head.appendChild(s); })()",
    );
    // A refused request is the app's to show, not an error of the page.
    let status: u16 = browser.eval("fetch('/api/v1/auth/me').then((r) => r.status)");
    assert_eq!(status, 401);
    browser.ignore_console("expected noise");
    let _: Value = browser.eval("console.error('expected noise')");

    let errors = browser.take_console_errors();
    let ran: Option<bool> = browser.eval("window.inlineRan ?? null");
    assert_eq!(ran, None, "the inline script was blocked");
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].contains("console.error: boom 42"), "{errors:#?}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("uncaught exception") && e.contains("thrown later")),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("Content Security Policy") && e.contains("inline script")),
        "{errors:#?}"
    );
    browser.finish();

    // `finish` fails on an error...
    let mut left = Browser::launch(&app).expect("a second browser");
    left.open("/admin/");
    let _: Value = left.eval("console.error('left behind')");
    let failed = message(catch_unwind(AssertUnwindSafe(move || left.finish())));
    assert!(failed.contains("left behind"), "{failed}");
    // ...and so does a scenario that forgets to call it.
    let failed = message(catch_unwind(AssertUnwindSafe(|| {
        let mut forgotten = Browser::launch(&app).expect("a third browser");
        forgotten.open("/admin/");
        let _: Value = forgotten.eval("console.error('not finished')");
    })));
    assert!(failed.contains("not finished"), "{failed}");
    for leftover in std::fs::read_dir(screenshot_dir()).unwrap() {
        let path = leftover.unwrap().path();
        if path.to_string_lossy().contains("the_harness_hears") {
            std::fs::remove_file(path).unwrap();
        }
    }
}
