//! Roles and the one table that decides which role may do what.

use std::str::FromStr;

use crate::domain::orders::OrderStatus;

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

/// Declares the permissions once: the enum, each one's name, and a type per
/// permission for the `Can<P>` route guard (`Can<perm::OrdersWrite>`).
macro_rules! permissions {
    ($($(#[$doc:meta])* $name:ident => $text:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Permission {
            $($(#[$doc])* $name,)*
        }

        impl Permission {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Permission::$name => $text,)*
                }
            }
        }

        /// The permissions as types, for `Can<perm::…>`.
        pub mod perm {
            $(
                pub struct $name;
                impl super::Grant for $name {
                    const PERMISSION: super::Permission = super::Permission::$name;
                }
            )*
        }
    };
}

/// A permission named as a type, so a route states its permission in its signature.
pub trait Grant: Send + Sync + 'static {
    const PERMISSION: Permission;
}

permissions! {
    /// See who one is.
    ProfileRead => "profile.read",
    MenuRead => "menu.read",
    MenuWrite => "menu.write",
    OrdersRead => "orders.read",
    /// Create orders and change their items, notes, table and customer.
    OrdersWrite => "orders.write",
    /// Move an order along its lifecycle (kitchen: only to preparing and ready).
    OrdersAdvance => "orders.advance",
    OrdersCancel => "orders.cancel",
    PaymentsTake => "payments.take",
    /// Give money back: refunds, and cancelling an order with its payments.
    PaymentsRefund => "payments.refund",
    /// See the floor plan, seatmap, queue, sessions and reservations.
    DiningRead => "dining.read",
    /// Edit floors, tables and their layout.
    FloorPlanWrite => "floor_plan.write",
    /// Run the waitlist.
    QueueWrite => "queue.write",
    /// Open, move and close seating sessions.
    SessionsWrite => "sessions.write",
    /// Close a session that still has unpaid orders.
    SessionsForceClose => "sessions.force_close",
    /// Take, change and move reservations through their lifecycle.
    ReservationsWrite => "reservations.write",
    /// Change the weekly reservation time-slot rules.
    TimeSlotsWrite => "time_slots.write",
    SettingsRead => "settings.read",
    SettingsWrite => "settings.write",
    /// Webhook endpoint, secret and deliveries.
    WebhooksManage => "webhooks.manage",
    NotificationsRead => "notifications.read",
    /// The live event stream (each caller receives only the events it may read).
    EventsStream => "events.stream",
    /// See the kitchen's stations, tickets and all-day counts.
    KitchenRead => "kitchen.read",
    /// Start, bump, recall and acknowledge tickets; move their items.
    KitchenWork => "kitchen.work",
    /// Create and change stations.
    KitchenStations => "kitchen.stations",
    /// List the server's backups of the tenant and restore the tenant from one.
    BackupsManage => "backups.manage",
    /// See the staff list (names, roles, contact).
    StaffRead => "staff.read",
    /// See hourly wages.
    StaffWages => "staff.wages",
    /// Add, change, deactivate staff and reset their passwords.
    StaffManage => "staff.manage",
    /// Create setup keys, see and revoke paired devices.
    DevicesManage => "devices.manage",
    /// Clock in and out, take breaks, and see one's own time records.
    AttendancePunch => "attendance.punch",
    /// See everyone's time records.
    AttendanceManage => "attendance.manage",
    /// See discount campaigns and their coupon codes.
    CampaignsRead => "campaigns.read",
    /// Create, change, run and pause campaigns; make coupon codes.
    CampaignsManage => "campaigns.manage",
    /// See the published schedule and one's own shifts.
    ShiftsRead => "shifts.read",
    /// Draft, change, publish and copy shifts; see drafts and the comparison with
    /// attendance and its labour cost.
    ShiftsManage => "shifts.manage",
    /// Connect delivery platforms and payment gateways, map their items to the
    /// menu, and see and retry the messages they sent.
    IntegrationsManage => "integrations.manage",
}

/// The permission table. Every route states exactly one permission, checked
/// against this table by its `Can<P>` guard.
pub fn allows(role: Role, permission: Permission) -> bool {
    use Permission::*;
    use Role::*;
    match permission {
        ProfileRead | MenuRead | OrdersRead | EventsStream => true,
        MenuWrite | WebhooksManage | NotificationsRead | PaymentsRefund => {
            matches!(role, Owner | Manager)
        }
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
        KitchenRead => matches!(role, Owner | Manager | Kitchen | Cashier | Server),
        KitchenWork => matches!(role, Owner | Manager | Kitchen),
        KitchenStations => matches!(role, Owner | Manager),
        BackupsManage => matches!(role, Owner),
        StaffRead => true,
        StaffWages | StaffManage | DevicesManage | AttendanceManage => {
            matches!(role, Owner | Manager)
        }
        AttendancePunch => true,
        CampaignsRead => matches!(role, Owner | Manager | Cashier | Server),
        CampaignsManage => matches!(role, Owner | Manager),
        ShiftsRead => true,
        ShiftsManage | IntegrationsManage => matches!(role, Owner | Manager),
    }
}

/// Moving an order to `next`, beyond `OrdersAdvance`: cancelling needs
/// `OrdersCancel`, and kitchen staff may only mark orders preparing or ready.
pub fn may_move_order(role: Role, next: OrderStatus) -> Result<(), Permission> {
    match next {
        OrderStatus::Cancelled if !allows(role, Permission::OrdersCancel) => {
            Err(Permission::OrdersCancel)
        }
        OrderStatus::Preparing | OrderStatus::Ready => Ok(()),
        _ if role == Role::Kitchen => Err(Permission::OrdersAdvance),
        _ => Ok(()),
    }
}

/// What one must be allowed to read to receive an event on the live stream.
pub fn to_receive(event: &str) -> Permission {
    match event.split_once('.').map_or(event, |(group, _)| group) {
        "order" => Permission::OrdersRead,
        "session" | "reservation" => Permission::DiningRead,
        "kitchen" => Permission::KitchenRead,
        // Webhook tests carry nothing but who asked for them.
        _ => Permission::EventsStream,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kitchen_moves_orders_to_preparing_and_ready_only() {
        assert!(may_move_order(Role::Kitchen, OrderStatus::Preparing).is_ok());
        assert!(may_move_order(Role::Kitchen, OrderStatus::Ready).is_ok());
        assert!(may_move_order(Role::Kitchen, OrderStatus::Served).is_err());
        assert!(may_move_order(Role::Kitchen, OrderStatus::Cancelled).is_err());
        assert!(may_move_order(Role::Server, OrderStatus::Served).is_ok());
        assert_eq!(
            may_move_order(Role::Server, OrderStatus::Cancelled),
            Err(Permission::OrdersCancel)
        );
        assert!(may_move_order(Role::Cashier, OrderStatus::Cancelled).is_ok());
    }

    #[test]
    fn the_stream_carries_dining_events_only_to_who_may_read_the_dining_room() {
        let receives = |role, event| allows(role, to_receive(event));
        assert!(receives(Role::Kitchen, "order.created"));
        assert!(!receives(Role::Kitchen, "reservation.created"));
        assert!(!receives(Role::Kitchen, "session.closed"));
        assert!(receives(Role::Host, "reservation.created"));
        assert!(receives(Role::Kitchen, "webhook.test"));
        assert!(receives(Role::Kitchen, "kitchen.ticket.bumped"));
        assert!(!receives(Role::Host, "kitchen.ticket.created"));
    }
}
