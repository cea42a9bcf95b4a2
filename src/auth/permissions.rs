//! Roles and the one table that decides which role may do what.

use std::str::FromStr;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Manager,
    Cashier,
    Server,
    Host,
    Kitchen,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Owner,
        Role::Manager,
        Role::Cashier,
        Role::Server,
        Role::Host,
        Role::Kitchen,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Manager => "manager",
            Role::Cashier => "cashier",
            Role::Server => "server",
            Role::Host => "host",
            Role::Kitchen => "kitchen",
        }
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                format!("unknown role {s:?}; one of owner, manager, cashier, server, host, kitchen")
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    MenuRead,
    MenuWrite,
    OrdersRead,
    /// Create orders and change their items, notes, table and customer.
    OrdersWrite,
    /// Move an order along its lifecycle (kitchen: only to preparing and ready).
    OrdersAdvance,
    OrdersCancel,
    PaymentsTake,
    /// See the floor plan, seatmap, queue, sessions and reservations.
    DiningRead,
    /// Edit floors, tables and their layout.
    FloorPlanWrite,
    /// Run the waitlist.
    QueueWrite,
    /// Open, move and close seating sessions.
    SessionsWrite,
    /// Close a session that still has unpaid orders.
    SessionsForceClose,
    /// Take, change and move reservations through their lifecycle.
    ReservationsWrite,
    /// Change the weekly reservation time-slot rules.
    TimeSlotsWrite,
    SettingsRead,
    SettingsWrite,
    /// Webhook endpoint, secret and deliveries.
    WebhooksManage,
    NotificationsRead,
    /// The live event stream.
    EventsStream,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::MenuRead => "menu.read",
            Permission::MenuWrite => "menu.write",
            Permission::OrdersRead => "orders.read",
            Permission::OrdersWrite => "orders.write",
            Permission::OrdersAdvance => "orders.advance",
            Permission::OrdersCancel => "orders.cancel",
            Permission::PaymentsTake => "payments.take",
            Permission::DiningRead => "dining.read",
            Permission::FloorPlanWrite => "floor_plan.write",
            Permission::QueueWrite => "queue.write",
            Permission::SessionsWrite => "sessions.write",
            Permission::SessionsForceClose => "sessions.force_close",
            Permission::ReservationsWrite => "reservations.write",
            Permission::TimeSlotsWrite => "time_slots.write",
            Permission::SettingsRead => "settings.read",
            Permission::SettingsWrite => "settings.write",
            Permission::WebhooksManage => "webhooks.manage",
            Permission::NotificationsRead => "notifications.read",
            Permission::EventsStream => "events.stream",
        }
    }
}

/// The permission table. Every route checks exactly one permission against it.
pub fn allows(role: Role, permission: Permission) -> bool {
    use Permission::*;
    use Role::*;
    match permission {
        MenuRead | OrdersRead | EventsStream => true,
        MenuWrite | WebhooksManage | NotificationsRead => matches!(role, Owner | Manager),
        OrdersWrite | PaymentsTake => matches!(role, Owner | Manager | Cashier | Server),
        OrdersAdvance => matches!(role, Owner | Manager | Cashier | Server | Kitchen),
        OrdersCancel => matches!(role, Owner | Manager | Cashier),
        DiningRead => !matches!(role, Kitchen),
        FloorPlanWrite | SessionsForceClose | TimeSlotsWrite | SettingsWrite => {
            matches!(role, Owner | Manager)
        }
        QueueWrite | ReservationsWrite => matches!(role, Owner | Manager | Host),
        SessionsWrite => matches!(role, Owner | Manager | Host | Server),
        SettingsRead => true,
    }
}
