"""``python -m service [gunicorn options]``: serve the app with gunicorn and the project's settings."""

from __future__ import annotations

import sys

from gunicorn.app.wsgiapp import WSGIApplication


def main(argv: list[str] | None = None) -> None:
    """Run gunicorn with ``service/gunicorn_conf.py``; extra arguments go to gunicorn."""
    sys.argv = ["gunicorn", "--config", "python:service.gunicorn_conf", *(sys.argv[1:] if argv is None else argv)]
    WSGIApplication("%(prog)s [OPTIONS]").run()


if __name__ == "__main__":
    main()
