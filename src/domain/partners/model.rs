//! What the partners group speaks: the integrations a tenant connects, the
//! messages they send, and the plain instructions an adapter turns a
//! partner's message into, so the effects never see a platform's format.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which contract route a partner calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntegrationKind {
    /// `POST /webhook/delivery/{tenant_slug}/{platform}`
    Delivery,
    /// `POST /webhook/payment/{tenant_slug}/{gateway}`
    Payment,
}

impl IntegrationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            IntegrationKind::Delivery => "delivery",
            IntegrationKind::Payment => "payment",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [IntegrationKind::Delivery, IntegrationKind::Payment]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// What a verified message asks Brigade to do. Amounts are in minor units of
/// `currency` (ISO 4217, upper case) as the partner sent them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Instruction {
    /// Money taken for an order of this tenant (`order_id` is Brigade's id).
    Payment {
        order_id: String,
        amount: i64,
        currency: String,
        /// The gateway's own id of the payment, kept as the payment's reference;
        /// a second payment with the same reference on the order is not recorded.
        reference: String,
    },
    /// Money given back on an order.
    Refund {
        order_id: String,
        amount: i64,
        currency: String,
        /// The gateway's id of the refund (one refund, recorded once).
        reference: String,
    },
    /// Money given back on the order a gateway's earlier payment was recorded
    /// on: for gateways whose refunds name the payment, not the order.
    RefundOfPayment {
        /// The gateway's id of the payment refunded, as recorded on the order.
        payment_reference: String,
        amount: i64,
        currency: String,
        reference: String,
    },
    /// A delivery order, new or repeated (the same `external_id` updates nothing
    /// but its status).
    DeliveryOrder(DeliveryOrder),
    /// A delivery order moved on the platform.
    DeliveryStatus {
        external_id: String,
        status: DeliveryStatus,
    },
    /// A thin notification: the order must be fetched from the platform's API
    /// (`href` as given, or built by the adapter); the adapter's `fetch` turns
    /// the answer into instructions.
    FetchOrder {
        external_id: String,
        href: Option<String>,
    },
    /// A message the adapter understands but that changes nothing here (an event
    /// type Brigade does not act on); kept as processed with the reason.
    Ignore { reason: String },
}

/// An order from a delivery platform, in the platform's prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryOrder {
    /// The platform's id of the order.
    pub external_id: String,
    /// The number the courier and the customer see (`"B7C2"`).
    pub display_id: Option<String>,
    pub currency: String,
    pub customer_name: Option<String>,
    pub customer_phone: Option<String>,
    pub notes: Option<String>,
    pub items: Vec<DeliveryItem>,
    /// Fees the platform charges the customer (delivery, service), each kept as a
    /// line of its own.
    pub fees: Vec<DeliveryFee>,
    /// Where the order stands on the platform when it arrives.
    pub status: Option<DeliveryStatus>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryItem {
    /// The platform's id of the item, matched through the menu map.
    pub external_id: Option<String>,
    /// Matched against the menu map too, and against menu item SKUs.
    pub sku: Option<String>,
    pub name: String,
    pub quantity: i64,
    /// The price of one unit, modifiers included, in minor units.
    pub unit_price: i64,
    pub notes: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryFee {
    pub name: String,
    pub amount: i64,
}

/// A delivery order's state on the platform, as far as the kitchen cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Placed, not yet accepted by the restaurant.
    Placed,
    /// Accepted: it fires to the kitchen.
    Accepted,
    /// The courier took it.
    PickedUp,
    /// Handed to the customer.
    Delivered,
    Cancelled,
}
