"""Shared fixtures: the app with test settings, and its client."""

from __future__ import annotations

import os

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings

from service import create_app

# Every property test the same on every run and machine: a fixed sequence of examples (derandomize), no wall-clock
# deadline per example (200 ms by default), no health check timed by the clock (too_slow) and no example database,
# as Hypothesis's own "ci" profile, which it loads only where a CI variable such as CI is set (.ci/run sets none).
# The tests set no such settings themselves, so HYPOTHESIS_PROFILE=explore searches at random.
settings.register_profile("repeatable", derandomize=True, deadline=None, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def app() -> Flask:
    """One app for the session: the factory is pure, and no view keeps state."""
    return create_app({"TESTING": True})


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()
