"""The TypeScript client (issue 29) under Node against a running Lineup: its own tests (clients/typescript/test,
`node --test`) with the stack's URL, a proxy that loses the first create's answer, the sandbox's webhook receiver
and an endpoint's secret; and the guide's JavaScript example as written, in a project that installed the package
with `npm install <folder>`. Node and npm are required: without them these fail, they never skip."""

from __future__ import annotations

import asyncio
import json
import os

from codegen import typescript
from tests.support.channel_clients import DEMO_URL, example
from tests.support.cutting_proxy import CuttingProxy
from tests.support.node import run, tool
from tests.support.webhooks import register

STRICT = ["--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"]
STRICT += ["--lib", "es2022,dom"]


async def test_the_typescript_clients_tests_pass_against_lineup(lineup_url, stack):
    await asyncio.to_thread(typescript.installed)  # npm ci, from the lock file
    endpoint = await register(stack, events="line.received")
    tests = sorted(str(path) for path in (typescript.ROOT / "test").glob("*.test.mjs"))
    async with CuttingProxy.running(lineup_url, b"create_customer_prepaid_multiline") as proxy:
        env = {
            **os.environ,
            "LINEUP_URL": lineup_url,
            "LINEUP_PROXY_URL": proxy.url,
            "LINEUP_SANDBOX_URL": stack.sandbox,
            "LINEUP_WEBHOOK_SECRET": endpoint.secret,
        }
        output = await run(tool("node"), "--test", "--test-concurrency=1", *tests, cwd=typescript.ROOT, env=env)
    print(output)
    assert "# fail 0" in output and "# skipped 0" in output and "# todo 0" in output
    assert (proxy.seen, proxy.cut) == (2, 1)  # the create was carried out, its answer lost, and sent again


async def test_the_guides_javascript_example_runs_as_written(lineup_url, tmp_path):
    project = tmp_path / "channel"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "channel", "private": True, "type": "module"}))
    npm = ("install", str(typescript.ROOT), "--offline", "--no-audit", "--no-fund")
    await run(tool("npm"), *npm, cwd=project)
    (project / "enroll.mjs").write_text(example("js").replace(DEMO_URL, lineup_url))
    printed = (await run(tool("node"), "enroll.mjs", cwd=project)).splitlines()
    customer_id, mdn = printed[0].split(" ")
    assert customer_id.isalnum() and (mdn == "null" or mdn.isdigit()), printed
    assert "  MDN: " in "\n".join(printed[1:]), printed  # the line inquiry, as console.log shows it
    # The same code is TypeScript the package's types accept, strictly: the calls' fields and the answers' members.
    (project / "enroll.ts").write_text(example("js"))
    await asyncio.to_thread(typescript.installed)
    await run(str(typescript.ROOT / "node_modules/.bin/tsc"), "--noEmit", *STRICT, "enroll.ts", cwd=project)
