"""The HTTP door only translates: its route modules parse, ask the application layer and shape the answer.
So no module of the door queries the database or reaches a game's own package (the application layer or
the game registry does), and no route module defines a request or response schema (those are the schema
modules', ``services/api/schemas_*.py``); a route importing the database driver breaks an import
contract."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

from tests.test_architecture import ROOT, lint_with

ROUTES = sorted((ROOT / "services" / "api").glob("routes_*.py"))
DOOR = sorted((ROOT / "services" / "api").glob("*.py"))
QUERIES = {"fetch", "fetchrow", "fetchval", "executemany", "copy_records_to_table"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


@pytest.mark.parametrize("path", DOOR, ids=lambda p: p.name)
def test_no_module_of_the_door_sends_sql(path):
    calls = [node for node in ast.walk(_tree(path)) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute)
             and (node.func.attr in QUERIES or node.func.attr == "execute" and node.args
                  and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))]
    assert not calls, [f"{path.name}:{c.lineno} {ast.unparse(c.func)}" for c in calls]


@pytest.mark.parametrize("path", DOOR, ids=lambda p: p.name)
def test_no_module_of_the_door_reaches_a_game_of_its_own(path):
    imported = [node.module for node in ast.walk(_tree(path)) if isinstance(node, ast.ImportFrom) and node.module]
    assert not [m for m in imported if m.startswith(("domain.baloot", "domain.balut"))]


@pytest.mark.parametrize("path", ROUTES, ids=lambda p: p.name)
def test_a_route_module_defines_no_schema(path):
    import importlib
    module = importlib.import_module(f"services.api.{path.stem}")
    defined = [node.name for node in _tree(path).body if isinstance(node, ast.ClassDef)]
    assert not [name for name in defined if issubclass(getattr(module, name), msgspec.Struct)]


def test_a_route_importing_the_database_driver_breaks_its_contract(tmp_path):
    done = lint_with(tmp_path, "services/api/routes_peek.py", "import asyncpg")
    assert done.returncode != 0
    assert "The HTTP door holds no SQL" in done.stdout and "BROKEN" in done.stdout
    assert "services.api.routes_peek -> asyncpg" in done.stdout
