"""Tax calculations through a Stack: one registered by a payment, and update_tax_calculation_status_plum's
body for it."""

from __future__ import annotations

from typing import Any

from tests.support.builders import body


async def paid_calculation(stack: Any) -> str:
    paid = await stack.call("/payment", body("make_payment", enrollment_id=await stack.new_enrollment_id()))
    assert paid["msg_code"] == "RESTAPI000", paid
    calc_id: str = paid["data"]["calc_id"]
    return calc_id


def tax(calc_id: str, status: str, /, **overrides: Any) -> dict[str, Any]:
    fields = {"calc_id": calc_id, "iccid": "890126096321234567", "status": status, **overrides}
    return body("update_tax_calculation_status_plum", **fields)
