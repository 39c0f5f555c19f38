"""Every action, from the declarations of the domains' handlers (services.actions): the dispatcher, the OpenAPI
document and the tests read this, and nothing else lists actions. A new domain module is named here once."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

from services import address, agents, cards, devices, eligibility, mail, notes, port_orders, porting
from services.actions import Action, declared_in
from services.auth import password, sessions
from services.enrollment import catalog, create, esim, lines
from services.payment import payments, tax
from services.support import retries

DOMAINS: tuple[ModuleType, ...] = (
    create, lines, catalog, porting, port_orders, payments, tax, eligibility, devices, mail, agents, notes, cards,
    password, sessions, retries, address, esim,
)  # fmt: skip


@dataclass(frozen=True)
class Catalog:
    actions: tuple[Action, ...]
    by_name: dict[str, Action] = field(default_factory=dict)  # every name an action answers to, aliases included

    @classmethod
    def of(cls, modules: tuple[ModuleType, ...]) -> Catalog:
        actions = tuple(found for module in modules for found in declared_in(module))
        by_name: dict[str, Action] = {}
        for found in actions:
            for name in found.names:
                assert name not in by_name, f"{name} is declared twice"
                by_name[name] = found
        return cls(actions, by_name)

    @property
    def groups(self) -> tuple[str, ...]:
        """Every path an action is posted to, in declaration order."""
        return tuple(dict.fromkeys(group for found in self.actions for group in found.groups))

    def in_group(self, group: str) -> tuple[Action, ...]:
        return tuple(found for found in self.actions if group in found.groups)


CATALOG = Catalog.of(DOMAINS)
