"""The handlers, one module per group of endpoints."""

from starlette.requests import Request

from queuedesk.server.jobs.creations import Creations
from queuedesk.server.settings import Settings
from queuedesk.server.store.database import Database


def db_of(request: Request) -> Database:
    return request.app.state.db


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


def creations_of(request: Request) -> Creations:
    return request.app.state.creations
