"""The architecture as contracts (``[tool.importlinter]`` in pyproject.toml): the layers point down, the two
games stand apart, the seam is one-way, Litestar stays in the HTTP door. ``lint-imports`` checks them here
as a newcomer runs it; and a tree with one forbidden import is shown to break them, so that a contract that
checks nothing would fail this test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_import_contracts_hold():
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " 0 broken" in done.stdout and "kept" in done.stdout


def lint_with(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess:
    """``lint-imports`` on a copy of the tree with one more module (a path under it) holding ``line``."""
    for part in ("domain", "projections", "services", "migrations"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / module).write_text(line + "\n")
    return lint(tmp_path)


def test_a_game_importing_the_table_breaks_the_one_way_seam(tmp_path):
    done = lint_with(tmp_path, "domain/balut/peek.py", "from domain.table import TableState")
    assert done.returncode != 0
    assert "The seam is one-way" in done.stdout and "BROKEN" in done.stdout
    assert "domain.balut.peek -> domain.table" in done.stdout


def test_the_table_service_asking_the_championships_breaks_its_contract(tmp_path):
    """What a caller may see of a table is decided by the access policy, which reads the championships and the
    daily deal; the table service asking them itself (as its visibility module once did) breaks a contract."""
    done = lint_with(tmp_path, "services/tables/peek.py", "from services.championships import ChampionshipService")
    assert done.returncode != 0
    assert "The table service never asks the championship or daily services" in done.stdout and "BROKEN" in done.stdout
    assert "services.tables.peek -> services.championships" in done.stdout
