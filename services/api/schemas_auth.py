"""Users and their bearer tokens on the wire: the answers of ``routes_auth``."""

from __future__ import annotations

import datetime as dt

import msgspec


class CreatedUser(msgspec.Struct):
    user_id: str
    name: str
    kind: str
    token: str                     # shown once; only its SHA-256 is stored
    expires_at: dt.datetime


class TokenIssued(msgspec.Struct):
    user_id: str
    token: str
    expires_at: dt.datetime


class TokensRevoked(msgspec.Struct):
    revoked: int                   # the caller's tokens that were still good
