"""What every scenario of one stack run is given."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx
from temporalio.client import Client

from bench.load import Tool
from bench.options import Budget, Options
from bench.runs import Runs
from bench.stack import Stack


@dataclass
class Context:
    """The running stack, clients to it, the baselines' task queue (if started) and the load generator."""

    stack: Stack
    http: httpx.AsyncClient
    temporal: Client
    options: Options
    tool: Tool
    queue: str = ""
    runs: Runs = field(default_factory=Runs)  # what the scenarios on this stack started, for bench.temporal_actions

    @property
    def budget(self) -> Budget:
        return self.options.budget

    @property
    def db(self) -> str:
        """Database and process counts, the prefix of every row measured on this stack: `SQLite 1+1`."""
        spec = self.stack.spec
        database = "SQLite" if spec.database == "sqlite" else "PostgreSQL"
        return f"{database} {spec.api_processes}+{spec.worker_processes}"

    def key(self, target: str, name: str) -> str:
        return f"{target}.{self.stack.spec.name}.{name}"
