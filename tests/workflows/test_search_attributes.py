"""Lineup's search attributes reach every namespace it runs in with their types: a worker registers them as it
starts, so a dev server started again on its old database (`make run`), which registers no attribute added to its
flags since, gets the order's keyword lists too (issue 36)."""

from __future__ import annotations

import asyncio

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.testing import WorkflowEnvironment

from api.temporal import dev_server_flags, ensure_registered
from bench.ports import free_port
from tests.support.temporal import SHUTDOWN_SETTLE_SECONDS, STARTUP, venv_binary
from workflows.enrollment import ALL, ENROLLMENT_IDS, LINE_STATUSES, MDNS


async def test_a_worker_registers_every_attribute_with_its_type_on_a_server_that_lacks_them():
    env = await WorkflowEnvironment.start_local(  # no attribute registered, as a dev server on an older database
        port=free_port(),
        dev_server_existing_path=venv_binary("temporal"),
        dev_server_log_level="error",
        dev_server_startup_timeout=STARTUP,
    )
    try:
        await ensure_registered(env.client, "default")
        await ensure_registered(env.client, "default")  # every worker does, as it starts: idempotent
        listed = await env.client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace="default")
        )
    finally:
        await env.shutdown()
        await asyncio.sleep(SHUTDOWN_SETTLE_SECONDS)
    found = {key.name: listed.custom_attributes.get(key.name) for key in ALL}
    lists = {found[key.name] for key in (ENROLLMENT_IDS, LINE_STATUSES, MDNS)}
    assert lists == {IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST}
    assert found == {key.name: int(key.indexed_value_type) for key in ALL}


def test_the_dev_servers_flags_give_each_attribute_its_type():
    flags = dev_server_flags()
    assert flags[::2] == ["--search-attribute"] * len(ALL)
    assert "EnrollmentIds=KeywordList" in flags[1::2] and "EnrollmentId=Keyword" in flags[1::2]
    assert [flag.split("=")[0] for flag in flags[1::2]] == [key.name for key in ALL]
