"""The `baloot` commands that write to a server's database, run on this test's PostgreSQL schema."""

from __future__ import annotations


def pytest_configure(config):
    # The database fixtures: one plugin for the whole run, loaded only where tests need a database.
    config.pluginmanager.import_plugin("tests.db_fixtures")
