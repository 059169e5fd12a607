"""``/v1/rules``: the rule parameters and the presets."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView
from marshmallow import RAISE

from ..core.rules import resolve_rules
from . import Blueprint, NoParameters, render
from .schemas import ResolvedRules, RulesCatalog, RulesResolveRequest

blp = Blueprint("rules", __name__, url_prefix="/v1/rules", description="Rule parameters and presets.")

CATALOG = render.rules_catalog(resolve_rules())
RESOLVE_EXAMPLE = {"rules": {"preset": "oklahoma", "knock_limit": 7}}


@blp.route("")
class RulesResource(MethodView):
    """The rules."""

    @blp.cached
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


@blp.route("/resolve")
class ResolveRules(MethodView):
    """Rules resolved."""

    @blp.doc(operationId="resolveRules")
    @blp.arguments(RulesResolveRequest(), example=RESOLVE_EXAMPLE)
    @blp.response(200, ResolvedRules,
                  example=render.resolved_rules(**RulesResolveRequest().load(RESOLVE_EXAMPLE)))
    def post(self, args: dict[str, Any]) -> Response:
        """The rules that a request's `rules` stands for, checked as every endpoint checks them.

        Every parameter's value (a preset's, with the parameters given over it), the presets that play
        as these rules, and the parameters that change nothing under them: a request's answer does not
        say which rules it was given under, and a parameter that does not apply is not refused
        (`knock_limit` in Oklahoma, say); `given` marks those the request set itself.
        """
        return jsonify(render.resolved_rules(**args))
