//! The menu over HTTP: categories and items with prices, tax rates, stations and
//! modifiers. The rules live in `domain::menu`.

use rocket::{delete, get, patch, post};

use crate::api::body::JsonBody;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::menu::{self, *};
use crate::domain::settings;
use crate::domain::validate::{path_id, Checks};
use crate::error::{ApiError, Problem};

super::group![
    list_categories,
    create_category,
    get_category,
    update_category,
    delete_category,
    list_items,
    create_item,
    get_menu_item,
    update_item,
    delete_item,
];

/// List menu categories.
///
/// Roles: any signed-in role.
/// Archived categories are left out; the list is in the order they were created, not by
/// `position`.
#[utoipa::path(tag = "Menu", responses(
    (status = 200, body = Page<Category>), (status = 401, body = Problem)))]
#[get("/menu/categories?<limit>&<cursor>")]
async fn list_categories(
    caller: Can<perm::MenuRead>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let rows = menu::list_categories(conn, cursor.as_deref(), limit)?;
            Reply::ok(pagination::page(rows, limit, |c| c.id.clone()))
        })
        .await
}

/// Create a menu category.
///
/// Roles: owner, manager.
/// Its `station_id` sends its items' lines to that kitchen station unless an item names
/// its own. No webhook event.
#[utoipa::path(tag = "Menu", request_body = NewCategory, responses(
    (status = 201, body = Category), (status = 409, body = Problem, description = "Codes: `already_exists` (a live category of that name)"), (status = 422, body = Problem)))]
#[post("/menu/categories", data = "<body>")]
async fn create_category(
    caller: Can<perm::MenuWrite>,
    body: JsonBody<NewCategory>,
) -> Result<Reply, ApiError> {
    let mut checks = Checks::new();
    let fields = CategoryFields::from_new(&body, &mut checks);
    checks.finish()?;
    caller
        .write(move |tx| Reply::created(menu::insert_category(tx, &fields)?))
        .await
}

/// Get a menu category.
///
/// Roles: any signed-in role.
/// An archived (deleted) category answers 404.
#[utoipa::path(tag = "Menu", responses((status = 200, body = Category), (status = 404, body = Problem)))]
#[get("/menu/categories/<id>")]
async fn get_category(caller: Can<perm::MenuRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "menu category")?;
    caller
        .read(move |conn| Reply::ok(menu::get_category(conn, &id)?))
        .await
}

/// Rename or reorder a menu category, or change the station its items cook at.
///
/// Roles: owner, manager.
/// Absent fields keep their value; `station_id: null` clears the station. Lines already
/// ordered keep the station they went to.
#[utoipa::path(tag = "Menu", request_body = CategoryPatch, responses(
    (status = 200, body = Category), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/menu/categories/<id>", data = "<body>")]
async fn update_category(
    caller: Can<perm::MenuWrite>,
    id: &str,
    body: JsonBody<CategoryPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "menu category")?;
    caller
        .write(move |tx| {
            let mut fields = CategoryFields::of(&menu::get_category(tx, &id)?);
            let mut checks = Checks::new();
            fields.apply(&body, &mut checks);
            checks.finish()?;
            Reply::ok(menu::update_category(tx, &id, &fields)?)
        })
        .await
}

/// Delete (archive) an empty menu category.
///
/// Roles: owner, manager.
/// Refused with 409 `category_not_empty` while it holds live items; move or delete them
/// first. Afterwards the category answers 404.
#[utoipa::path(tag = "Menu", responses(
    (status = 204), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `category_not_empty`")))]
#[delete("/menu/categories/<id>")]
async fn delete_category(caller: Can<perm::MenuWrite>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "menu category")?;
    caller
        .write(move |tx| {
            menu::archive_category(tx, &id)?;
            Ok(Reply::no_content())
        })
        .await
}

fn parse_bool(field: &str, value: Option<&str>) -> Result<Option<bool>, ApiError> {
    match value {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(ApiError::invalid_field(field, "must be true or false")),
    }
}

/// List live menu items, optionally of one category or by availability.
///
/// Roles: any signed-in role.
/// Archived items are left out; `available=false` lists the items taken off sale. In the
/// order they were created.
#[utoipa::path(tag = "Menu", responses((status = 200, body = Page<MenuItem>), (status = 422, body = Problem)))]
#[get("/menu/items?<category_id>&<available>&<limit>&<cursor>")]
async fn list_items(
    caller: Can<perm::MenuRead>,
    category_id: Option<&str>,
    available: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let limit = pagination::limit(limit)?;
    let available = parse_bool("available", available)?;
    let category_id = category_id.map(str::to_string);
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            let filter = menu::ItemFilter {
                category_id: category_id.as_deref(),
                available,
                after: cursor.as_deref(),
                limit,
            };
            let rows = menu::list_items(conn, &filter)?;
            let page = pagination::page(rows, limit, |i| i.id.clone());
            Reply::ok(Page {
                data: page.data.iter().map(|i| i.to_json(exponent)).collect(),
                next_cursor: page.next_cursor,
            })
        })
        .await
}

/// Create a menu item.
///
/// Roles: owner, manager.
/// The price has at most the currency's minor-unit digits; `station_id` overrides the
/// category's station. No webhook event.
#[utoipa::path(tag = "Menu", request_body = NewMenuItem, responses(
    (status = 201, body = MenuItem), (status = 422, body = Problem)))]
#[post("/menu/items", data = "<body>")]
async fn create_item(
    caller: Can<perm::MenuWrite>,
    body: JsonBody<NewMenuItem>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| {
            let exponent = tx.exponent()?;
            let mut checks = Checks::new();
            let fields = ItemFields::from_new(&body, exponent, &mut checks);
            checks.finish()?;
            Reply::created(menu::insert_item(tx, &fields)?.to_json(exponent))
        })
        .await
}

/// Get a menu item, archived ones included.
///
/// Roles: any signed-in role.
/// A deleted item shows `archived_at` and `available: false`.
#[utoipa::path(tag = "Menu", responses((status = 200, body = MenuItem), (status = 404, body = Problem)))]
#[get("/menu/items/<id>")]
async fn get_menu_item(caller: Can<perm::MenuRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "menu item")?;
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            Reply::ok(menu::get_item(conn, &id)?.to_json(exponent))
        })
        .await
}

/// Change a menu item. Orders already placed keep the prices they were taken at.
///
/// Roles: owner, manager.
/// Absent fields keep their value; `modifiers` replaces the whole list. A deleted item
/// answers 404.
#[utoipa::path(tag = "Menu", request_body = MenuItemPatch, responses(
    (status = 200, body = MenuItem), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/menu/items/<id>", data = "<body>")]
async fn update_item(
    caller: Can<perm::MenuWrite>,
    id: &str,
    body: JsonBody<MenuItemPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "menu item")?;
    caller
        .write(move |tx| {
            let exponent = tx.exponent()?;
            let mut item = menu::get_item(tx, &id)?;
            if item.archived_at.is_some() {
                return Err(ApiError::not_found("menu item"));
            }
            let mut checks = Checks::new();
            item.fields.apply(&body, exponent, &mut checks);
            checks.finish()?;
            Reply::ok(menu::update_item(tx, &id, &item.fields)?.to_json(exponent))
        })
        .await
}

/// Delete a menu item: it is archived, and past orders keep their lines.
///
/// Roles: owner, manager.
/// It leaves the lists and can no longer be ordered; a second delete answers 404.
#[utoipa::path(tag = "Menu", responses((status = 204), (status = 404, body = Problem)))]
#[delete("/menu/items/<id>")]
async fn delete_item(caller: Can<perm::MenuWrite>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "menu item")?;
    caller
        .write(move |tx| {
            menu::archive_item(tx, &id)?;
            Ok(Reply::no_content())
        })
        .await
}
