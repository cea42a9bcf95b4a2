//! Cursor pagination shared by every list: `?limit=` (default 50, max 200) and
//! `?cursor=`, answered as `{"data": [...], "next_cursor": ...}`.

use serde::Serialize;

use crate::error::ApiError;

pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 200;

#[derive(Serialize, utoipa::ToSchema)]
pub struct Page<T> {
    pub data: Vec<T>,
    /// Pass as `cursor` to get the next page; null on the last page.
    pub next_cursor: Option<String>,
}

pub fn limit(requested: Option<&str>) -> Result<u32, ApiError> {
    match requested.map(str::parse::<u32>) {
        None => Ok(DEFAULT_LIMIT),
        Some(Ok(n)) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::invalid_field(
            "limit",
            format!("must be a whole number from 1 to {MAX_LIMIT}"),
        )),
    }
}

/// Builds a page from `limit + 1` fetched rows: the extra row only says there is more.
pub fn page<T>(mut rows: Vec<T>, limit: u32, cursor_of: impl Fn(&T) -> String) -> Page<T> {
    let next_cursor = if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(cursor_of)
    } else {
        None
    };
    Page {
        data: rows,
        next_cursor,
    }
}
