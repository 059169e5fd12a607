"""Schema-based fuzzing, in process: no server error, and every answer as the spec says.

Schemathesis generates requests from the served OpenAPI document (valid ones, and invalid ones
that must be rejected with a 4xx) and checks each response: status documented, content type,
headers and body conforming. Bounded and deterministic (``derandomize``) to stay fast.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import negative_data_rejection

from service import create_app

# The statuses each check accepts are the live fuzzing's (its settings file says why). No failure cache on
# disk: every run is the same derandomized run.
SETTINGS = tomllib.loads((Path(__file__).parents[1] / "ops" / "schemathesis.toml").read_text(encoding="utf-8"))
CONFIG = SchemathesisConfig.from_dict({**SETTINGS, "cache": {"enabled": False}})
schema = schemathesis.openapi.from_wsgi("/openapi.json", create_app({"TESTING": True}), config=CONFIG)
BATCH = "/v1/hands/analyze/batch"


@schema.parametrize()
@settings(max_examples=30,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_api_conforms_to_its_spec(case: schemathesis.Case[Any]) -> None:
    negative = case.meta is not None and case.meta.generation.mode.is_negative
    if case.operation.path == BATCH and case.method == "POST" and negative:
        # A batch answers a bad hand in its own result (200), so an invalid request is either
        # rejected whole or has at least one hand answered with a problem.
        response = case.call()
        case.validate_response(response, excluded_checks=[negative_data_rejection])
        if response.status_code == 200:
            assert any(result["status"] == 422 for result in response.json()["results"]), case.as_curl_command()
        return
    case.call_and_validate()
