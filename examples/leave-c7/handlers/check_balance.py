"""Check leave balance: how many days of this leave type the employee has left."""

from decimal import Decimal


def handle(inputs, bindings):
    left = bindings.balances(inputs["employee"], inputs["leave_type"])
    return {"balance_left": Decimal(str(left))}
