"""``/v1/rules``: the rule parameters and the presets."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView
from marshmallow import RAISE

from ..core.rules import resolve_rules
from . import Blueprint, NoParameters, render
from .schemas import RulesCatalog

blp = Blueprint("rules", __name__, url_prefix="/v1/rules", description="Rule parameters and presets.")

CATALOG = render.rules_catalog(resolve_rules())


@blp.route("")
class RulesResource(MethodView):
    """The rules."""

    @blp.doc(operationId="listRules")
    @blp.arguments(NoParameters(), location="query", unknown=RAISE)
    @blp.response(200, RulesCatalog, example=CATALOG)
    def get(self, _: dict[str, Any]) -> Response:
        """Every rule parameter with its default and meaning, and every preset.

        Every POST endpoint takes `rules` as a preset name (`"oklahoma"`), an object of parameters
        (`{"knock_limit": 5}`, over the default rules), or both (`{"preset": "oklahoma",
        "oklahoma_ace": "gin_only"}`); `GET /v1/hands/analyze` takes a preset as `rules` and the
        parameters as query keys of their own.
        """
        return jsonify(CATALOG)
