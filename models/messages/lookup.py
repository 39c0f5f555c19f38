"""The generic lookup's input, kept while a LookupWorkflow started before the typed lookups may still run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Lookup:  # type: ignore[explicit-any]  # its argument, below
    """Input of LookupWorkflow: which CarrierActivities method to run, and its argument (decoded by the
    activity into its own message type)."""

    activity: str
    # Temporal decodes an Any field as the JSON it was sent as; the activity decodes it into its own type.
    argument: Any  # type: ignore[explicit-any]
