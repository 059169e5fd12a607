"""The application factory."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

import yaml
from flask import Flask, Request, Response, request
from flask_cors import CORS
from flask_swagger_ui import get_swaggerui_blueprint
from werkzeug.exceptions import NotFound
from werkzeug.routing import RequestRedirect

from . import observability
from .api import Api, register_api
from .config import cors_origins, load_config
from .errors import problem, register_error_handlers
from .json_provider import OrjsonProvider

CORS_RESOURCES = r"/(v1/.*|openapi\.(json|yaml))"
"""What a browser page of an allowed origin may read: the API and its spec (not the metrics or probes)."""
CORS_MAX_AGE = 600
"""Seconds a browser may keep a preflight's answer."""


class App(Flask):
    """Flask, for an app of synchronous views only, whose automatic OPTIONS answers are 204."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Every view and hook is synchronous: no check for coroutines on each call of each."""
        return func

    def raise_routing_exception(self, request: Request) -> NoReturn:
        """Werkzeug's routing redirects (``/docs`` to ``/docs/``, doubled slashes merged) name the path only: it
        builds them on the host the ``Host`` header names, which any client sets (a shared cache could keep that
        answer for everyone)."""
        moved = request.routing_exception
        if isinstance(moved, RequestRedirect):
            parts = urlsplit(moved.new_url)
            raise RequestRedirect(urlunsplit(("", "", parts.path, parts.query, parts.fragment)))
        super().raise_routing_exception(request)

    def make_default_options_response(self) -> Response:
        """The methods allowed (``Allow``, sorted as in a 405) and no content, rather than an empty
        text/html page."""
        answer = super().make_default_options_response()
        answer.headers["Allow"] = ", ".join(sorted(answer.allow))
        return no_content(answer)


def no_content(answer: Response) -> Response:
    """``answer`` as a 204, without the text/html type an empty response gets by default."""
    answer.status_code = 204
    del answer.headers["Content-Type"]
    return answer


def _exactly(origin: str) -> str | re.Pattern[str]:
    """An allowed origin as flask-cors matches it: ``*`` as is, any other only as a whole, letter case aside
    (flask-cors would take an IPv6 origin's brackets for a regular expression)."""
    return origin if origin == "*" else re.compile(re.escape(origin) + r"\Z", re.IGNORECASE)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app: settings from the environment, then ``config`` on top (for tests)."""
    app = App(__name__, static_folder=None)
    app.config.update(load_config())
    app.config.update(config or {})
    app.json = OrjsonProvider(app)
    logging.getLogger("service").setLevel(app.config["LOG_LEVEL"])

    register_error_handlers(app)
    observability.init_app(app)
    if origins := cors_origins(app.config["CORS_ORIGINS"]):
        CORS(app, resources=CORS_RESOURCES, origins=[_exactly(origin) for origin in origins],
             send_wildcard="*" in origins, methods=["GET", "POST"], vary_header=False,
             expose_headers=[observability.REQUEST_ID_HEADER, "ETag"], max_age=CORS_MAX_AGE)
        app.before_request(pass_preflights_to_unknown_paths)
        if "*" not in origins:
            app.after_request(vary_with_origin)
    api = Api(app)
    register_api(api, app)
    app.extensions["openapi"] = spec_documents(api.spec.to_dict())
    docs = get_swaggerui_blueprint(  # the OAuth2 page by path: by default it is named on the Host header's host
        "/docs", "/openapi.json", config={"app_name": app.config["API_TITLE"], "validatorUrl": None,
                                          "oauth2RedirectUrl": "/docs/oauth2-redirect.html"})
    docs.before_request(any_file_matches_a_star)
    docs.after_request(failed_precondition_as_problem)
    app.register_blueprint(docs)
    return app


def vary_with_origin(answer: Response) -> Response:
    """Where CORS names origins, every answer of a path open to pages varies with the ``Origin``, also one to a
    request without it (a cache could give that to an allowed page, which the browser would block): one ``Vary``
    line beside a cached answer's own, where flask-cors would add a second, and only where it allows the origin."""
    if re.match(CORS_RESOURCES, request.path):
        answer.vary.add("Origin")
    return answer


def any_file_matches_a_star() -> None:
    """An ``If-Match: *`` holds for any file that exists (RFC 9110, 13.1.1), but Werkzeug's ``send_file`` fails it:
    the condition is dropped before it is checked."""
    if request.if_match.star_tag:
        del request.environ["HTTP_IF_MATCH"]


def failed_precondition_as_problem(answer: Response) -> Response:
    """A documentation file asked for with an ``If-Match`` or ``If-Unmodified-Since`` that does not hold: Werkzeug
    answers 412 but keeps the file as the body; a problem instead."""
    if answer.status_code == 412:
        return problem(412, "the If-Match or If-Unmodified-Since condition failed for this file")
    return answer


def pass_preflights_to_unknown_paths() -> Response | None:
    """A browser's preflight for a path that does not exist gets a 204 (with the CORS headers, for an allowed
    origin), so that the page sees the request's own 404 problem: a refused preflight shows it only "Failed
    to fetch", like a service that is down."""
    if (request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers
            and isinstance(request.routing_exception, NotFound)):
        return no_content(Response())
    return None


def spec_documents(spec: dict[str, Any]) -> dict[str, str]:
    """The OpenAPI document as JSON and YAML text: ``openapi`` and ``info`` first, then as built."""
    ordered = {"openapi": spec["openapi"], "info": spec["info"], **spec}
    text = json.dumps(ordered, ensure_ascii=False, indent=2)
    return {"json": text, "yaml": yaml.safe_dump(json.loads(text), sort_keys=False, allow_unicode=True, width=100)}
