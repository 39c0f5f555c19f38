"""Typed dependency aliases; the objects themselves are built once in the lifespan."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.adapters.payments import PaymentGateway
from activities.lines import LineRepository
from api.temporal import TemporalConnection
from models.settings import Settings


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_sessions(request: Request) -> async_sessionmaker[AsyncSession]:
    sessions: async_sessionmaker[AsyncSession] = request.app.state.sessions
    return sessions


def get_temporal(request: Request) -> TemporalConnection:
    """The connection, not the client: a route checks its fields before it needs Temporal."""
    connection: TemporalConnection = request.app.state.temporal
    return connection


def get_lines(request: Request) -> LineRepository:
    lines: LineRepository = request.app.state.lines
    return lines


def get_gateway(request: Request) -> PaymentGateway:
    gateway: PaymentGateway = request.app.state.gateway
    return gateway


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionsDep = Annotated[async_sessionmaker[AsyncSession], Depends(get_sessions)]
TemporalDep = Annotated[TemporalConnection, Depends(get_temporal)]
LinesDep = Annotated[LineRepository, Depends(get_lines)]
GatewayDep = Annotated[PaymentGateway, Depends(get_gateway)]
