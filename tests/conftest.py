"""Shared fixtures: the app with test settings, and its client."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app


@pytest.fixture(scope="session")
def app() -> Flask:
    """One app for the session: the factory is pure, and no view keeps state."""
    return create_app({"TESTING": True})


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()
