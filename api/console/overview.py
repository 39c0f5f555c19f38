"""The console's first page (`/console`): the signed-in vendor's operations at a glance, its figures from
services.support.overview, drawn as SVG charts (api/console/charts.py) with their numbers as tables. HTTP only,
as routes.py."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.console import charts
from api.console import session as cookies
from api.console.pages import html
from api.console.routes import CurrentAgent, context_of, to_sign_in
from persistence.overview import BANDS
from services.support import overview as figures

router = APIRouter(prefix="/console", include_in_schema=False)


def drawn(view: figures.Overview) -> dict[str, charts.Chart]:
    """The page's charts, by panel; a panel that could not be read has none."""
    found: dict[str, charts.Chart] = {}
    if view.activations is not None:
        series = [("activated", "lines activated", view.activations)]
        found["activations"] = charts.hourly("activations", "Lines activated", view.hours, series)
    if view.stuck is not None:
        groups = [(group.error or "(no error recorded)", group.lines) for group in view.stuck]
        found["stuck"] = charts.ranked("stuck", "Lines stuck now, by error", groups)
    if view.ports is not None:
        stacks = sorted(view.ports.by_carrier.items())
        found["ports"] = charts.stacked("ports", "Ports pending, by age", BANDS, stacks)
    for trouble in view.carriers or []:
        series = [("refused", "refusals", trouble.refused), ("outage", "outages", trouble.outages)]
        title = f"Carrier {trouble.carrier}: refusals and outages"
        found[f"carrier-{trouble.carrier}"] = charts.hourly(f"carrier-{trouble.carrier}", title, view.hours, series)
    return found


@router.get("")
async def overview(request: Request, signed: CurrentAgent) -> Response:
    if signed.who is None or signed.token is None:
        return to_sign_in(request, signed)
    view = await figures.overview(ctx=context_of(request, signed.who, "console_overview"))
    return html(
        request,
        "overview.html",
        who=signed.who,
        csrf=cookies.session_csrf(signed.token),
        kind="overview",
        title="Overview",
        view=view,
        charts=drawn(view),
        age=partial(charts.duration, now=view.now),
    )
