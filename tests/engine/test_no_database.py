"""The rules engine's, Balut's and the tournament's tests need no database: running them imports no database
code.

The probe runs pytest in a fresh interpreter on ``tests/engine``, ``tests/balut`` and ``tests/tournament``: every
module and conftest is collected (so imported), a few tests actually run, and then ``sys.modules`` is inspected.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import pytest
code = pytest.main(["-q", "-p", "no:cacheprovider", "tests/engine", "tests/balut", "tests/tournament",
                    "-k", "test_shuffle or test_step or test_scoring"])
database = ("asyncpg", "psycopg", "psycopg2", "pgserver", "testcontainers", "services")
LOADER = ("services", "services.compiled")     # how the rules load (tests/conftest.py): no database code
print(json.dumps({
    "code": int(code),
    "collected": all(m in sys.modules for m in ("tests.engine.test_play", "tests.balut.test_record",
                                                 "tests.tournament.test_commands")),
    "database_modules": sorted(m for m in sys.modules if m.split(".")[0] in database and m not in LOADER),
}))
"""


def test_engine_and_tournament_tests_import_no_database_package():
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, run.stdout
    assert report["collected"]
    assert report["database_modules"] == []
