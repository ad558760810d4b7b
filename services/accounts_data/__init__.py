"""The accounts' lists, shipped as data: the common passwords refused (``common_passwords.txt``) and the
logins nobody may choose (``reserved_logins.txt``); each file's header says where it came from."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


def _lines(name: str) -> frozenset[str]:
    text = files(__name__).joinpath(name).read_text("utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


@cache
def common_passwords() -> frozenset[str]:
    return _lines("common_passwords.txt")


@cache
def reserved_logins() -> frozenset[str]:
    return _lines("reserved_logins.txt")
