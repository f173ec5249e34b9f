"""Column types that behave the same on SQLite and PostgreSQL."""

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import BigInteger, Dialect, Integer, Text
from sqlalchemy.types import TypeDecorator

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# SQLite only makes `INTEGER PRIMARY KEY` an alias of the rowid (auto-increment); PostgreSQL wants 64 bits.
Id = BigInteger().with_variant(Integer(), "sqlite")


def to_micros(moment: datetime) -> int:
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


class Timestamp(TypeDecorator[datetime]):
    """An aware UTC datetime, stored as integer microseconds since the epoch.

    Integers sort and compare identically on both databases and never lose precision or zone.
    """

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> int | None:
        return None if value is None else to_micros(value)

    def process_result_value(self, value: int | None, dialect: Dialect) -> datetime | None:
        return None if value is None else from_micros(value)


class JsonText(TypeDecorator[Any]):
    """JSON kept as text, encoded with orjson (fast, and the same bytes on both databases)."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else orjson.dumps(value).decode()

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        return None if value is None else orjson.loads(value)
