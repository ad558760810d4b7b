"""What a newcomer types wrong gets one line and exit status 2, never a traceback; a reader that stops early
(`baloot audit FILE | head`) ends the command quietly. Run as a user would (subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from services.db import schema_url

ERRORS = [
    (("daily", "leaderboard", "--day", "2026-13-45"), "'2026-13-45' is not a day: write it YYYY-MM-DD"),
    (("daily", "leaderboard", "--day", "yesterday"), "'yesterday' is not a day"),
    (("simulate", "--deals", "0"), "argument --deals: 0 is not a count"),
    (("simulate", "--deals", "-3"), "argument --deals: -3 is not a count"),
    (("simulate", "--deals", "many"), "argument --deals: 'many' is not a whole number"),
    (("bots", "match", "--boards", "0"), "argument --boards: 0 is not a count"),
    (("worker", "--threads", "0"), "argument --threads: 0 is not a count"),
    (("serve", "--log-level", "loud"), "argument --log-level: invalid choice: 'loud'"),
]


def baloot(*args: str, env: dict | None = None, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=120, **options)


@pytest.mark.parametrize(("args", "said"), ERRORS, ids=[" ".join(a) for a, _ in ERRORS])
def test_a_bad_argument_is_one_line_and_exit_2(args, said):
    done = baloot(*args)
    assert done.returncode == 2, done
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


def test_verify_of_a_stream_the_log_does_not_have_is_refused(database_url, db_schema, tmp_path):
    env = {"DATABASE_URL": schema_url(database_url, db_schema), "BALOOT_SIGNING_KEY_FILE": str(tmp_path / "k.pem")}
    assert baloot("key", env=env).returncode == 0                 # a key, so that only the stream is wrong
    done = baloot("verify", "--stream", "nosuch", env=env)
    assert done.returncode == 2 and "the log has no stream 'nosuch'" in done.stderr
    assert "OK: no findings" not in done.stdout


def test_audit_into_a_reader_that_stops_early_ends_quietly(tmp_path):
    assert baloot("simulate", "--deals", "1", "--out", str(tmp_path)).returncode == 0
    (record,) = tmp_path.glob("deal-*.json")
    audit = subprocess.Popen([sys.executable, "-m", "services.cli", "audit", str(record)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    first = audit.stdout.readline()
    audit.stdout.close()                                          # what `head -1` does
    assert audit.wait(60) == 0 and first.startswith(b"baloot-hand/1 audit")
    assert b"Traceback" not in audit.stderr.read()


def test_simulate_counts_a_games_winner_only_when_it_counted_the_whole_game():
    done = baloot("simulate", "--deals", "5", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "games cut short by --deals" in done.stdout and "games won by team" not in done.stdout
