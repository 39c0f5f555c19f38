"""How `lineup` ends (issue 27, finding 13). A process that opened a Temporal client sometimes aborts at interpreter
exit, after its work succeeded ("Fatal Python error: PyGILState_Release", exit 134: the SDK's runtime threads
outlive the interpreter's teardown, temporalio/sdk-python#300): one `lineup temporal setup` in five on this
machine. The command's own exit code is what counts, so `lineup` flushes what it wrote and leaves through
`os._exit`, with no teardown for those threads to trip over."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import traceback
from collections.abc import Callable


def leave(code: int) -> None:
    """Exits with `code` at once, once everything written is out."""
    logging.shutdown()  # flushes the handlers, as the interpreter's exit would
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            stream.flush()
    os._exit(code)


def exit_code(exit_: SystemExit) -> int:
    """SystemExit's code as a process exit code (None is success, text is printed and is 1, as Python does)."""
    if exit_.code is None:
        return 0
    if isinstance(exit_.code, int):
        return exit_.code
    print(exit_.code, file=sys.stderr)
    return 1


def run_and_leave(command: Callable[[], object]) -> None:
    """Runs a click/typer application as the console script does, then leaves with its exit code."""
    try:
        command()
        code = 0
    except SystemExit as exit_:
        code = exit_code(exit_)
    except KeyboardInterrupt:
        code = 130  # as a shell reports SIGINT
    except Exception:  # noqa: BLE001 — a defect: its traceback is printed, as the interpreter would
        traceback.print_exc()
        code = 1
    leave(code)
