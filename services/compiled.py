"""How the rules engine's modules load: compiled, or as written. This is about loading only; the rules are the
same either way, and ``domain`` knows nothing of it (it does no I/O, not even at import).

``setup.py`` compiles the modules of ``HOT`` (the play's hot path: the table, the card game's deal, tricks,
bids, views and bots) unchanged with Cython, to C extension modules beside their sources, when the package is
installed (``pip install .`` or ``-e .``): the same code, about 1.7 times as fast (``bench/engine.py``).

``install`` puts the finder first on ``sys.meta_path``; ``services/__init__.py`` calls it, so every door —
``baloot`` with its ``serve`` and ``worker``, the workers' processes, the tests (``tests/conftest.py``) — has
it before any rule is imported. The finder imports a module's compiled form only while it is at least as new
as its source (within ``SLACK``), so an edited source is what runs until the next build; with
``BALOOT_PURE`` set (1, true, yes) every module is imported from its source. (Without the finder, Python's
own import would take a built module over its source whatever their ages.) Tests compare the two forms on
whole games (``tests/engine/test_compiled.py``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

HOT = tuple(f"domain.{m}" for m in (
    "table", "baloot.cards", "baloot.tricks", "baloot.play", "baloot.deal", "baloot.dealstate",
    "baloot.bidding", "baloot.doubling", "baloot.game", "baloot.views", "baloot.scoring", "baloot.projects",
    "baloot.solver",
    "baloot.shuffle", "baloot.seam", "baloot.result", "baloot.bots.simple", "baloot.bots.knowledge",
    "baloot.bots.hard", "baloot.bots.rollout"))


# How much newer than its compiled form a source may be and still count as the one it was built from: an
# installer writes a module's files one after another, the source after the compiled form, and an image's
# layers keep whole seconds, so a large extension's source can come out a second newer (the deploy image once
# ran `bots.knowledge` from its source that way: 1796551513 against 1796551514). A hand's edit comes later.
SLACK = 3.0             # seconds


def pure() -> bool:
    """Whether this process imports every module from its source (``BALOOT_PURE``)."""
    return os.environ.get("BALOOT_PURE", "").strip().lower() in ("1", "true", "yes")


def built(folder: str, leaf: str) -> str | None:
    """The compiled module ``leaf`` in ``folder``, if one was built there."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, leaf + suffix)
        if os.path.isfile(path):
            return path
    return None


class Finder(importlib.abc.MetaPathFinder):
    """Finds the modules of the ``domain`` package: a module with a compiled form as new as its source is
    imported compiled (unless ``pure()``), any other from its source; packages go the usual way."""

    def __init__(self, force_source: bool):
        self.force_source = force_source

    def find_spec(self, name, path, target=None):
        if path is None or not name.startswith("domain."):
            return None
        leaf = name.rpartition(".")[2]
        for folder in path:
            source = os.path.join(folder, leaf + ".py")
            if not os.path.isfile(source):
                continue
            compiled = None if self.force_source else built(folder, leaf)
            if compiled is not None and os.stat(compiled).st_mtime + SLACK >= os.stat(source).st_mtime:
                return importlib.util.spec_from_file_location(name, compiled)
            return importlib.util.spec_from_file_location(name, source)
        return None


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, Finder(pure()))


def loaded() -> dict[str, bool]:
    """Each module of ``HOT`` imported so far: whether it runs compiled."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return {m: (getattr(sys.modules[m], "__file__", "") or "").endswith(suffixes) for m in HOT if m in sys.modules}
