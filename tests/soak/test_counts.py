"""The soak's counters find what they are for: a line lost or unsettled, work done twice at the carrier, in the
database, in the mail or at the gateway, a stuck line that never healed."""

from __future__ import annotations

from typing import Any

from soak.channel import Order
from soak.counts import count
from soak.evidence import Evidence
from soak.load import Run


def order(number: int, *ids: str, ports: dict[str, str] | None = None, accepted: bool = True) -> Order:
    found = Order(number, 0, len(ids), ports=ports or {}, enrollment_ids=list(ids), paid=True, accepted=accepted)
    found.mail_accepted = accepted
    return found


def row(eid: str, mdn: str | None, *, status: str = "ACTIVE", port: str | None = None) -> dict[str, Any]:
    return {
        "enrollment_id": eid,
        "parent_enrollment_id": eid,
        "status": status,
        "mdn": mdn,
        "customer_id": f"C{eid}",
        "email_hash": f"h-{eid}",
        "activation_type": "PORTIN" if port else "NEWACTIVATION",
        "port_status": port,
    }


def clean() -> tuple[Run, Evidence]:
    """Two orders, three lines (one ported in), each done exactly once."""
    run = Run(orders=[order(1, "E1", "E2", ports={"E2": "4045550001"}), order(2, "E3")], offered=2)
    evidence = Evidence(
        lines=[row("E1", "4040000001"), row("E2", "4045550001", port="COMPLETED"), row("E3", "4040000003")],
        payments=[
            {"enrollment_id": "E1", "status": "APPROVED", "transaction_id": "txn_1"},
            {"enrollment_id": "E3", "status": "APPROVED", "transaction_id": "txn_3"},
        ],
        ledger={
            "lines": [
                {"enrollment_id": "E1", "mdn": "4040000001"},
                {"enrollment_id": "E2", "mdn": "4045550001"},
                {"enrollment_id": "E3", "mdn": "4040000003"},
            ],
            "ports": [{"enrollment_id": "E2"}],
            "charges": [
                {"transaction_id": "txn_1", "status": "approved"},
                {"transaction_id": "txn_3", "status": "approved"},
            ],
        },
        mail=[{"subject": "Welcome E1", "message_id": "<1>"}, {"subject": "Welcome E3", "message_id": "<3>"}],
    )
    return run, evidence


def test_a_clean_run_counts_every_line_once_and_nothing_lost_or_doubled():
    counts = count(*clean())
    assert counts.lines["accepted"] == 3 and counts.lines["settled"] == 3 and counts.lines["ports_completed"] == 1
    assert counts.orders["accepted"] == 2 and counts.orders["mail_accepted"] == 2
    assert (counts.lost_total, counts.duplicated_total) == (0, 0)


def test_lines_missing_unsettled_or_unknown_to_the_carrier_are_lost():
    run, evidence = clean()
    evidence.lines = [row("E1", "4040000001", status="STUCK"), row("E2", "4045550001", port="SUBMITTED")]
    evidence.ledger["lines"] = evidence.ledger["lines"][:1]
    lost = count(run, evidence).lost
    assert lost["lines_missing_in_database"] == ["E3"]
    assert lost["lines_not_settled"] == ["E1 STUCK/None", "E2 ACTIVE/SUBMITTED"]
    assert lost["lines_unknown_to_the_carrier"] == ["E2", "E3"]


def test_an_accepted_mail_or_payment_that_never_happened_is_lost():
    run, evidence = clean()
    evidence.mail = evidence.mail[:1]
    evidence.ledger["charges"] = [{"transaction_id": "txn_1", "status": "voided"}, evidence.ledger["charges"][1]]
    lost = count(run, evidence).lost
    assert lost["mails_not_delivered"] == ["E3"]
    assert lost["payments_without_charge"] == ["E1"]


def test_work_done_twice_is_counted_wherever_it_shows():
    run, evidence = clean()
    evidence.ledger["lines"].append({"enrollment_id": "E1", "mdn": "4040000003"})  # a second activation, an MDN twice
    evidence.ledger["ports"].append({"enrollment_id": "E2"})
    evidence.lines.append({**row("E9", "4040000001"), "email_hash": "h-E1"})  # the customer and its MDN again
    evidence.mail.append({"subject": "Welcome E1", "message_id": "<1>"})
    evidence.payments.append({"enrollment_id": "E1", "status": "APPROVED", "transaction_id": "txn_1b"})
    evidence.ledger["charges"] += [
        {"transaction_id": "txn_1b", "status": "approved"},
        {"transaction_id": "txn_orphan", "status": "approved"},
    ]
    duplicated = count(run, evidence).duplicated
    assert duplicated["carrier_lines_per_enrollment"] == {"E1": 2}
    assert duplicated["mdns_at_the_carrier"] == {"4040000003": 2}
    assert duplicated["ports_per_enrollment"] == {"E2": 2}
    assert duplicated["customers_per_email"] == {"h-E1": 2}
    assert duplicated["mdns_in_database"] == {"4040000001": 2}
    assert duplicated["mails_per_order"] == {"Welcome E1": 2}
    assert duplicated["charges_per_enrollment"] == {"E1": 2}
    assert duplicated["charges_without_payment"] == {"txn_orphan": 2}
    assert count(run, evidence).duplicated_total == 8


def test_stuck_lines_are_healed_only_when_they_ended_settled():
    run, evidence = clean()
    run.ever_stuck = {"E1", "E3"}
    evidence.lines[2] = row("E3", None, status="STUCK")
    stuck = count(run, evidence).stuck
    assert (stuck["ever"], stuck["healed"], stuck["not_healed"]) == (["E1", "E3"], ["E1"], ["E3"])


def test_lines_of_a_create_never_accepted_are_followed_but_not_lost():
    run, evidence = clean()
    run.orders.append(order(3, "E4", accepted=False))
    evidence.lines.append(row("E4", "4040000004"))
    evidence.payments.append({"enrollment_id": "E4", "status": "APPROVED", "transaction_id": "txn_4"})
    evidence.ledger["charges"].append({"transaction_id": "txn_4", "status": "approved"})
    counts = count(run, evidence)
    assert counts.unanswered == {"lines": 1, "written": 1, "written_and_settled": 1}
    assert counts.lost_total == 0
