"""Every action: the declarations on the domains' handlers (api.dispatch.action), collected once. The dispatcher,
the OpenAPI document, the operations table and the tests' answer checks read it, and nothing else lists actions.
It stands above the domains (none of them imports it); a new domain module is named here once."""

from __future__ import annotations

from api import address, agents, auth, devices, eligibility, enrollment, mail, payment, porting, support
from api.dispatch import Catalog

CATALOG = Catalog.of((enrollment, porting, payment, eligibility, devices, mail, agents, auth, support, address))
