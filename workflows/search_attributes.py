"""Custom search attributes operations staff filter on in the Temporal UI. Ids and states only, never PII."""

from __future__ import annotations

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

from models.messages.enrollment import LinePlan

ENROLLMENT_ID = SearchAttributeKey.for_keyword("EnrollmentId")
PARENT_ENROLLMENT_ID = SearchAttributeKey.for_keyword("ParentEnrollmentId")
AGENT_ID = SearchAttributeKey.for_keyword("AgentId")
LINE_STATUS = SearchAttributeKey.for_keyword("LineStatus")
ACTIVATION_TYPE = SearchAttributeKey.for_keyword("ActivationType")
CARRIER = SearchAttributeKey.for_keyword("Carrier")
MDN = SearchAttributeKey.for_keyword("Mdn")  # the line's number once active (a ported number included)

ALL = (ENROLLMENT_ID, PARENT_ENROLLMENT_ID, AGENT_ID, LINE_STATUS, ACTIVATION_TYPE, CARRIER, MDN)


def line_attributes(plan: LinePlan, *, parent_enrollment_id: str, agent_id: str | None) -> TypedSearchAttributes:
    """A line's workflow's attributes as it starts (LineWorkflow, or PortInWorkflow for a port)."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(ENROLLMENT_ID, plan.enrollment_id),
            SearchAttributePair(PARENT_ENROLLMENT_ID, parent_enrollment_id),
            SearchAttributePair(AGENT_ID, agent_id or ""),
            SearchAttributePair(ACTIVATION_TYPE, plan.activation_type),
            SearchAttributePair(CARRIER, plan.carrier or ""),
            SearchAttributePair(LINE_STATUS, plan.status),
            *([SearchAttributePair(MDN, plan.mdn)] if plan.mdn else []),
        ]
    )


async def register(client: Client, namespace: str) -> None:
    """Adds every attribute to the namespace (idempotent: an existing one only makes the server log a warning).
    Needed before a worker runs a workflow that sets one (temporal.md)."""
    request = AddSearchAttributesRequest(
        namespace=namespace, search_attributes={key.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for key in ALL}
    )
    await client.operator_service.add_search_attributes(request)


def dev_server_flags() -> list[str]:
    """`temporal server start-dev` flags that register every attribute before any worker starts."""
    return [flag for key in ALL for flag in ("--search-attribute", f"{key.name}=Keyword")]
