"""Where an authenticated call's time goes, from pyinstrument's samples (bench.profile_call takes them): each
sample's stack is given to one phase of the request — the innermost frame that names a phase wins — and, across
phases, to the layer its innermost frame runs in (SQLAlchemy, the database driver), so "the token's SQL" and
"SQLAlchemy's execution" are both read off the same samples. Samples waiting in the event loop's poll are idle:
left out of the shares and given apart."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

IDLE, OTHER = "idle", "other"
REPO = Path(__file__).resolve().parent.parent
# Phases, innermost wins: (name, pattern on a frame's "path:function"). Lineup's own files are "@/" and their path
# in the repository; the others as pyinstrument records them (absolute, or "<built-in>" for a C function).
ASGI = "ASGI server (uvicorn, h11, the event loop and its transports)"
# asyncio and the socket name no phase of their own where anything else does: the event loop runs everything, and
# on PostgreSQL asyncpg sends a statement and awaits its answer through them, under the frame that asked for it.
EVENT_LOOP = re.compile(r"/asyncio/|:socket\.")
# SQLAlchemy's asyncio engine runs a statement in a greenlet: a sample taken there has no frame of its caller.
GREENLET_SQL = "SQL in SQLAlchemy's greenlet (PostgreSQL: its caller is not on the sampled stack)"
TOKEN = "the token's SQL: read, claim, next token (models/auth.py)"
OTHER_SQL = "other SQL: the handler's (the location) and the audit row (api/, models/)"
TRANSACTION = "the transaction: begin, commit, rollback (models/db.py)"
# api.edge.ReadTimeouts, the HTTP protocol uvicorn runs: the ASGI server's work.
PROTOCOL = (
    r"(connection_made|data_received|connection_lost|_start_head_timer|_stop_head_timer|_head_too_slow|no_delay)$"
)
PHASES: tuple[tuple[str, str], ...] = (
    (TOKEN, r"^@/models/auth\.py:(present|claim|store|issue)$"),
    ("the handler (api/<domain>.py)", r"^@/api/(?!dispatch|access|edge|main|catalog|openapi|temporal)\w+\.py:"),
    ("JSON (encoding and decoding)", r"/json/|/orjson/"),
    ("validation (pydantic, models/types.py)", r"/pydantic(_core)?/|^@/models/types\.py:|pydantic_core"),
    ("the dispatcher (api/dispatch.py, api/access.py)", r"^@/api/(dispatch|access)\.py:"),
    (
        "the edge middleware (api/edge.py, its access log and metrics)",
        rf"^@/api/edge\.py:(?!{PROTOCOL})|^@/models/observability\.py:|/logging/",
    ),
    ("Starlette and FastAPI (routing, their middleware)", r"/starlette/|/fastapi/"),
    (ASGI, rf"/uvicorn/|/h11/|^@/api/edge\.py:{PROTOCOL}"),
)  # fmt: skip
# Layers the phases are split by: a frame in one, below the phase's own frame.
LAYERS: tuple[tuple[str, str], ...] = (
    ("driver", r"/sqlite3/|/asyncpg/|<built-in>:(Cursor|Connection)\."),
    ("SQLAlchemy", r"/sqlalchemy/|/sqlmodel/"),
)
# The database (models/db.py): a statement (`run`, `rows`, the ORM's) is SQL of the module that asked for it (the
# token's claim runs inside the unit of work's commit); the transaction's own steps (begin, commit, rollback) are
# the transaction's.
PLUMBING = re.compile(r"^@/models/db\.py:")
STATEMENTS = frozenset({"run", "rows", "exec", "execute", "get", "flush", "refresh", "delete", "_core"})
APPLICATION = re.compile(r"^@/(?!bench/|tests/)")  # Lineup's application, not what runs it here
IDLE_LEAF = re.compile(r":(epoll\.poll|select\.select|poll\.poll|select\.epoll\.poll)$")
COMPILED_PHASES = tuple((name, re.compile(pattern)) for name, pattern in PHASES)
COMPILED_LAYERS = tuple((name, re.compile(pattern)) for name, pattern in LAYERS)


def location(frame: str, root: str = f"{REPO}/") -> str:
    """`path:function` of one of pyinstrument's frame strings ("function\\0path\\0line", then attributes), a
    file of Lineup's own (not of its virtualenv) as "@/" and its path in the repository."""
    parts = frame.split("\x01", 1)[0].split("\x00")
    if len(parts) < 2:
        return parts[0]
    path = parts[1]
    if path.startswith(root) and "/site-packages/" not in path:
        path = "@/" + path.removeprefix(root)
    return f"{path}:{parts[0]}"


@dataclass
class Share:
    seconds: float = 0.0
    layers: dict[str, float] = field(default_factory=dict)


@dataclass
class Breakdown:
    """Seconds per phase (and per layer within it), idle apart, and the Lineup functions time was spent in."""

    phases: dict[str, Share] = field(default_factory=dict)
    idle: float = 0.0
    functions: dict[str, float] = field(default_factory=dict)

    @property
    def busy(self) -> float:
        return sum(share.seconds for share in self.phases.values())

    def layer(self, name: str) -> float:
        return sum(share.layers.get(name, 0.0) for share in self.phases.values())


def phase_of(places: Sequence[str]) -> tuple[str, int, str | None]:
    """(phase, index of the frame that named it, the Lineup function it stands for) of one stack of places."""
    for index in range(len(places) - 1, -1, -1):
        place = places[index]
        if PLUMBING.search(place):
            caller = index - 1
            while caller >= 0 and PLUMBING.search(places[caller]):
                caller -= 1
            asker = places[caller] if caller >= 0 else ""
            asked = places[caller + 1].rsplit(":", 1)[-1] in STATEMENTS
            if asked and asker.startswith(("@/models/", "@/api/")):
                named = phase_of(places[: caller + 1])[0]
                return (TOKEN if named == TOKEN else OTHER_SQL), index, asker
            return TRANSACTION, index, place
        if found := next((name for name, pattern in COMPILED_PHASES if pattern.search(place)), None):
            lineup = next((p for p in reversed(places[: index + 1]) if APPLICATION.search(p)), None)
            return found, index, lineup
    if any(pattern.search(place) for place in places for _, pattern in COMPILED_LAYERS):
        return GREENLET_SQL, 0, None
    if loop := [index for index, place in enumerate(places) if EVENT_LOOP.search(place)]:
        return ASGI, loop[-1], None
    return OTHER, -1, None


def classify(stack: Sequence[str]) -> tuple[str, str | None, str | None]:
    """(phase, layer or None, Lineup function or None) of one sample's stack, outermost frame first."""
    places = [location(frame) for frame in stack]
    if places and IDLE_LEAF.search(places[-1]):
        return IDLE, None, None
    phase, depth, function = phase_of(places)
    # Only a layer below the phase's own frame is the phase's work done there (SQLAlchemy under the token's read).
    below = reversed(places[depth + 1 :])
    layer = next((name for place in below for name, pattern in COMPILED_LAYERS if pattern.search(place)), None)
    return phase, layer, function.removeprefix("@/") if function else None


def breakdown(records: Iterable[tuple[Sequence[str], float]]) -> Breakdown:
    """pyinstrument's frame records (a stack and the seconds it stood for) summed by phase and layer."""
    found = Breakdown()
    for stack, seconds in records:
        phase, layer, function = classify(stack)
        if phase == IDLE:
            found.idle += seconds
            continue
        share = found.phases.setdefault(phase, Share())
        share.seconds += seconds
        if layer:
            share.layers[layer] = share.layers.get(layer, 0.0) + seconds
        if function:
            found.functions[function] = found.functions.get(function, 0.0) + seconds
    return found


def percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "—"


def markdown(found: Breakdown, calls: int, heading: str, facts: list[str]) -> str:
    """The section docs/performance.md shows: the phases' shares of the busy time, their SQL layers, the top
    Lineup functions; `facts` say how the run was made."""
    busy, order = found.busy, sorted(found.phases.items(), key=lambda item: -item[1].seconds)
    rows = [
        f"| {name} | {percent(share.seconds, busy)} | {1000 * share.seconds / calls:.3f} | "
        f"{percent(share.layers.get('SQLAlchemy', 0.0), busy)} | {percent(share.layers.get('driver', 0.0), busy)} |"
        for name, share in order
    ]
    top = sorted(found.functions.items(), key=lambda item: -item[1])[:10]
    return "\n".join(
        [
            heading,
            "",
            *facts,
            "",
            "| phase (innermost frame that names one) | share of busy time | ms per call (wall, profiled) | "
            "of which SQLAlchemy | of which the driver |",
            "|---|---:|---:|---:|---:|",
            *rows,
            f"| **all** | 100 % | {1000 * busy / calls:.3f} | {percent(found.layer('SQLAlchemy'), busy)} | "
            f"{percent(found.layer('driver'), busy)} |",
            "",
            f"Idle (the event loop waiting on sockets): {percent(found.idle, found.idle + busy)} of the profiled time, "
            "left out above. SQLAlchemy's execution in all phases: "
            f"{percent(found.layer('SQLAlchemy'), busy)}; the database driver: {percent(found.layer('driver'), busy)}.",
            "",
            "Lineup's functions the time went to (a sample's innermost Lineup frame, or the one its SQL ran for), "
            "callees included:",
            "",
            "| function | share of busy time |",
            "|---|---:|",
            *(f"| `{name}` | {percent(seconds, busy)} |" for name, seconds in top),
        ]
    )


def replace_section(document: Path, marker: str, text: str) -> None:
    """Puts `text` between `<!-- marker -->` and `<!-- /marker -->` in `document` (added at its end when absent)."""
    begin, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    current = document.read_text()
    block = f"{begin}\n{text.rstrip()}\n{end}"
    if begin in current and end in current:
        head, _, rest = current.partition(begin)
        _, _, tail = rest.partition(end)
        document.write_text(head + block + tail)
    else:
        document.write_text(current.rstrip() + "\n\n" + block + "\n")
