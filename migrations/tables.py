"""Every table of the schema on SQLModel.metadata: each domain's module of models/ declares its own."""

from models import agents, auth, eligibility, enrollment, events, mail, payment, porting, support  # noqa: F401
