"""Exact gin rummy hand analysis as a stateless REST service: ``create_app()`` builds it.

The web layer is imported on first use of ``create_app``, so ``import service.core`` (the pure
engine) loads no Flask.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__: str = version("gin-service")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["__version__", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module 'service' has no attribute {name!r}")
