//! What a verified message does to orders. A message's instructions run in one
//! write: all of them take effect, with their `order.*` events, or none. A
//! refusal (an unknown order, a currency that is not the tenant's, a payment
//! the order cannot take) fails the write; the worker then parks the message
//! with the refusal's reason for a manager.

use crate::domain::menu;
use crate::domain::orders::{
    self, ExternalRef, NewPayment, NewRefund, OrderRow, OrderStatus, PartnerOrder, PaymentMethod,
    PricedLine, PARTNER_FEE_ITEM, PARTNER_OPEN_ITEM,
};
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::to_json;

use super::menu_map::mapped_item;
use super::model::{DeliveryOrder, DeliveryStatus, Instruction};

/// The longest name or note a partner's line keeps.
const MAX_LINE_TEXT: usize = 200;
const MAX_QUANTITY: i64 = 999;

/// What a message's instructions came to.
#[derive(Debug, Default, PartialEq)]
pub struct Applied {
    /// The order the message created or changed last.
    pub order_id: Option<String>,
}

/// Carries out `instructions` from the integration `platform`.
pub fn apply(
    tx: &mut Tx,
    platform: &str,
    auto_accept: bool,
    instructions: &[Instruction],
) -> Result<Applied, ApiError> {
    let mut applied = Applied::default();
    for instruction in instructions {
        let order_id = match instruction {
            Instruction::Payment {
                order_id,
                amount,
                currency,
                reference,
            }
            | Instruction::Refund {
                order_id,
                amount,
                currency,
                reference,
            } => {
                let money = GatewayMoney {
                    order_id,
                    amount: *amount,
                    currency,
                    reference,
                };
                let refund = matches!(instruction, Instruction::Refund { .. });
                Some(record(tx, platform, money, refund)?)
            }
            Instruction::RefundOfPayment {
                payment_reference,
                amount,
                currency,
                reference,
            } => {
                let order_id =
                    orders::order_of_payment(tx, payment_reference)?.ok_or_else(|| {
                        ApiError::conflict(
                            "unknown_order",
                            format!("no payment {payment_reference} was recorded on any order"),
                        )
                    })?;
                let money = GatewayMoney {
                    order_id: &order_id,
                    amount: *amount,
                    currency,
                    reference,
                };
                Some(record(tx, platform, money, true)?)
            }
            Instruction::DeliveryOrder(order) => {
                Some(receive_order(tx, platform, auto_accept, order)?)
            }
            Instruction::DeliveryStatus {
                external_id,
                status,
            } => {
                let order =
                    orders::find_external_order(tx, platform, external_id)?.ok_or_else(|| {
                        ApiError::conflict(
                            "unknown_order",
                            format!("no order from {platform} with id {external_id}"),
                        )
                    })?;
                move_order(tx, platform, &order, *status)?;
                Some(order.id)
            }
            Instruction::FetchOrder { external_id, .. } => {
                return Err(ApiError::internal(format!(
                    "order {external_id} from {platform} was not fetched before it was applied"
                )))
            }
            Instruction::Ignore { .. } => None,
        };
        if order_id.is_some() {
            applied.order_id = order_id;
        }
    }
    Ok(applied)
}

/// The tenant's order `order_id`, refused (to be parked) when there is none.
fn order_named(tx: &Tx, order_id: &str) -> Result<OrderRow, ApiError> {
    let unknown = || ApiError::conflict("unknown_order", format!("no order with id {order_id}"));
    if order_id.parse::<uuid::Uuid>().is_err() {
        return Err(unknown());
    }
    orders::find_order(tx, order_id).map_err(|_| unknown())
}

fn same_currency(tx: &Tx, currency: &str) -> Result<(), ApiError> {
    let ours = tx.settings()?.currency.clone();
    if currency.eq_ignore_ascii_case(&ours) {
        Ok(())
    } else {
        Err(ApiError::conflict(
            "currency_mismatch",
            format!("the message is in {currency}; this business takes {ours}"),
        ))
    }
}

/// A gateway's payment or refund on one of the tenant's orders.
struct GatewayMoney<'a> {
    order_id: &'a str,
    amount: i64,
    currency: &'a str,
    /// The gateway's id of the payment or refund: recorded once per order.
    reference: &'a str,
}

/// Records a gateway's payment (or, with `refund`, its refund) on the order,
/// once per gateway reference; returns the order's id.
fn record(
    tx: &mut Tx,
    platform: &str,
    money: GatewayMoney,
    refund: bool,
) -> Result<String, ApiError> {
    same_currency(tx, money.currency)?;
    let order = order_named(tx, money.order_id)?;
    if orders::has_reference(tx, &order.id, money.reference, refund)? {
        return Ok(order.id);
    }
    let amount = to_json(money.amount, tx.exponent()?);
    let reference = Some(money.reference.to_string());
    if refund {
        let refund = NewRefund {
            lines: None,
            amount: Some(amount),
            reason: format!("refunded through {platform}"),
            method: PaymentMethod::Card,
            reference,
        };
        orders::refund(tx, &order.id, &refund)?;
    } else {
        let payment = NewPayment {
            method: PaymentMethod::Card,
            amount,
            tip: None,
            reference,
        };
        orders::add_payment(tx, &order.id, &payment)?;
    }
    Ok(order.id)
}

/// Creates the order a platform sent, or, when it was received before, moves it
/// to the status it now has.
fn receive_order(
    tx: &mut Tx,
    platform: &str,
    auto_accept: bool,
    order: &DeliveryOrder,
) -> Result<String, ApiError> {
    if let Some(existing) = orders::find_external_order(tx, platform, &order.external_id)? {
        if let Some(status) = order.status {
            move_order(tx, platform, &existing, status)?;
        }
        return Ok(existing.id);
    }
    same_currency(tx, &order.currency)?;
    let mut lines = Vec::with_capacity(order.items.len() + order.fees.len());
    for (i, item) in order.items.iter().enumerate() {
        lines.push(partner_line(tx, platform, i, item)?);
    }
    for fee in &order.fees {
        lines.push(PricedLine {
            menu_item_id: PARTNER_FEE_ITEM.to_string(),
            name: clip(&fee.name),
            quantity: 1,
            unit_price: fee.amount.max(0),
            modifiers: Vec::new(),
            notes: None,
            tax_rate: 0,
            station_id: None,
            course: 1,
            seat: None,
        });
    }
    let customer_name = order.customer_name.as_deref().map(clip);
    let row = orders::create_partner_order(
        tx,
        &PartnerOrder {
            external: ExternalRef {
                platform: platform.to_string(),
                id: order.external_id.clone(),
                display_id: order.display_id.clone(),
            },
            customer_name: customer_name.or_else(|| Some(format!("{platform} customer"))),
            customer_phone: order
                .customer_phone
                .as_deref()
                .map(|p| p.chars().take(40).collect()),
            notes: order
                .notes
                .as_deref()
                .map(|n| n.chars().take(1000).collect()),
            lines,
        },
    )?;
    let status = match order.status {
        None | Some(DeliveryStatus::Placed) if auto_accept => Some(DeliveryStatus::Accepted),
        other => other,
    };
    if let Some(status) = status {
        move_order(tx, platform, &row, status)?;
    }
    Ok(row.id)
}

fn clip(text: &str) -> String {
    text.trim().chars().take(MAX_LINE_TEXT).collect()
}

/// A platform's line, priced as the platform says: on its mapped menu item (by
/// item id, then SKU, then a unique name), else kept as an open item.
fn partner_line(
    tx: &Tx,
    platform: &str,
    index: usize,
    item: &super::model::DeliveryItem,
) -> Result<PricedLine, ApiError> {
    let field = format!("items[{index}]");
    if !(1..=MAX_QUANTITY).contains(&item.quantity) {
        return Err(ApiError::invalid_field(
            &format!("{field}.quantity"),
            format!("must be 1 to {MAX_QUANTITY}, not {}", item.quantity),
        ));
    }
    if item.unit_price < 0 {
        return Err(ApiError::invalid_field(
            &format!("{field}.unit_price"),
            "must not be negative",
        ));
    }
    let name = clip(&item.name);
    if name.is_empty() {
        return Err(ApiError::invalid_field(
            &format!("{field}.name"),
            "is empty",
        ));
    }
    let mut menu_item = None;
    for key in [item.external_id.as_deref(), item.sku.as_deref()]
        .into_iter()
        .flatten()
    {
        if let Some(id) = mapped_item(tx, platform, key)? {
            menu_item = Some(id);
            break;
        }
    }
    if menu_item.is_none() {
        menu_item = menu::find_item_by_name(tx, &name)?;
    }
    let notes = item.notes.as_deref().map(clip).filter(|n| !n.is_empty());
    Ok(match menu_item {
        Some(id) => {
            let stored = menu::get_item(tx, &id)?;
            PricedLine {
                menu_item_id: stored.id,
                name,
                quantity: item.quantity,
                unit_price: item.unit_price,
                modifiers: Vec::new(),
                notes,
                tax_rate: stored.fields.tax_rate,
                station_id: stored.cooks_at,
                course: 1,
                seat: None,
            }
        }
        None => PricedLine {
            menu_item_id: PARTNER_OPEN_ITEM.to_string(),
            name,
            quantity: item.quantity,
            unit_price: item.unit_price,
            modifiers: Vec::new(),
            notes,
            tax_rate: 0,
            station_id: None,
            course: 1,
            seat: None,
        },
    })
}

/// Moves a platform's order to where the platform says it is. Repeats change
/// nothing; a move its state forbids (picking up a cancelled order) is refused.
fn move_order(
    tx: &mut Tx,
    platform: &str,
    order: &OrderRow,
    status: DeliveryStatus,
) -> Result<(), ApiError> {
    match status {
        DeliveryStatus::Placed => Ok(()),
        DeliveryStatus::Accepted => {
            if order.status == OrderStatus::Pending {
                orders::change_status(tx, &order.id, OrderStatus::Confirmed, None)?;
            }
            Ok(())
        }
        DeliveryStatus::PickedUp | DeliveryStatus::Delivered => {
            if order.status == OrderStatus::Completed {
                return Ok(());
            }
            if order.status == OrderStatus::Pending {
                orders::change_status(tx, &order.id, OrderStatus::Confirmed, None)?;
            }
            // The platform took the customer's money: the order is paid through it.
            let current = orders::find_order(tx, &order.id)?;
            if current.status.is_open() && current.balance_due() > 0 {
                let exponent = tx.exponent()?;
                let payment = NewPayment {
                    method: PaymentMethod::Other,
                    amount: to_json(current.balance_due(), exponent),
                    tip: None,
                    reference: Some(format!("{platform}:{}", external_id(&current))),
                };
                orders::add_payment(tx, &order.id, &payment)?;
            }
            orders::change_status(tx, &order.id, OrderStatus::Completed, None)?;
            Ok(())
        }
        DeliveryStatus::Cancelled => {
            if order.status == OrderStatus::Cancelled {
                return Ok(());
            }
            orders::cancel_order(
                tx,
                &order.id,
                Some(format!("cancelled on {platform}")),
                true,
            )?;
            Ok(())
        }
    }
}

fn external_id(order: &OrderRow) -> &str {
    order.external.as_ref().map_or("", |e| e.id.as_str())
}
