"""Every table of the schema on SQLModel.metadata: each domain's module of models/ declares its own."""

from models import agents, auth, eligibility, events, mail, payment, porting, support  # noqa: F401
from models.enrollment import lines  # noqa: F401
