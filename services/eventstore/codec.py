"""Domain events on the wire: frozen, tagged msgspec Structs stored as JSON, upcast on read.

A domain event declares its stable name as the struct tag and its schema version as a ClassVar:

    class CardPlayed(msgspec.Struct, frozen=True, tag="card_played"):
        schema_version: ClassVar[int] = 2
        seat: int
        card: int

When a schema changes, bump `schema_version` and register an upcaster that turns the stored dict of
the old version into the next one; reading applies them in turn before decoding.
"""

from __future__ import annotations

import typing
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from services.eventstore.store import NewEvent, RecordedEvent

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class CodecError(Exception):
    """A stored event cannot be turned into a domain event."""


def event_type(cls: type[msgspec.Struct]) -> str:
    """The stored type name of a domain event class: its msgspec tag."""
    tag = cls.__struct_config__.tag
    if not isinstance(tag, str):
        raise CodecError(f"{cls.__name__} needs an explicit string tag, e.g. tag=\"card_played\"")
    return tag


def schema_version(cls: type[msgspec.Struct]) -> int:
    """The current schema version of a domain event class (1 unless it says otherwise)."""
    return getattr(cls, "schema_version", 1)


def new_event(event: msgspec.Struct, *, event_id: uuid.UUID | None = None,
              metadata: dict[str, Any] | None = None) -> NewEvent:
    """The NewEvent that stores a domain event (its tag as type, its schema version, its JSON)."""
    cls = type(event)
    return NewEvent(
        event_type=event_type(cls),
        data=msgspec.Raw(msgspec.json.encode(event)),
        schema_version=schema_version(cls),
        event_id=event_id if event_id is not None else uuid.uuid4(),
        metadata=metadata,
    )


class Upcasters:
    """Functions keyed by (event type, schema version), each upgrading a stored dict by one version."""

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}

    def register(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: `fn(data) -> data` turns version `from_version` of `event_type` into the next."""
        def add(fn: Upcaster) -> Upcaster:
            key = (event_type, from_version)
            if key in self._steps:
                raise ValueError(f"an upcaster from {event_type} v{from_version} is already registered")
            self._steps[key] = fn
            return fn
        return add

    def same(self, event_type: str, from_version: int) -> None:
        """Version ``from_version + 1`` of ``event_type`` reads version ``from_version`` as it is (a field that
        became optional, a field that only new events leave out)."""
        self.register(event_type, from_version)(_as_it_is)

    def upcast(self, event_type: str, version: int, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Apply the registered steps from `version` on; return the version reached and the data."""
        while (step := self._steps.get((event_type, version))) is not None:
            data = step(data)
            version += 1
        return version, data


def _as_it_is(data: dict[str, Any]) -> dict[str, Any]:
    return data


class Codec:
    """Encodes domain events for `append` and decodes stored ones, given the event classes.

    `types` is a union of tagged Structs (`CardPlayed | BidMade`) or an iterable of the classes.
    """

    def __init__(self, types: Any, upcasters: Upcasters | None = None) -> None:
        classes = typing.get_args(types) or (tuple(types) if isinstance(types, Iterable) else (types,))
        self.classes: dict[str, type[msgspec.Struct]] = {}
        for cls in classes:
            name = event_type(cls)
            if name in self.classes:
                raise CodecError(f"{cls.__name__} and {self.classes[name].__name__} share the tag {name!r}")
            self.classes[name] = cls
        self.upcasters = upcasters or Upcasters()

    def encode(self, event: msgspec.Struct, *, event_id: uuid.UUID | None = None,
               metadata: dict[str, Any] | None = None) -> NewEvent:
        """The NewEvent that stores `event`."""
        if event_type(type(event)) not in self.classes:
            raise CodecError(f"{type(event).__name__} is not one of this codec's event types")
        return new_event(event, event_id=event_id, metadata=metadata)

    def decode(self, event: RecordedEvent) -> msgspec.Struct:
        """The domain event stored as `event`, upcast to its current schema version."""
        return self.decode_data(event.event_type, event.schema_version, event.data_json)

    def decode_data(self, type_name: str, version: int, data: str | bytes | dict[str, Any]) -> msgspec.Struct:
        """The domain event of `type_name` at schema `version` with `data` (JSON or a dict)."""
        cls = self.classes.get(type_name)
        if cls is None:
            raise CodecError(f"unknown event type {type_name!r}")
        current = schema_version(cls)
        try:
            if version == current and not isinstance(data, dict):
                return msgspec.json.decode(data, type=cls)
            if isinstance(data, (str, bytes)):
                data = msgspec.json.decode(data)
            if version < current:
                version, data = self.upcasters.upcast(type_name, version, data)
            if version != current:
                raise CodecError(f"{type_name} v{version} cannot be read as v{current}: "
                                 + ("no upcaster registered" if version < current else "written by newer code"))
            return msgspec.convert(data, cls)
        except msgspec.ValidationError as exc:
            raise CodecError(f"{type_name} v{version}: {exc}") from exc
