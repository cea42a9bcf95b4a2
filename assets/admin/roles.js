// What each role may open or change, as the server's permission table decides
// (src/auth/permissions.rs). Buttons a role may not use are hidden; the server
// refuses them anyway.

const MANAGERS = ["owner", "manager"];
const RULES = {
  dashboard: [...MANAGERS, "cashier", "server"],
  ordersScreen: [...MANAGERS, "cashier", "server"],
  menuScreen: [...MANAGERS, "cashier", "server"],
  settingsScreen: MANAGERS,
  menuWrite: MANAGERS,
  floorWrite: MANAGERS,
  timeSlotsWrite: MANAGERS,
  settingsWrite: MANAGERS,
  webhooks: MANAGERS,
  notifications: MANAGERS,
  diningRead: [...MANAGERS, "cashier", "server", "host"],
  queueWrite: [...MANAGERS, "host"],
  reservationsWrite: [...MANAGERS, "host"],
  sessionsWrite: [...MANAGERS, "host", "server"],
  ordersCancel: [...MANAGERS, "cashier"],
  refunds: MANAGERS,
  kitchenScreen: MANAGERS,
  kitchenStations: MANAGERS,
  staffScreen: MANAGERS,
  devicesScreen: MANAGERS,
  attendanceScreen: MANAGERS,
  campaignsScreen: MANAGERS,
  scheduleScreen: MANAGERS,
};

export function can(role, what) {
  return (RULES[what] || []).includes(role);
}
