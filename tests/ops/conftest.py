"""Real-gunicorn fixtures: servers on 127.0.0.1, free ports, stopped and cleaned up by themselves."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest

from .live_server import GunicornServer

HAND = ["As", "2s", "3s", "7h", "7d", "7c", "9h", "Th", "Jd", "Kc", "5d"]


def service_server(workers: int = 2, env: Mapping[str, str] | None = None) -> GunicornServer:
    """The service under its own gunicorn settings, with ``workers`` workers."""
    return GunicornServer(
        "service:create_app()",
        env={"PROMETHEUS_MULTIPROC_DIR": "", **(env or {})},  # not this process's, if it has one
        workers=workers,
    )


@pytest.fixture(scope="session")
def shared_server() -> Iterator[GunicornServer]:
    """One 2-worker server for the tests that do not stop or reload it."""
    with service_server() as server:
        yield server
