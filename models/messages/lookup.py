"""The generic lookup's input, kept while a LookupWorkflow started before the typed lookups may still run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Lookup:
    """Input of LookupWorkflow: which CarrierActivities method to run, and its argument (decoded by the
    activity into its own message type)."""

    activity: str
    argument: Any
