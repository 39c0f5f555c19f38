"""Typed dependency aliases; the objects themselves are built once in the lifespan."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from models.settings import Settings
from persistence.uow import UnitOfWork
from services.context import Resources


def get_resources(request: Request) -> Resources:
    resources: Resources = request.app.state.resources
    return resources


def get_settings(request: Request) -> Settings:
    return get_resources(request).settings


def get_unit_of_work(request: Request) -> UnitOfWork:
    """The request's one session, opened by the RequestContext middleware."""
    uow: UnitOfWork = request.state.uow
    return uow


ResourcesDep = Annotated[Resources, Depends(get_resources)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
UnitOfWorkDep = Annotated[UnitOfWork, Depends(get_unit_of_work)]
