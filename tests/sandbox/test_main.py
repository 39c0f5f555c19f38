"""`python -m sandbox`: HTTP and SMTP come up in one process, share state, and stop on SIGTERM/SIGINT."""

import asyncio
import os
import signal
import sys
from email.message import EmailMessage
from pathlib import Path

import aiosmtplib
import httpx
import pytest

from bench.ports import free_port

pytestmark = pytest.mark.asyncio

REPO = Path(__file__).resolve().parents[2]


async def wait_healthy(base_url: str, process: asyncio.subprocess.Process) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=1) as http:
        for _ in range(100):
            assert process.returncode is None, "sandbox exited during startup"
            try:
                if (await http.get("/sandbox/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError("sandbox did not become healthy")


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_python_m_sandbox_serves_http_and_smtp_and_stops(tmp_path: Path, stop_signal: int) -> None:
    http_port, smtp_port = free_port(), free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "LINEUP_DATA_DIR": str(tmp_path),
        "LINEUP_SANDBOX_PORT": str(http_port),
        "LINEUP_SANDBOX_SMTP_PORT": str(smtp_port),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "sandbox",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        base_url = f"http://127.0.0.1:{http_port}"
        await wait_healthy(base_url, process)
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "a@lineup.test", "b@example.com", "hello"
        mail.set_content("hi")
        await aiosmtplib.send(mail, hostname="127.0.0.1", port=smtp_port, timeout=5)
        async with httpx.AsyncClient(base_url=base_url) as http:
            listed = (await http.get("/sandbox/mail")).json()["messages"]
        assert [m["subject"] for m in listed] == ["hello"]
        process.send_signal(stop_signal)
        output, _ = await asyncio.wait_for(process.communicate(), timeout=10)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, output.decode()
    assert b"sandbox stopped" in output
    assert (tmp_path / "sandbox.db").exists()
