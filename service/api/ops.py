"""Operations: liveness, readiness, and the OpenAPI document."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify
from flask.views import MethodView
from marshmallow import RAISE

from ..core.cards import parse_hand
from ..core.melds import min_deadwood
from . import Blueprint, NoParameters
from .schemas import Health

blp = Blueprint("operations", __name__, description="Health checks and the API description.")

SPEC_MEDIA_TYPES = {"json": "application/json", "yaml": "application/yaml"}


@blp.route("/healthz")
class Alive(MethodView):
    """Liveness."""

    @blp.doc(operationId="checkHealth")
    @blp.response(200, Health, example={"status": "ok"})
    def get(self) -> Response:
        """The process is up and answering (a query string is not read: probes are answered whatever they add)."""
        return jsonify(status="ok")


@blp.route("/readyz")
class Ready(MethodView):
    """Readiness."""

    @blp.doc(operationId="checkReadiness")
    @blp.response(200, Health, example={"status": "ready"})
    def get(self) -> Response:
        """The engine is loaded and answers (one small analysis runs; a query string is not read, as for `/healthz`)."""
        min_deadwood(parse_hand("As 2s 3s 4s 5h 6h 7h 8d 9d Td"))
        return jsonify(status="ready")


def _spec_route(fmt: str) -> type[MethodView]:
    media_type = SPEC_MEDIA_TYPES[fmt]

    class Spec(MethodView):
        @blp.cached
        @blp.doc(operationId=f"getOpenAPI{fmt.upper()}")
        @blp.arguments(NoParameters(), location="query", unknown=RAISE)
        @blp.response(200, {"type": "object", "additionalProperties": True}, content_type=media_type,
                      description=f"The OpenAPI document as {fmt.upper()}.")
        def get(self, _: dict[str, Any]) -> Response:
            """This API's OpenAPI document."""
            return current_app.response_class(current_app.extensions["openapi"][fmt], mimetype=media_type)

    Spec.__name__ = f"OpenAPI{fmt.upper()}"
    return Spec


for _fmt in SPEC_MEDIA_TYPES:
    blp.route(f"/openapi.{_fmt}")(_spec_route(_fmt))
