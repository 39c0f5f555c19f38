"""The soak's verdict from what was read: every accepted line, charge and e-mail exactly once, every stuck line
healed by itself. Each anomaly keeps its ids, so a finding comes with its evidence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from soak.evidence import Evidence, settled
from soak.load import Run

APPROVED = "approved"


def repeated(values: Iterable[Any]) -> dict[str, int]:
    """Values seen more than once, with how many times (None is no value and never repeats)."""
    return {str(value): count for value, count in Counter(v for v in values if v is not None).items() if count > 1}


@dataclass
class Counts:
    orders: dict[str, int] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    lost: dict[str, list[str]] = field(default_factory=dict)  # kind → ids
    duplicated: dict[str, dict[str, int]] = field(default_factory=dict)  # kind → id → times seen
    stuck: dict[str, list[str]] = field(default_factory=dict)  # ever, healed, not healed
    unanswered: dict[str, int] = field(default_factory=dict)  # lines of creates never accepted
    server_errors: list[str] = field(default_factory=list)  # "order <n>: <path> <status> …": answers of HTTP 5xx

    @property
    def lost_total(self) -> int:
        return sum(len(ids) for ids in self.lost.values())

    @property
    def duplicated_total(self) -> int:
        return sum(times - 1 for found in self.duplicated.values() for times in found.values())


def count(run: Run, evidence: Evidence) -> Counts:
    rows = {row["enrollment_id"]: row for row in evidence.lines}
    accepted = {eid for order in run.orders if order.accepted for eid in order.enrollment_ids}
    return Counts(
        orders=_orders(run),
        lines=_lines(run, rows, accepted),
        lost=_lost(run, evidence, rows, accepted),
        duplicated=_duplicated(evidence),
        stuck=_stuck(run, rows),
        unanswered=_unanswered(run, rows),
        server_errors=[f"order {order.number}: {said}" for order in run.orders for said in order.server_errors],
    )


def _orders(run: Run) -> dict[str, int]:
    stopped = Counter(order.stopped_at for order in run.orders if order.stopped_at)
    return {
        "offered": run.offered,
        "skipped_all_channels_busy": run.skipped,
        "started": len(run.orders),
        "accepted": sum(order.accepted for order in run.orders),
        "paid": sum(order.paid for order in run.orders),
        "mail_accepted": sum(order.mail_accepted for order in run.orders),
        **{f"stopped_at_{step}": times for step, times in stopped.items()},
    }


def _lines(run: Run, rows: dict[str, dict[str, Any]], accepted: set[str]) -> dict[str, int]:
    ports = {eid for order in run.orders if order.accepted for eid in order.ports}
    return {
        "accepted": len(accepted),
        "accepted_portin": len(ports),
        "settled": sum(1 for eid in accepted if eid in rows and settled(rows[eid])),
        "ports_completed": sum(1 for eid in ports if eid in rows and rows[eid]["port_status"] == "COMPLETED"),
        "in_database": len(rows),
    }


def _stuck(run: Run, rows: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Lines seen STUCK; healed: settled in the end (the soak never asks support for a retry)."""
    ever = sorted(run.ever_stuck)
    healed = [eid for eid in ever if eid in rows and settled(rows[eid])]
    return {"ever": ever, "healed": healed, "not_healed": [eid for eid in ever if eid not in healed]}


def _unanswered(run: Run, rows: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Lines of paid orders whose create was never accepted: they may have been written all the same."""
    lines = {eid for order in run.orders if order.paid and not order.accepted for eid in order.enrollment_ids}
    return {
        "lines": len(lines),
        "written": sum(1 for eid in lines if eid in rows),
        "written_and_settled": sum(1 for eid in lines if eid in rows and settled(rows[eid])),
    }


def _lost(run: Run, evidence: Evidence, rows: dict[str, dict[str, Any]], accepted: set[str]) -> dict[str, list[str]]:
    """Accepted work that did not happen: lines missing, unsettled or unknown to the carrier, e-mails never
    delivered, payments without their charge."""
    carrier = {line["enrollment_id"] for line in evidence.ledger.get("lines", [])}
    mailed = {mail["subject"] for mail in evidence.mail}
    charged = {c["transaction_id"] for c in evidence.ledger.get("charges", []) if c["status"] == APPROVED}
    paid_by = {p["enrollment_id"]: p for p in evidence.payments if p["status"] == "APPROVED"}
    return {
        "lines_missing_in_database": sorted(eid for eid in accepted if eid not in rows),
        "lines_not_settled": sorted(
            f"{eid} {rows[eid]['status']}/{rows[eid]['port_status']}"
            for eid in accepted
            if eid in rows and not settled(rows[eid])
        ),
        "lines_unknown_to_the_carrier": sorted(eid for eid in accepted if eid not in carrier),
        "mails_not_delivered": sorted(
            o.parent for o in run.orders if o.mail_accepted and o.parent and f"Welcome {o.parent}" not in mailed
        ),
        "payments_without_charge": sorted(
            o.parent
            for o in run.orders
            if o.paid and o.parent and (o.parent not in paid_by or paid_by[o.parent]["transaction_id"] not in charged)
        ),
    }


def _duplicated(evidence: Evidence) -> dict[str, dict[str, int]]:
    """Anything done twice, over everything the run made (accepted or not)."""
    ledger = evidence.ledger
    carrier_lines = ledger.get("lines", [])
    payment_of = {p["transaction_id"]: p["enrollment_id"] for p in evidence.payments if p["transaction_id"]}
    approved = [c for c in ledger.get("charges", []) if c["status"] == APPROVED]
    return {
        "carrier_lines_per_enrollment": repeated(line["enrollment_id"] for line in carrier_lines),
        "mdns_at_the_carrier": repeated(line["mdn"] for line in carrier_lines),
        "mdns_in_database": repeated(row["mdn"] for row in evidence.lines),
        "ports_per_enrollment": repeated(port["enrollment_id"] for port in ledger.get("ports", [])),
        "customers_per_email": repeated(row["email_hash"] for row in evidence.lines),
        "mails_per_order": repeated(mail["subject"] for mail in evidence.mail),
        "charges_per_enrollment": repeated(payment_of.get(c["transaction_id"]) for c in approved),
        # An approved charge Lineup holds no payment for took money without a record: counted as a second one.
        "charges_without_payment": {c["transaction_id"]: 2 for c in approved if c["transaction_id"] not in payment_of},
    }
