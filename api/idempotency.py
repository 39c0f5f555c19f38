"""Request keys for operations that create a record: a repeated external_transaction_id finds the first."""

from __future__ import annotations

from api.gate import Caller


def request_key(caller: Caller, external_transaction_id: str | None) -> str | None:
    """Unique per vendor and action; None when the channel sent no external_transaction_id."""
    if not external_transaction_id:
        return None
    return f"{caller.vendor_id}:{caller.action}:{external_transaction_id}"
