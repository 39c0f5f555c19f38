"""Opening a line on the carrier: the one place MDNs, MSIDs, MSLs and starting balances are made."""

import random
import time

from sandbox.identifiers import area_code_for_state, generate_mdn, random_digits
from sandbox.store import Row, Store

# Every new line starts with the same plan allowance: minutes, messages, megabytes.
STARTING_BALANCES = {"talk_balance": 1000, "sms_balance": 1000, "data_balance": 5120}


def new_mdn(store: Store, *, state: str) -> str:
    """An MDN in the state's area code that no line has ever held."""
    area_code = area_code_for_state(state)
    while True:
        mdn = generate_mdn(area_code=area_code)
        if not store.mdn_taken(mdn):
            return mdn


def open_line(
    store: Store,
    *,
    vendor_id: str,
    mdn: str,
    iccid: str | None,
    esn: str | None = None,
    plan_id: str | None = None,
    enrollment_id: str | None = None,
) -> Row:
    """Store a new ACTIVE line with a fresh MSID and MSL and return it."""
    line: Row = {
        "vendor_id": vendor_id,
        "enrollment_id": enrollment_id,
        "mdn": mdn,
        # MSIDs look like phone numbers, so no leading zero.
        "msid": random.choice("123456789") + random_digits(9),
        "msl": random_digits(6),
        "iccid": iccid,
        "esn": esn,
        "plan_id": plan_id,
        "status": "ACTIVE",
        **STARTING_BALANCES,
        "created_at": time.time(),
    }
    line_id = store.add_line(line)
    return {**line, "id": line_id}


def account_number(line: Row) -> str:
    """The billing account number (BAN), derived from the line so it is stable across inquiries."""
    return f"40{int(line['id']):08d}"
