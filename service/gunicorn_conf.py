"""Gunicorn settings for the service, each overridden from the environment (``PORT``, ``HOST``, ``WEB_CONCURRENCY``,
``GUNICORN_*``, ``LOG_LEVEL``); the README's "Configuration" lists each with its default and meaning.

``GUNICORN_CMD_ARGS`` (gunicorn's own) overrides anything here, as gunicorn options (``--bind``, ``--workers``...).
"""

from __future__ import annotations

import json
import math
import os
import socket
import tempfile
from pathlib import Path
from typing import Any

from gunicorn import util
from gunicorn.glogging import Logger

from service import observability
from service.config import environment_integer, load_config, log_level
from service.errors import PROBLEM_MEDIA_TYPE, TITLES, problem_body

# gunicorn's 500 comes without a message: the worker was stopped before the application answered.
WORKER_STOPPED = ("the server stopped the request before the application answered it, as it does when a request "
                  "outlasts the time limit (GUNICORN_TIMEOUT)")


def bind_address(host: str, port: int) -> str:
    """gunicorn's ``host:port``, with an IPv6 address put in brackets (``::``: every address)."""
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def listening_host(host: str) -> str:
    """``host`` (blanks around it dropped, ``0.0.0.0`` if none) once a socket has been bound to it; a ValueError
    naming ``HOST`` when it is no address of this machine or no name that resolves (gunicorn would try it for some
    5 s and then name only the address)."""
    host = host.strip() or "0.0.0.0"
    address = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        with socket.socket(socket.AF_INET6 if util.is_ipv6(address) else socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))
    except (OSError, TypeError) as error:  # a TypeError for a name too long to encode
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ValueError(f"HOST {host!r} cannot be listened on here: {reason}") from None
    return host


def access_log(path: str) -> str | None:
    """``GUNICORN_ACCESS_LOG``: None when blank, ``-`` for standard output, else a file that can be appended to
    (made if missing); a ValueError naming the variable otherwise (gunicorn's own refusal names only the path)."""
    if not path:
        return None
    if path != "-":
        try:
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as error:
            raise ValueError(f"GUNICORN_ACCESS_LOG {path!r} cannot be written: {error.strerror or error}") from None
    return path


def check_metrics_directory(directory: str) -> None:
    """``PROMETHEUS_MULTIPROC_DIR``, when set, made if missing and shown to take a file; a ValueError naming the
    variable otherwise (the master would fail only once listening, with a traceback)."""
    if not directory:
        return
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise ValueError(f"{observability.MULTIPROC_ENV} {directory!r} is not a directory")
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as error:
        raise ValueError(f"{observability.MULTIPROC_ENV} {directory!r} cannot hold the metrics: "
                         f"{error.strerror or error}") from None


def available_cpus(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """The CPUs this process may run on, capped by its cgroup's CPU limit (cgroup v2: ``quota period``, or
    ``max`` for none), rounded up."""
    cpus = len(os.sched_getaffinity(0))
    try:
        quota, period = cpu_max.read_text(encoding="ascii").split()
        return cpus if quota == "max" else max(1, min(cpus, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):  # no cgroup v2 limit to read
        return cpus


wsgi_app = "service:create_app()"
load_config()  # the app's own settings read now too, so that a wrong one stops gunicorn with one line naming it
bind = bind_address(listening_host(os.environ.get("HOST", "")), environment_integer("PORT", 8000, maximum=65535))
workers = environment_integer("WEB_CONCURRENCY", available_cpus(), minimum=1)
threads = environment_integer("GUNICORN_THREADS", 1, minimum=1)
timeout = environment_integer("GUNICORN_TIMEOUT", 30, minimum=1)  # 0 would turn gunicorn's worker timeout off
graceful_timeout = environment_integer("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = environment_integer("GUNICORN_KEEPALIVE", 5)
accesslog = access_log(os.environ.get("GUNICORN_ACCESS_LOG", ""))
errorlog = "-"
loglevel = log_level(os.environ.get("LOG_LEVEL") or "info", "LOG_LEVEL").lower()
check_metrics_directory(os.environ.get(observability.MULTIPROC_ENV, ""))


class JSONLogger(Logger):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn's own messages (workers starting and stopping, a worker timeout) as JSON lines on
    standard error, like the app's records; the opt-in access log keeps gunicorn's format."""

    def setup(self, cfg: Any) -> None:
        """gunicorn's setup (also run on a reload), then JSON for every handler of its error log."""
        super().setup(cfg)
        for handler in self.error_log.handlers:
            handler.setFormatter(observability.JSONLogFormatter())


logger_class = JSONLogger

# A request line and each header line up to 8 KiB with its CRLF, as the gateway's nginx reads them (its
# large_client_header_buffers), so that nginx refuses a longer one first, as a problem with a request id
# (gunicorn's defaults, 4,094 and 8,190 bytes, let nginx pass lines that gunicorn then refused without one).
# 8,190 is the most gunicorn allows for the request line; a header line's limit counts its CRLF.
limit_request_line = 8190
limit_request_field_size = 8192
# Heartbeat files in memory, not on a container's overlay disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# No control socket: nothing manages the server at run time, and $HOME may be read-only.
control_socket_disable = True
# Load the app once in the master and fork it (measured: 43 MiB total PSS for 2 workers, not 66).
preload_app = True
# Prometheus multiprocess mode: its directory is made before the workers start, and a dead
# worker's live gauges are dropped and its counts archived.
when_ready = observability.when_ready
child_exit = observability.child_exit
on_exit = observability.on_exit


def write_problem(client: socket.socket, status: int, reason: str, message: str) -> None:
    """gunicorn's own error answer (a request line or header it cannot read or will not take, a worker stopped
    mid-request) as problem+json like every other error, in place of its HTML page."""
    body = json.dumps(problem_body(status, message or WORKER_STOPPED), separators=(",", ":")).encode()
    head = (f"HTTP/1.1 {status} {TITLES.get(status, reason)}\r\nConnection: close\r\n"
            f"Content-Type: {PROBLEM_MEDIA_TYPE}\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(client, head.encode("latin-1") + body)


def post_fork(server: Any, worker: Any) -> None:
    """gunicorn hook (each worker, once forked): its own error answers are written by ``write_problem``."""
    util.write_error = write_problem
