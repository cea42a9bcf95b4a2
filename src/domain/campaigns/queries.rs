//! Campaign and coupon SQL: the campaigns and their states, coupon batches, and
//! what pricing reads (the active offers, a code's standing).

use rand::Rng;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::engine::Offer;
use super::model::*;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;

const CAMPAIGN_COLUMNS: &str =
    "id, name, kind, status, rules, stackable, requires_coupon, uses, version, created_at, updated_at";

struct StoredCampaign {
    id: String,
    name: String,
    status: CampaignStatus,
    rules: Rules,
    stackable: bool,
    requires_coupon: bool,
    uses: i64,
    version: i64,
    created_at: String,
    updated_at: String,
}

fn campaign_from_row(r: &Row) -> rusqlite::Result<StoredCampaign> {
    let status: String = r.get(3)?;
    let rules: String = r.get(4)?;
    Ok(StoredCampaign {
        id: r.get(0)?,
        name: r.get(1)?,
        status: CampaignStatus::parse(&status).unwrap_or(CampaignStatus::Paused),
        rules: serde_json::from_str(&rules).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Text, Box::new(e))
        })?,
        stackable: r.get(5)?,
        requires_coupon: r.get(6)?,
        uses: r.get(7)?,
        version: r.get(8)?,
        created_at: r.get(9)?,
        updated_at: r.get(10)?,
    })
}

impl StoredCampaign {
    fn shown(self, exponent: u32) -> Campaign {
        Campaign {
            definition: self.rules.to_definition(
                &self.name,
                self.stackable,
                self.requires_coupon,
                exponent,
            ),
            id: self.id,
            status: self.status,
            uses: self.uses,
            version: self.version,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

fn find(conn: &Connection, id: &str) -> Result<StoredCampaign, ApiError> {
    conn.prepare_cached(&format!(
        "SELECT {CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ?1"
    ))?
    .query_row([id], campaign_from_row)
    .optional()?
    .ok_or_else(|| ApiError::not_found("campaign"))
}

pub fn get_campaign(conn: &Connection, id: &str, exponent: u32) -> Result<Campaign, ApiError> {
    Ok(find(conn, id)?.shown(exponent))
}

/// Newest first, optionally of one status: `limit + 1` campaigns made before
/// the campaign `before`, for a page.
pub fn list_campaigns(
    conn: &Connection,
    status: Option<CampaignStatus>,
    before: Option<&str>,
    limit: u32,
    exponent: u32,
) -> Result<Vec<Campaign>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {CAMPAIGN_COLUMNS} FROM campaigns WHERE (?1 IS NULL OR status = ?1) \
         AND (?2 IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(
        params![status.map(CampaignStatus::as_str), before, limit + 1],
        campaign_from_row,
    )?;
    Ok(rows
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .map(|stored| stored.shown(exponent))
        .collect())
}

/// Refuses rules naming menu items or categories the tenant does not have.
fn check_menu_ids(tx: &Tx, rules: &Rules) -> Result<(), ApiError> {
    let (items, categories) = rules.named_ids();
    let mut checks = Checks::new();
    for id in items {
        let found: bool = tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM menu_items WHERE id = ?1)")?
            .query_row([id], |r| r.get(0))?;
        if !found {
            checks.fail("item_ids", format!("no menu item {id}"));
        }
    }
    for id in categories {
        let found: bool = tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM menu_categories WHERE id = ?1)")?
            .query_row([id], |r| r.get(0))?;
        if !found {
            checks.fail("category_ids", format!("no menu category {id}"));
        }
    }
    checks.finish()
}

pub fn create_campaign(tx: &Tx, definition: &CampaignDefinition) -> Result<Campaign, ApiError> {
    let exponent = tx.exponent()?;
    let rules = Rules::from_definition(definition, exponent)?;
    check_menu_ids(tx, &rules)?;
    let id = Uuid::now_v7().to_string();
    let now = tx.now_text().to_string();
    tx.prepare_cached(
        "INSERT INTO campaigns (id, name, kind, rules, stackable, requires_coupon, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
    )?
    .execute(params![
        id,
        definition.name.trim(),
        definition.kind.as_str(),
        serde_json::to_string(&rules).map_err(|e| ApiError::internal(e.to_string()))?,
        definition.stackable,
        definition.requires_coupon,
        now
    ])?;
    get_campaign(tx, &id, exponent)
}

/// Edits a draft or paused campaign; a running one is paused first, so orders
/// are never priced by half an edit.
pub fn update_campaign(tx: &Tx, id: &str, patch: CampaignPatch) -> Result<Campaign, ApiError> {
    let exponent = tx.exponent()?;
    let stored = find(tx, id)?;
    if stored.status == CampaignStatus::Active {
        return Err(
            ApiError::conflict("campaign_active", "pause the campaign before changing it")
                .with("current_status", stored.status.as_str()),
        );
    }
    let current = stored.rules.to_definition(
        &stored.name,
        stored.stackable,
        stored.requires_coupon,
        exponent,
    );
    let definition = patch.apply_to(current);
    let rules = Rules::from_definition(&definition, exponent)?;
    check_menu_ids(tx, &rules)?;
    tx.prepare_cached(
        "UPDATE campaigns SET name = ?2, kind = ?3, rules = ?4, stackable = ?5, requires_coupon = ?6, \
         version = version + 1, updated_at = ?7 WHERE id = ?1",
    )?
    .execute(params![
        id,
        definition.name.trim(),
        definition.kind.as_str(),
        serde_json::to_string(&rules).map_err(|e| ApiError::internal(e.to_string()))?,
        definition.stackable,
        definition.requires_coupon,
        tx.now_text().to_string()
    ])?;
    get_campaign(tx, id, exponent)
}

/// `activate` or `pause`.
pub fn change_campaign_status(
    tx: &Tx,
    id: &str,
    next: CampaignStatus,
) -> Result<Campaign, ApiError> {
    let stored = find(tx, id)?;
    if !stored.status.can_become(next) {
        return Err(ApiError::conflict(
            "illegal_transition",
            format!(
                "a {} campaign cannot become {}",
                stored.status.as_str(),
                next.as_str()
            ),
        )
        .with("current_status", stored.status.as_str()));
    }
    tx.prepare_cached(
        "UPDATE campaigns SET status = ?2, version = version + 1, updated_at = ?3 WHERE id = ?1",
    )?
    .execute(params![id, next.as_str(), tx.now_text().to_string()])?;
    get_campaign(tx, id, tx.exponent()?)
}

/// Deletes a campaign no order has used, with its unused codes; one that gave a
/// discount stays for the record (pause it instead).
pub fn delete_campaign(tx: &Tx, id: &str) -> Result<(), ApiError> {
    let stored = find(tx, id)?;
    let used: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM order_discounts WHERE campaign_id = ?1) \
             OR EXISTS (SELECT 1 FROM order_coupons JOIN coupons USING (code) WHERE campaign_id = ?1)",
        )?
        .query_row([id], |r| r.get(0))?;
    if used || stored.uses > 0 {
        return Err(ApiError::conflict(
            "campaign_used",
            "orders carry this campaign's discounts or codes; pause it instead",
        )
        .with("current_status", stored.status.as_str()));
    }
    tx.execute("DELETE FROM coupons WHERE campaign_id = ?1", [id])?;
    tx.execute("DELETE FROM campaigns WHERE id = ?1", [id])?;
    Ok(())
}

/// The campaigns that may price an order now: every active one that needs no
/// coupon, and those whose codes are in `codes`; in the order they were made.
pub fn offers(conn: &Connection, codes: &[String]) -> Result<Vec<Offer>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {CAMPAIGN_COLUMNS} FROM campaigns WHERE status = 'active' ORDER BY id"
    ))?;
    let active: Vec<StoredCampaign> = stmt
        .query_map([], campaign_from_row)?
        .collect::<Result<_, _>>()?;
    let mut offers = Vec::with_capacity(active.len());
    for campaign in active {
        let coupon_code = if campaign.requires_coupon {
            let mut found = None;
            for code in codes {
                if coupon_campaign(conn, code)?.as_deref() == Some(campaign.id.as_str()) {
                    found = Some(code.clone());
                    break;
                }
            }
            match found {
                Some(code) => Some(code),
                None => continue,
            }
        } else {
            None
        };
        offers.push(Offer {
            campaign_id: campaign.id,
            name: campaign.name,
            rules: campaign.rules,
            stackable: campaign.stackable,
            uses: campaign.uses,
            coupon_code,
        });
    }
    Ok(offers)
}

fn coupon_campaign(conn: &Connection, code: &str) -> Result<Option<String>, ApiError> {
    Ok(conn
        .prepare_cached("SELECT campaign_id FROM coupons WHERE code = ?1")?
        .query_row([code], |r| r.get(0))
        .optional()?)
}

/// A code as typed, the way it is stored.
pub fn normalize_code(code: &str) -> String {
    code.trim().to_uppercase()
}

/// Why a code cannot go on an order, as `reason` and words: `unknown`,
/// `expired`, `used_up`, or `not_applicable` when its campaign is not running.
pub fn refuse_code(
    conn: &Connection,
    code: &str,
    now: &str,
) -> Result<Option<(&'static str, String)>, ApiError> {
    let found: Option<(String, i64, i64, Option<String>, String)> = conn
        .prepare_cached(
            "SELECT c.campaign_id, c.uses, c.uses_per_code, c.expires_at, k.status \
             FROM coupons c JOIN campaigns k ON k.id = c.campaign_id WHERE c.code = ?1",
        )?
        .query_row([code], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    Ok(match found {
        None => Some(("unknown", "no such coupon code".into())),
        Some((_, _, _, Some(expires_at), _)) if expires_at.as_str() <= now => {
            Some(("expired", format!("the code expired at {expires_at}")))
        }
        Some((_, uses, per_code, _, _)) if uses >= per_code => Some((
            "used_up",
            "the code has been used as often as it may be".into(),
        )),
        Some((_, _, _, _, status)) if status != "active" => {
            Some(("not_applicable", format!("the code's campaign is {status}")))
        }
        Some(_) => None,
    })
}

/// Counts one use of a code by a completed order; false when it is used up.
pub fn use_code(tx: &Tx, code: &str) -> Result<bool, ApiError> {
    Ok(tx
        .prepare_cached(
            "UPDATE coupons SET uses = uses + 1 WHERE code = ?1 AND uses < uses_per_code",
        )?
        .execute([code])?
        == 1)
}

/// Gives a use back, for a completed order refunded in full.
pub fn release_code(tx: &Tx, code: &str) -> Result<(), ApiError> {
    tx.prepare_cached("UPDATE coupons SET uses = uses - 1 WHERE code = ?1 AND uses > 0")?
        .execute([code])?;
    Ok(())
}

/// Counts (or, with `-1`, gives back) a campaign's use by a completed order.
pub fn count_campaign_use(tx: &Tx, campaign_id: &str, by: i64) -> Result<(), ApiError> {
    tx.prepare_cached("UPDATE campaigns SET uses = MAX(uses + ?2, 0) WHERE id = ?1")?
        .execute(params![campaign_id, by])?;
    Ok(())
}

/// `POST /campaigns/{id}/coupons`: `count` generated codes, or one named `code`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCoupons {
    /// How many codes to generate (1 to 10,000); not with `code`.
    #[schema(minimum = 1, maximum = 10000)]
    pub count: Option<i64>,
    /// Put before each generated code (letters and digits, up to 12).
    #[schema(max_length = 12, pattern = "^[A-Za-z0-9]*$")]
    pub prefix: Option<String>,
    /// One code chosen by hand, such as `SPRING10` (4 to 32 letters, digits or
    /// hyphens); not with `count`.
    #[schema(min_length = 4, max_length = 32, pattern = "^[A-Za-z0-9-]+$")]
    pub code: Option<String>,
    /// How many completed orders each code may discount.
    #[schema(minimum = 1, maximum = 1000000)]
    pub uses_per_code: i64,
    /// The codes stop working at this instant (RFC 3339).
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Coupon {
    pub code: String,
    pub campaign_id: String,
    /// Codes made together share a batch.
    pub batch_id: String,
    pub uses_per_code: i64,
    pub uses: i64,
    pub expires_at: Option<String>,
    pub created_at: String,
}

/// Unambiguous characters (no 0/O, 1/I/L): 31 of them, so ten make about 50
/// bits, far beyond guessing at the rate codes may be tried.
const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
const CODE_LENGTH: usize = 10;

pub fn create_coupons(
    tx: &Tx,
    campaign_id: &str,
    new: &NewCoupons,
) -> Result<Vec<Coupon>, ApiError> {
    let campaign = find(tx, campaign_id)?;
    let mut checks = Checks::new();
    checks.integer_in("uses_per_code", new.uses_per_code, 1..=1_000_000);
    let prefix = new
        .prefix
        .as_deref()
        .map(normalize_code)
        .unwrap_or_default();
    if prefix.len() > 12 || !prefix.chars().all(|c| c.is_ascii_alphanumeric()) {
        checks.fail("prefix", "up to 12 letters and digits");
    }
    let named = new.code.as_deref().map(normalize_code);
    if let Some(code) = &named {
        if !(4..=32).contains(&code.len())
            || !code.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            checks.fail("code", "4 to 32 letters, digits or hyphens");
        }
    }
    match (new.count, &named) {
        (Some(_), Some(_)) => checks.fail("code", "give either count or code, not both"),
        (None, None) => checks.fail(
            "count",
            "give count (codes to generate) or code (one named code)",
        ),
        (Some(count), None) => {
            checks.integer_in("count", count, 1..=10_000);
        }
        (None, Some(_)) => {}
    }
    if named.is_some() && new.prefix.is_some() {
        checks.fail("prefix", "only with count");
    }
    let expires_at = new.expires_at.as_deref().and_then(|text| {
        match chrono::DateTime::parse_from_rfc3339(text) {
            Ok(at) => Some(
                at.with_timezone(&chrono::Utc)
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
            Err(_) => {
                checks.fail("expires_at", "must be an RFC 3339 date-time");
                None
            }
        }
    });
    checks.finish()?;
    if !campaign.requires_coupon {
        return Err(ApiError::conflict(
            "coupons_not_required",
            "the campaign applies without a code; set requires_coupon first",
        )
        .with("current_status", campaign.status.as_str()));
    }
    let codes: Vec<String> = match named {
        Some(code) => vec![code],
        None => {
            let mut rng = rand::rng();
            (0..new.count.unwrap_or(0))
                .map(|_| {
                    let body: String = (0..CODE_LENGTH)
                        .map(|_| CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())] as char)
                        .collect();
                    format!("{prefix}{body}")
                })
                .collect()
        }
    };
    let batch_id = Uuid::now_v7().to_string();
    let now = tx.now_text().to_string();
    let mut insert = tx.prepare_cached(
        "INSERT INTO coupons (code, campaign_id, batch_id, uses_per_code, expires_at, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (code) DO NOTHING",
    )?;
    for code in &codes {
        if insert.execute(params![
            code,
            campaign_id,
            batch_id,
            new.uses_per_code,
            expires_at,
            now
        ])? == 0
        {
            return Err(ApiError::conflict(
                "code_taken",
                format!("the code {code} already exists"),
            )
            .with("current_status", campaign.status.as_str()));
        }
    }
    drop(insert);
    coupons_where(tx, campaign_id, Some(&batch_id), None, u32::MAX - 1)
}

/// `limit + 1` of a campaign's codes with their uses, in code order after the
/// code `after`, for a page.
pub fn list_coupons(
    conn: &Connection,
    campaign_id: &str,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<Coupon>, ApiError> {
    find(conn, campaign_id)?;
    coupons_where(conn, campaign_id, None, after, limit)
}

fn coupons_where(
    conn: &Connection,
    campaign_id: &str,
    batch_id: Option<&str>,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<Coupon>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT code, campaign_id, batch_id, uses_per_code, uses, expires_at, created_at FROM coupons \
         WHERE campaign_id = ?1 AND (?2 IS NULL OR batch_id = ?2) AND code > ?3 ORDER BY code LIMIT ?4",
    )?;
    let rows = stmt.query_map(
        params![
            campaign_id,
            batch_id,
            after.unwrap_or(""),
            i64::from(limit) + 1
        ],
        |r| {
            Ok(Coupon {
                code: r.get(0)?,
                campaign_id: r.get(1)?,
                batch_id: r.get(2)?,
                uses_per_code: r.get(3)?,
                uses: r.get(4)?,
                expires_at: r.get(5)?,
                created_at: r.get(6)?,
            })
        },
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}
