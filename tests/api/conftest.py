"""API test helpers: every answer a test receives is checked against the published spec."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from werkzeug.test import TestResponse

from service.errors import ILLEGAL_KNOCK, INVALID_INPUT, PROBLEM_MEDIA_TYPE

SPEC_URI = "urn:gin-service:openapi"
Call = Callable[..., TestResponse]


@pytest.fixture(scope="session")
def spec(app: Flask) -> dict[str, Any]:
    """The OpenAPI document the app serves."""
    document: dict[str, Any] = json.loads(app.extensions["openapi"]["json"])
    return document


@pytest.fixture(scope="session")
def registry(spec: dict[str, Any]) -> Registry:
    """The spec as a JSON Schema resource, so its ``#/components/...`` references resolve."""
    resource = Resource.from_contents(spec, default_specification=DRAFT202012)
    registry: Registry = Registry().with_resource(SPEC_URI, resource)
    return registry


def _response_spec(spec: dict[str, Any], path: str, method: str, status: int) -> dict[str, Any]:
    responses = spec["paths"][path][method.lower()]["responses"]
    response = responses.get(str(status), responses.get("default"))
    assert response is not None, f"{method} {path}: status {status} is not documented"
    if "$ref" in response:
        response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    documented: dict[str, Any] = response
    return documented


def check_conforms(spec: dict[str, Any], registry: Registry, response: TestResponse, path: str, method: str) -> None:
    """The status is documented, the media type is one documented for it, the body fits its schema (a 304 has
    none), and each documented header is sent and fits its own schema."""
    documented = _response_spec(spec, path, method, response.status_code)
    if response.status_code == 304:
        assert not response.data and "content" not in documented
    else:
        _check_body(registry, response, path, documented)
    for name, header in documented.get("headers", {}).items():
        header = spec["components"]["headers"][header["$ref"].rsplit("/", 1)[1]] if "$ref" in header else header
        if name == "Allow" and response.status_code != 405:
            continue  # a 405's alone
        assert Draft202012Validator(header["schema"]).is_valid(response.headers.get(name)), (name, response.headers)


def _check_body(registry: Registry, response: TestResponse, path: str,
                documented: dict[str, Any]) -> None:
    assert response.mimetype in documented["content"], response.mimetype
    schema = documented["content"][response.mimetype]["schema"]
    if "$ref" in schema:
        schema = {"$ref": SPEC_URI + schema["$ref"]}
    validator = Draft202012Validator(schema, registry=registry)
    body = yaml.safe_load(response.data) if response.mimetype == "application/yaml" else response.get_json()
    errors = sorted(validator.iter_errors(body), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])
    if response.mimetype == PROBLEM_MEDIA_TYPE:
        check_problem_type(response.get_json())
    elif path.endswith("/batch") and response.status_code == 200:
        for result in response.get_json()["results"]:
            if "problem" in result:
                check_problem_type(result["problem"])


def check_problem_type(problem: dict[str, Any]) -> None:
    """Invalid input is a problem of the service's own types; any other error has no type of its own."""
    if problem["status"] == 422:
        assert problem["type"] in (INVALID_INPUT, ILLEGAL_KNOCK), problem
    else:
        assert problem["type"] == "about:blank", problem


@pytest.fixture()
def call(client: FlaskClient, spec: dict[str, Any], registry: Registry) -> Call:
    """``call(method, url, ...)``: the client's answer, checked against the spec when the route is known."""

    def run(method: str, url: str, template: str | None = None, **kwargs: Any) -> TestResponse:
        response = client.open(url, method=method, **kwargs)
        path = template or url.split("?", 1)[0]
        if method.lower() in spec["paths"].get(path, {}):
            check_conforms(spec, registry, response, path, method)
        return response

    return run
