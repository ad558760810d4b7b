"""Webhook endpoints on the wire: the request bodies and answers of ``routes_webhooks``."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from services.api.schemas import Text
from services.webhooks.endpoints import DeliveryOut, EndpointOut
from services.webhooks.outbox import KINDS

Kind = Literal[KINDS]


class NewEndpoint(msgspec.Struct, forbid_unknown_fields=True):
    url: Annotated[str, msgspec.Meta(min_length=1, max_length=2000, pattern="^[^\x00]*$")]
    kinds: Annotated[list[Kind], msgspec.Meta(min_length=1)] = msgspec.field(default_factory=lambda: list(KINDS))
    championship_id: str | None = None       # None: every championship you organise, now and later
    description: Annotated[Text, msgspec.Meta(max_length=200)] = ""


class EndpointCreated(msgspec.Struct):
    endpoint: EndpointOut
    secret: str                              # whsec_…: shown this once; it signs every delivery


class DeliveryPage(msgspec.Struct):
    deliveries: list[DeliveryOut]            # newest first
    next_before: int | None                  # the next page: before set to this
