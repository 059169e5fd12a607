"""A real gunicorn on a free loopback port, for the ops tests and benchmarks/load.py (Linux)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "service" / "gunicorn_conf.py"
LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+)")


class GunicornServer:
    """``gunicorn -c <config> <options> <app>`` bound to 127.0.0.1 on a port the kernel picks.

    Use as a context manager: it waits until a worker answers (and, given ``workers``, until that
    many workers run), and on exit stops the whole process group (TERM, then KILL after
    ``stop_timeout``) and removes its log.
    """

    def __init__(
        self,
        app: str = "service:create_app()",
        options: Sequence[str] = (),
        config: Path = GUNICORN_CONF,
        env: Mapping[str, str] | None = None,
        start_timeout: float = 30.0,
        workers: int | None = None,
    ) -> None:
        worker_options = [] if workers is None else ["--workers", str(workers)]
        self.command = [
            sys.executable, "-m", "gunicorn", "-c", str(config),
            "--bind", "127.0.0.1:0", "--no-control-socket", *worker_options, *options, app,
        ]  # fmt: skip
        self.workers = workers
        self.env = {**os.environ, **(env or {})}
        self.start_timeout = start_timeout
        self.port = 0
        self._log = tempfile.NamedTemporaryFile(prefix="gunicorn-", suffix=".log", delete=False)  # noqa: SIM115
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    def log(self) -> str:
        return Path(self._log.name).read_text(errors="replace")

    def __enter__(self) -> GunicornServer:
        self._process = subprocess.Popen(
            self.command, cwd=ROOT, env=self.env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + self.start_timeout
        while not self.port:
            self._check_running(deadline)
            if match := LISTENING.search(self.log()):
                self.port = int(match.group(1))
            time.sleep(0.05)
        while not self._answers() or (self.workers is not None and len(self.worker_pids()) < self.workers):
            self._check_running(deadline)
            time.sleep(0.05)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            if self._process is not None and self._process.poll() is None:
                self.stop()
        finally:
            self._log.close()
            Path(self._log.name).unlink(missing_ok=True)

    def _check_running(self, deadline: float) -> None:
        assert self._process is not None
        if self._process.poll() is not None or time.monotonic() > deadline:
            self.stop()
            raise RuntimeError(f"gunicorn did not start: {self.command}\n{self.log()}")

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/nonexistent-readiness-probe", timeout=2):
                return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False

    def send(self, sig: signal.Signals) -> None:
        """Send a signal to the master (HUP: reload, TERM: graceful stop)."""
        os.kill(self.pid, sig)

    def stop(self, timeout: float = 40.0) -> int:
        """Graceful stop (TERM to the master); KILL the group if it takes longer than ``timeout``."""
        assert self._process is not None
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid, signal.SIGKILL)
            return self._process.wait()
        finally:
            _kill_group_leftovers(self.pid)

    def wait(self, timeout: float) -> int:
        """Wait for the master to exit by itself (after a TERM sent with ``send``)."""
        assert self._process is not None
        return self._process.wait(timeout)

    def worker_pids(self) -> set[int]:
        """The master's living child processes (its workers)."""
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        return {int(pid) for pid in children.read_text().split()} if children.exists() else set()


def _kill_group_leftovers(group: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


@dataclass(frozen=True)
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


def exchange(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    headers: Mapping[str, str] | None = None,
    chunked: bool = False,
    timeout: float = 30.0,
    version: str = "HTTP/1.1",
) -> Reply:
    """One request on a new connection. The body is sent from a thread while the reply is read,
    as a server may answer (413) and close before reading a large body; send errors are ignored.
    """
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        lines = [f"{method} {path} {version}", f"Host: 127.0.0.1:{port}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        payload = _chunks(body) if chunked else body

        def send() -> None:
            with contextlib.suppress(OSError):
                connection.sendall(head + payload)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        response = http.client.HTTPResponse(connection, method=method)
        response.begin()
        reply_body = response.read()
        sender.join(timeout)
        return Reply(response.status, response.headers, reply_body, time.perf_counter() - started)


def _chunks(body: bytes, size: int = 64 * 1024) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size]) for i in range(0, len(body), size)]
    return b"".join(parts) + b"0\r\n\r\n"
