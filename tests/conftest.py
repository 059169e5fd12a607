"""Shared fixtures: the app with test settings, and its client."""

from __future__ import annotations

import os

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings

from service import create_app

# Every property test the same on every run and machine: a fixed sequence of examples (derandomize), no wall-clock
# deadline per example (200 ms by default) and no example database. Hypothesis loads its own "ci" profile (the same)
# only where a CI variable such as CI is set, and .ci/run sets none. HYPOTHESIS_PROFILE=explore searches at random.
settings.register_profile("repeatable", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def app() -> Flask:
    """One app for the session: the factory is pure, and no view keeps state."""
    return create_app({"TESTING": True})


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()
