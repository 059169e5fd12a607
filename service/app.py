"""The application factory."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import yaml
from flask import Flask, current_app, request
from flask_swagger_ui import get_swaggerui_blueprint
from werkzeug.exceptions import UnsupportedMediaType

from . import observability
from .api import Api, register_api
from .config import load_config
from .errors import register_error_handlers
from .json_provider import OrjsonProvider


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app: settings from the environment, then ``config`` on top (for tests)."""
    app = Flask(__name__, static_folder=None)
    app.config.update(load_config())
    app.config.update(config or {})
    app.json = OrjsonProvider(app)
    logging.getLogger("service").setLevel(app.config["LOG_LEVEL"])

    register_error_handlers(app)
    observability.init_app(app)
    app.before_request(check_request_body)
    api = Api(app)
    register_api(api)
    app.extensions["openapi"] = spec_documents(api.spec.to_dict())
    app.register_blueprint(get_swaggerui_blueprint(
        "/docs", "/openapi.json", config={"app_name": app.config["API_TITLE"], "validatorUrl": None}))
    return app


def check_request_body() -> None:
    """Before a POST is parsed: JSON only (415), and the endpoint's body size limit (413)."""
    if request.method != "POST" or request.routing_exception is not None or request.endpoint is None:
        return
    if not request.is_json:
        raise UnsupportedMediaType()
    view_class = getattr(current_app.view_functions[request.endpoint], "view_class", None)
    limit_key = getattr(view_class, "max_body_config", None)
    if limit_key is not None:
        request.max_content_length = current_app.config[limit_key]


def spec_documents(spec: dict[str, Any]) -> dict[str, str]:
    """The OpenAPI document as JSON and YAML text: ``openapi`` and ``info`` first, then as built."""
    ordered = {"openapi": spec["openapi"], "info": spec["info"], **spec}
    text = json.dumps(ordered, ensure_ascii=False, indent=2)
    return {"json": text, "yaml": yaml.safe_dump(json.loads(text), sort_keys=False, allow_unicode=True, width=100)}
