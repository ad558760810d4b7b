"""Placeholder: simulate and audit."""


def register(subparsers) -> None:
    pass
