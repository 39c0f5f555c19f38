"""Which of the application's files one call executes, in the order each first runs: a profile hook on every
thread of the process, recording what the call's own work runs on each side.

- The API: the task that posts the request, and what it starts or hands to a thread (they inherit its context).
- The worker, in the same process: the activities and the workflow code (in the worker's threads, where
  Temporal's sandbox runs each workflow from modules it imports again: a file is counted by its path) of the
  workflows the call names. The worker's other work meanwhile (its heartbeat, the webhook dispatcher's polls,
  another test's workflows) is not the call's, so it is not recorded.

Only functions count, not the bodies of modules or classes being imported: whether an import happens during the
call depends on what ran before it in the process, not on what the call does."""

from __future__ import annotations

import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TypeVar

from temporalio import activity, workflow

ROOT = Path(__file__).resolve().parents[2]
# The application: what a reader follows. tests/, the sandbox, bench/ and soak/ stand around it.
PACKAGES = ("api", "workflows", "activities", "adapters", "models", "cli")
MODULES = ("worker.py",)

_API_SIDE: ContextVar[bool] = ContextVar("traced_call", default=False)
T = TypeVar("T")


def application_file(filename: str) -> str | None:
    """The file's path under the repository when it is the application's, else None."""
    path = Path(filename)
    if not path.is_absolute() or not path.is_relative_to(ROOT):
        return None
    relative = path.relative_to(ROOT)
    if relative.parts[0] in PACKAGES or relative.as_posix() in MODULES:
        return relative.as_posix()
    return None


def _importing(frame: FrameType | None) -> bool:
    """True while `frame` runs as part of an import: the import system is on its stack (Temporal's sandbox imports
    through it too). A module's body on the stack is not enough: test runners run their own loops from one."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@dataclass
class Followed:
    """The files one call ran: on the API's side and on the worker's, each in the order it first ran there."""

    api: list[str] = field(default_factory=list)
    worker: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[str]:
        """Every file the call ran, once: the API's, then those only the worker ran."""
        return [*self.api, *(name for name in self.worker if name not in self.api)]


class FileTrace:
    """A profile hook that records, while armed, the application's files the armed call runs."""

    def __init__(self) -> None:
        self._armed = False
        self._workflow_ids: Callable[[str], bool] = lambda _: False
        self._api: dict[str, None] = {}  # insertion-ordered sets
        self._worker: dict[str, None] = {}
        self._known: dict[str, str | None] = {}  # co_filename → its application path or None, decided once
        self._lock = threading.Lock()

    def _side(self) -> dict[str, None] | None:
        """Where the running code belongs: the API's part of the call, the worker's, or neither."""
        if _API_SIDE.get():
            return self._api
        try:
            if activity.in_activity():
                return self._worker if self._workflow_ids(activity.info().workflow_id or "") else None
            if workflow.in_workflow():
                return self._worker if self._workflow_ids(workflow.info().workflow_id) else None
        except RuntimeError:  # between a workflow's activations: no workflow is current
            return None
        return None

    def hook(self, frame: FrameType, event: str, arg: object) -> None:
        if not self._armed or event != "call":
            return
        filename = frame.f_code.co_filename
        relative = self._known.get(filename, "")
        if relative == "":
            relative = self._known.setdefault(filename, application_file(filename))
        if relative is None:
            return
        side = self._side()
        if side is None or relative in side or _importing(frame):
            return
        with self._lock:
            side.setdefault(relative, None)

    @contextmanager
    def installed(self) -> Iterator[FileTrace]:
        """The hook on this thread and on every thread started inside the block: start the worker in it."""
        sys.setprofile(self.hook)
        threading.setprofile(self.hook)
        try:
            yield self
        finally:
            threading.setprofile(None)
            sys.setprofile(None)

    @contextmanager
    def armed(self, *, workflow_ids: Callable[[str], bool] = lambda _: False) -> Iterator[Followed]:
        """Records the call the block makes, and the worker's work for the workflows `workflow_ids` accepts; the
        Followed is filled when the block ends."""
        followed = Followed()
        self._api.clear()
        self._worker.clear()
        self._workflow_ids = workflow_ids
        marked = _API_SIDE.set(True)
        self._armed = True
        try:
            yield followed
        finally:
            self._armed = False
            _API_SIDE.reset(marked)
            followed.api.extend(self._api)
            followed.worker.extend(self._worker)


async def unrecorded(awaitable: Awaitable[T]) -> T:
    """What the test waits on inside an armed block (a workflow's result, decoded by the client) without counting
    it as the API's: the call has answered by then."""
    marked = _API_SIDE.set(False)
    try:
        return await awaitable
    finally:
        _API_SIDE.reset(marked)
