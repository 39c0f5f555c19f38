"""The every-workflow guard: each workflow the worker runs (workflows.registry.WORKFLOWS) is run alone by some test
on the time-skipping server. The `time_skipping` fixture's client carries RunRecorder, which the workers built on
it take up as a worker interceptor: every workflow run they start is recorded by type. At the end of a whole
run of the suite (not of a chosen part of it), a type no test ran fails the session; under xdist each process
writes what it saw to a folder the controller names, and the controller reads them all."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from temporalio import client, workflow
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

from workflows.registry import WORKFLOWS

RAN: set[str] = set()  # the workflow types this process ran on the time-skipping server
FOLDER = "lineup_workflow_runs"  # the controller's folder, handed to each xdist process


class _Recording(WorkflowInboundInterceptor):
    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        RAN.add(workflow.info().workflow_type)  # inside the sandbox: RAN is this module's, passed in with the class
        return await super().execute_workflow(input)


class RunRecorder(client.Interceptor, Interceptor):
    """A client interceptor that is a worker interceptor too: workers made with the client use it."""

    def workflow_interceptor_class(self, input: WorkflowInterceptorClassInput) -> type[WorkflowInboundInterceptor]:
        return _Recording


def missing(ran: set[str]) -> list[str]:
    """The registered workflow types no test ran alone."""
    return sorted(cls.__name__ for cls in WORKFLOWS if cls.__name__ not in ran)


def _whole_suite(config: pytest.Config) -> bool:
    """Only a run of every test can say a workflow has none: a chosen file, -k or -m leaves tests out, and
    --collect-only runs none."""
    option = config.option
    narrowed = option.keyword or option.markexpr or getattr(option, "deselect", None) or getattr(option, "lf", False)
    narrowed = narrowed or option.collectonly
    return config.args_source is pytest.Config.ArgsSource.TESTPATHS and not narrowed


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller: each process writes what it ran into one folder of this run."""
    folder = getattr(node.config, "_lineup_runs", None) or tempfile.mkdtemp(prefix="lineup-workflow-runs-")
    node.config._lineup_runs = folder  # noqa: SLF001 the controller's own note on its config, read by its nodes
    node.workerinput[FOLDER] = folder


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    workerinput = getattr(session.config, "workerinput", None)
    if workerinput is not None:  # an xdist process: hand what it ran to the controller
        Path(workerinput[FOLDER], f"{os.getpid()}.txt").write_text("\n".join(sorted(RAN)))
        return
    ran = set(RAN)
    folder = getattr(session.config, "_lineup_runs", None)
    if folder is not None:
        ran |= {name for part in Path(folder).glob("*.txt") for name in part.read_text().split()}
        shutil.rmtree(folder, ignore_errors=True)
    if not _whole_suite(session.config):
        return
    if absent := missing(ran):
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"every-workflow guard: no test runs {', '.join(absent)} alone on the time-skipping server"
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
