"""Typed dependency aliases; the objects themselves are built once in the lifespan."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from api.errors import upstream_down
from models.settings import Settings
from temporalio.client import Client


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_sessions(request: Request) -> async_sessionmaker[AsyncSession]:
    sessions: async_sessionmaker[AsyncSession] = request.app.state.sessions
    return sessions


def get_temporal(request: Request) -> Client:
    client: Client | None = request.app.state.temporal.client
    if client is None:
        raise upstream_down("The workflow engine")
    return client


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionsDep = Annotated[async_sessionmaker[AsyncSession], Depends(get_sessions)]
TemporalDep = Annotated[Client, Depends(get_temporal)]
