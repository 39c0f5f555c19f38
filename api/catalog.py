"""Every action, from the declarations of the domains' handlers (dispatch.actions): the dispatcher, the OpenAPI
document and the tests read this, and nothing else lists actions. A new domain module is named here once."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

from dispatch.actions import Action, declared_in
from models.envelope import MsgCode
from models.errors import LineupError
from services import address, agents, cards, devices, eligibility, mail, notes
from services.auth import password, sessions
from services.enrollment import catalog, create, esim, lines
from services.payment import payments, tax
from services.porting import orders, status
from services.support import retries

DOMAINS: tuple[ModuleType, ...] = (
    create, lines, catalog, status, orders, payments, tax, eligibility, devices, mail, agents, notes, cards,
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

    def resolve(self, group: str, action: object) -> Action:
        """The action a body names in a group: RESTAPI102 when it names none, RESTAPI106 when it names no action,
        RESTAPI108 when the action lives in another group."""
        if not isinstance(action, str) or not action.strip():
            raise LineupError(MsgCode.ACTION_REQUIRED, "Action required")
        found = self.by_name.get(action)
        if found is None:
            raise LineupError(MsgCode.ACTION_UNKNOWN, "Action does not exist")
        if group not in found.groups:
            raise LineupError(MsgCode.WRONG_GROUP, "Invalid method")
        return found


CATALOG = Catalog.of(DOMAINS)
