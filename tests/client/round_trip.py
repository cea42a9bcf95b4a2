"""Logs in, creates an order and pays it through a client generated from the
served OpenAPI document. Usage: round_trip.py CLIENT_DIR BASE_URL EMAIL PASSWORD.
Prints the paid order as JSON; any refusal or parse failure exits non-zero."""

import json
import sys

sys.path.insert(0, sys.argv[1])

from brigade_client import AuthenticatedClient, Client  # noqa: E402
from brigade_client.api.auth import auth_login  # noqa: E402
from brigade_client.api.menu import menu_items_list  # noqa: E402
from brigade_client.api.orders import orders_create, orders_payments_create  # noqa: E402
from brigade_client.models import (  # noqa: E402
    LoginRequest,
    LoginResponse,
    NewLine,
    NewOrder,
    NewPayment,
    Order,
    OrderType,
    PaymentMethod,
    PaymentReceipt,
)

base, email, password = sys.argv[2:5]

login = auth_login.sync(client=Client(base_url=base), body=LoginRequest(email=email, password=password))
assert isinstance(login, LoginResponse), login
client = AuthenticatedClient(
    base_url=base, token=login.access_token, headers={"X-Tenant-ID": str(login.tenant.id)}
)

items = menu_items_list.sync(client=client)
item = next(i for i in items.data if i.available)

order = orders_create.sync(
    client=client,
    body=NewOrder(
        order_type=OrderType.TAKEAWAY,
        items=[NewLine(menu_item_id=item.id, quantity=2)],
    ),
)
assert isinstance(order, Order), order

receipt = orders_payments_create.sync(
    id=order.id,
    client=client,
    body=NewPayment(method=PaymentMethod.CASH, amount=order.balance_due + 5),
)
assert isinstance(receipt, PaymentReceipt), receipt

print(json.dumps({
    "order_id": str(receipt.order.id),
    "item_price": item.price,
    "total_amount": receipt.order.total_amount,
    "paid_amount": receipt.order.paid_amount,
    "balance_due": receipt.order.balance_due,
    "change_due": receipt.change_due,
}))
