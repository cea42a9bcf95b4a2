//! The campaigns screen in a real browser: a campaign made in the editor with a
//! preview of what a sample order gets, run and paused; coupon codes made in a
//! batch, listed with their uses and exported as CSV.

use serde_json::{json, Value};

use super::Browser;
use crate::helpers::TestApp;

fn campaign_named(app: &TestApp, name: &str) -> Value {
    app.owner.get("/campaigns").expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn a_manager_builds_a_campaign_previews_it_and_runs_it() {
    let app = TestApp::spawn();
    let drinks = app
        .owner
        .post("/menu/categories", json!({"name": "Drinks"}))
        .expect(201);
    app.owner
        .post(
            "/menu/items",
            json!({"name": "Spritz", "category_id": drinks["id"], "price": 9.0, "tax_rate": 10.0}),
        )
        .expect(201);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("campaigns");
    browser.wait_for_text("body", "No campaign yet");
    browser.click("[data-action=new-campaign]");
    browser.fill("input[name=name]", "Happy hour");
    // No percentage yet: the server names the field.
    browser.click("[data-action=save-campaign]");
    browser.wait_for("[data-error-for=percent]");
    browser.fill("input[name=percent]", "20");
    browser.select("select[name=applies_to]", drinks["id"].as_str().unwrap());
    browser.click("input[name=weekday-fri]");
    browser.fill("input[name=preview-quantity-0]", "2");
    browser.click("[data-action=preview]");
    browser.wait_for("[data-preview-result]");
    let said = browser.text("[data-preview-result]");
    // Today may not be a Friday: the preview says either what it gives or why not.
    assert!(
        said.contains("3.60 off") || said.contains("does not run on this day"),
        "{said}"
    );
    browser.click("input[name=weekday-fri]");
    browser.click("[data-action=preview]");
    browser.wait_for_text("[data-preview-result]", "3.60 off");
    browser.screenshot("campaign-editor");
    browser.click("[data-action=save-campaign]");
    browser.wait_for("tr[data-campaign='Happy hour']");
    let saved = campaign_named(&app, "Happy hour");
    assert_eq!(saved["status"], "draft");
    assert_eq!(saved["percent"], 20.0);
    assert_eq!(saved["applies_to"]["category_ids"], json!([drinks["id"]]));

    browser.click("tr[data-campaign='Happy hour'] [data-action=activate-campaign]");
    browser.wait_for_text("tr[data-campaign='Happy hour'] [data-status]", "Active");
    assert_eq!(campaign_named(&app, "Happy hour")["status"], "active");
    browser.wait_for_text("tr[data-campaign='Happy hour']", "20 % off Drinks");
    browser.screenshot("campaigns");
    browser.click("tr[data-campaign='Happy hour'] [data-action=pause-campaign]");
    browser.wait_for_text("tr[data-campaign='Happy hour'] [data-status]", "Paused");
    assert_eq!(campaign_named(&app, "Happy hour")["status"], "paused");
    browser.finish();
}

#[test]
fn coupon_codes_are_made_in_a_batch_listed_with_uses_and_exported() {
    let app = TestApp::spawn();
    let campaign = app
        .owner
        .post(
            "/campaigns",
            json!({"name": "Spring", "kind": "amount_off", "amount": 5, "requires_coupon": true}),
        )
        .expect(201);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("campaigns");
    browser.click("tr[data-campaign=Spring] [data-action=coupons]");
    browser.wait_for_text("body", "No codes yet");
    browser.fill("input[name=count]", "6");
    browser.fill("input[name=prefix]", "spr");
    browser.click("[data-action=make-coupons]");
    browser.wait_for_text("[data-coupon-summary]", "6 codes, used 0 times");
    let listed = app
        .owner
        .get(&format!(
            "/campaigns/{}/coupons",
            campaign["id"].as_str().unwrap()
        ))
        .expect(200);
    let codes: Vec<String> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 6);
    assert!(codes.iter().all(|c| c.starts_with("SPR")));
    assert_eq!(browser.count("[data-panel=coupons] tbody tr"), 6);
    browser.screenshot("coupons");

    // The CSV holds every code; the blob the download is made from is read.
    browser.eval::<Value>(
        "(() => { const made = URL.createObjectURL; window.exported = null; \
         URL.createObjectURL = (blob) => { blob.text().then((t) => { window.exported = t; }); return made(blob); }; \
         return null; })()",
    );
    browser.click("[data-action=export-csv]");
    browser.wait_until("the CSV export", "window.exported");
    let csv: String = browser.eval("window.exported");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("code,uses,uses_per_code,expires_at"));
    let exported: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(
        exported,
        codes.iter().map(String::as_str).collect::<Vec<_>>()
    );
    browser.finish();
}
