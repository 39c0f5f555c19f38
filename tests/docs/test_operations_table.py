"""The operations table channels read is the catalog the dispatcher serves."""

from __future__ import annotations

from api.catalog import CATALOG
from codegen.docs import OPERATIONS_SECTION, operations_table


def test_the_channels_page_holds_the_table_the_catalog_generates() -> None:
    assert not OPERATIONS_SECTION.stale(operations_table()), "run `make generate`"


def test_the_interface_declares_its_13_operations_and_every_other_action_is_an_extension() -> None:
    interface = {found.name for found in CATALOG.actions if found.interface}
    assert interface == {
        "create_customer_prepaid_multiline", "line_inquiry", "nlad_etc_check", "tpiv_listing", "send",
        "update_location_coordinate", "check_signature", "add_notes", "saved_card_list", "agent_change_password",
        "check_device_compatibility", "query_portin", "update_tax_calculation_status_plum",
    }  # fmt: skip


def test_every_path_and_name_an_action_answers_to_is_in_the_table() -> None:
    shown = operations_table()
    assert all(f"`/{group}`" in shown for group in CATALOG.groups)
    assert all(f"`{name}`" in shown for name in CATALOG.by_name)
