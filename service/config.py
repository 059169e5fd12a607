"""Application settings (the ``GIN_*`` variables), read from the environment and checked at start; the README's
"Configuration" lists each with its default and meaning, beside the server's (``gunicorn_conf.py``)."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from typing import Any

from . import __version__

DEFAULTS: dict[str, tuple[str, int | str]] = {
    "MAX_CONTENT_LENGTH": ("GIN_MAX_BODY_BYTES", 64 * 1024),
    "BATCH_MAX_CONTENT_LENGTH": ("GIN_BATCH_MAX_BODY_BYTES", 2 * 1024 * 1024),
    "LOG_LEVEL": ("GIN_LOG_LEVEL", "INFO"),
    "CORS_ORIGINS": ("GIN_CORS_ORIGINS", ""),
    "CACHE_MAX_AGE": ("GIN_CACHE_MAX_AGE", 300),
}
INTEGER_RANGES: dict[str, tuple[int, int | None]] = {
    "MAX_CONTENT_LENGTH": (1, None),
    "BATCH_MAX_CONTENT_LENGTH": (1, None),
    "CACHE_MAX_AGE": (0, 365 * 24 * 3600),  # a year: the longest a cache is told to keep anything (RFC 9111)
}
"""The least and most each integer setting takes."""

API_SETTINGS: dict[str, Any] = {
    "API_TITLE": "Gin rummy hand analysis",
    "API_VERSION": __version__,
    "OPENAPI_VERSION": "3.1.0",
    "API_SPEC_OPTIONS": {
        "info": {
            "description": (
                "Exact gin rummy answers: least deadwood and every optimal arrangement, every discard "
                "of a drawn hand, layoffs, round and game scores under named rule sets.\n\n"
                "Cards are strings like `As`, `10h`, `Td`, `K♣`; a hand is a list of cards or one "
                "string (`\"As 2s 3s\"`). Every error is `application/problem+json` (RFC 9457), also "
                "those that gunicorn answers itself before the application runs (request line or headers too "
                "long or unreadable: 414, 431, 400; an `Expect` other than `100-continue`: 417; an unknown "
                "transfer coding: 501), which carry no request id."
            ),
        },
    },
}


INTEGER = re.compile(r"-?[0-9]+")
"""An integer setting as written (Python's ``int`` also reads ``64_000``, ``+5`` and other scripts' digits)."""


def environment_integer(name: str, default: int, environ: Mapping[str, str] = os.environ, *, minimum: int = 0,
                        maximum: int | None = None) -> int:
    """The integer in variable ``name`` (the digits 0-9; blanks around them, as an env file may leave, are
    ignored), ``default`` if it is unset or blank; a ValueError naming it when it is no such integer or is outside
    ``minimum``-``maximum``."""
    raw = environ.get(name) or ""
    if not raw.strip():
        return default
    if not INTEGER.fullmatch(raw.strip()):
        raise ValueError(f"{name} must be an integer written with the digits 0-9, got {raw!r}")
    value = int(raw)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value}")
    return value


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def log_level(setting: str, name: str = "GIN_LOG_LEVEL") -> str:
    """The log level in variable ``name`` as the logging module names it (any case is taken); a ValueError
    naming the variable for any other word."""
    level = setting.strip().upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"{name} must be one of {', '.join(LOG_LEVELS)} (in any case), got {setting!r}")
    return level


ORIGIN = re.compile(r"(?P<scheme>https?)://(?P<host>[A-Za-z0-9.-]+|\[(?P<ipv6>[0-9A-Fa-f:.]+)\])(:(?P<port>[0-9]{1,5}))?"
                    r"|\*")
"""A web origin (scheme, host or bracketed IPv6 address, optional port; no path), or ``*`` for any."""
DEFAULT_PORTS = {"http": 80, "https": 443}


def cors_origins(setting: str) -> list[str]:
    """The origins of ``GIN_CORS_ORIGINS`` (empty: none); a ValueError naming the first that is no origin, or that
    a browser would never send as written."""
    origins = [origin.strip() for origin in setting.split(",") if origin.strip()]
    for origin in origins:
        if problem := _origin_problem(origin):
            raise ValueError(f"GIN_CORS_ORIGINS: {origin!r} {problem}")
    return origins


def _origin_problem(origin: str) -> str | None:
    match = ORIGIN.fullmatch(origin)
    if match is None:
        return ("is not an origin: expected * or scheme://host[:port], e.g. https://play.example.com or "
                "http://[::1]:3000, without a path or a trailing slash")
    if origin == "*":
        return None
    scheme, host, ipv6, port = match["scheme"], match["host"], match["ipv6"], match["port"]
    if ipv6 is not None:
        try:
            address = ipaddress.IPv6Address(ipv6)
        except ValueError:
            return f"is not an origin: {ipv6!r} is not an IPv6 address"
        if address.ipv4_mapped is not None:
            return "is an IPv4-mapped address: give the IPv4 origin"
        if address.compressed != ipv6.lower():
            return f"is not written as browsers send it: {scheme}://[{address.compressed}]" + (
                f":{port}" if port else "")
    if port is None:
        return None
    if not 0 < int(port) < 65536:
        return f"has no valid port: {port}"
    if int(port) == DEFAULT_PORTS[scheme]:
        return f"is not written as browsers send it, without the default port: {scheme}://{host}"
    if str(int(port)) != port:
        return f"is not written as browsers send it: {scheme}://{host}:{int(port)}"
    return None


def _environment_value(key: str, environ: Mapping[str, str]) -> int | str:
    name, default = DEFAULTS[key]
    if isinstance(default, int):
        minimum, maximum = INTEGER_RANGES[key]
        return environment_integer(name, default, environ, minimum=minimum, maximum=maximum)
    return environ.get(name) or default


def load_config(environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """Flask config: the API's fixed settings, then each variable or its default (a ValueError naming the first
    variable whose value is wrong)."""
    config = dict(API_SETTINGS)
    for key in DEFAULTS:
        config[key] = _environment_value(key, environ)
    config["LOG_LEVEL"] = log_level(config["LOG_LEVEL"])
    cors_origins(config["CORS_ORIGINS"])
    return config
