"""The T1 baseline: a bare FastAPI app with one POST route answering a constant envelope."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

ENVELOPE = {"msg_code": "RESTAPI000", "msg": "Success", "token": "x"}


def create_app() -> FastAPI:
    """A factory, so uvicorn serves it with the very flags it serves Lineup's `app_from_env` with."""
    app = FastAPI()

    @app.post("/{group}")
    async def answer(group: str) -> dict[str, Any]:
        """Answers every group with the same envelope."""
        return ENVELOPE

    return app
