"""Accounts on the wire: the request bodies and the answers of ``routes_accounts`` (sign up, sign in, sessions,
passwords, claiming an invited account)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec

from services.api.schemas import NUL_FREE, Name

Login = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=NUL_FREE)]
Password = Annotated[str, msgspec.Meta(min_length=1, max_length=256, pattern=NUL_FREE)]


class NewAccount(msgspec.Struct, forbid_unknown_fields=True):
    login: Login
    password: Password
    name: Name | None = None             # the name others see; default: the login


class SignIn(msgspec.Struct, forbid_unknown_fields=True):
    login: Login
    password: Password


class NewCredentials(msgspec.Struct, forbid_unknown_fields=True):
    login: Login
    password: Password


class PasswordChange(msgspec.Struct, forbid_unknown_fields=True):
    current_password: Password
    new_password: Password


class SignedIn(msgspec.Struct):
    """Who the session (or token) is: ``login`` None for a user with a token only; ``roles`` on the account;
    ``via``: "session" (a browser's cookie) or "bearer"; ``referees``: he referees a table or a championship
    (the desk at /referee/ has calls for him to see)."""

    user_id: str
    name: str
    kind: str
    login: str | None
    roles: list[str]
    via: str
    expires_at: dt.datetime
    referees: bool = False


class Claim(msgspec.Struct, forbid_unknown_fields=True):
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=NUL_FREE)]
    password: Password
    name: Name | None = None


class Found(msgspec.Struct):
    user_id: str
    name: str
    login: str
