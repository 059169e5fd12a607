"""The HTTP API: flask-smorest blueprints over the core, and the OpenAPI document they make.

Views load their input with ``@blp.arguments`` (marshmallow schemas from ``schemas.py``), call
the core, and return ``jsonify`` of a dict built by ``render.py``; ``@blp.response`` then only
documents the answer (flask-smorest does not dump a returned ``Response``), which keeps
serialisation lean. Errors are documented here as problem+json responses and answered by
``service.errors``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes

import flask_smorest
from apispec import APISpec, BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from flask import Flask, Request, Response, current_app, request
from gunicorn.http.errors import ChunkMissingTerminator, ParseException
from marshmallow import RAISE, Schema, ValidationError
from marshmallow.fields import Field
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.exceptions import BadRequest, ClientDisconnected, RequestEntityTooLarge, UnsupportedMediaType
from werkzeug.exceptions import NotImplemented as NotImplementedCoding
from werkzeug.http import generate_etag

from ..errors import INVALID_INPUT, PROBLEM_MEDIA_TYPE, UnsupportedBodyEncoding, problem, problem_body
from ..json_provider import load_request_body
from ..observability import REQUEST_ID_HEADER, REQUEST_ID_PATTERN
from .fields import component_schemas
from .schemas import BatchAnswer, BatchError, InputSchema, Problem

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

PRECONDITION_FAILED = ("If-Match names no tag of this answer: its ETag, {etag}, is weak, and If-Match matches only "
                       "a strong tag (or *)")
PRECONDITION_FAILED_RESPONSE = "PreconditionFailed"
ERROR_RESPONSES: dict[str, tuple[str, dict[str, Any]]] = {
    # name: (description, example)
    "BadRequest": ("The body is not valid JSON, ends before its `Content-Length` or last chunk, or its chunked "
                   "coding cannot be read; or the query string's bytes, raw or %-escaped, are not UTF-8; or a "
                   "request line or header that gunicorn cannot read, such as a raw byte past ASCII in the request "
                   "line or a control byte in a header's name (answered by gunicorn before the application runs, "
                   "without a request id).", problem_body(
        400, "the request body is not valid JSON: unexpected end of data (line 1, column 2)")),
    "ContentTooLarge": ("The body is over the size limit: 64 KiB, or 2 MiB for a batch (settings "
                   "`GIN_MAX_BODY_BYTES`, `GIN_BATCH_MAX_BODY_BYTES`).", problem_body(
        413, "the request body is larger than the limit of 65536 bytes")),
    "UnsupportedMediaType": ("The body is not sent as application/json, or is compressed (`Content-Encoding`), "
                        "or declared in a charset other than UTF-8.", problem_body(
        415, "the request body must be JSON, sent with Content-Type: application/json")),
    "UnprocessableContent": ("The input is invalid; `errors` names each field at fault.", problem_body(
        422, "hand: unknown card 'Zz': expected a rank (A 2-9 T/10 J Q K) and a suit (s h d c or ♠ ♥ ♦ ♣)",
        type_=INVALID_INPUT, errors=[{
            "pointer": "#/hand",
            "detail": "unknown card 'Zz': expected a rank (A 2-9 T/10 J Q K) and a suit (s h d c or ♠ ♥ ♦ ♣)"}])),
    "Error": ("Any other error: 404 unknown route, 405 wrong method (with `Allow`), 501 for a body sent with a "
              "transfer coding other than `chunked` (such as `gzip, chunked`), 500. gunicorn answers some "
              "itself, without a request id: a 400 for a request line or header it cannot read, a 417 for an "
              "`Expect` other than `100-continue`, a 501 for a transfer coding it does not know, and a 500 when a "
              "request outlasts the time limit.", problem_body(
        405, "DELETE is not allowed on /v1/layoffs; allowed: OPTIONS, POST")),
    PRECONDITION_FAILED_RESPONSE: ("An `If-Match` other than `*`: the answer's `ETag` is weak, which `If-Match` "
                                   "never matches.", problem_body(412, PRECONDITION_FAILED.format(
                                       etag='W/"651fc36d8024bc9dd1221db59d365d776c99ca28"'))),
    # gunicorn refuses these itself, before the application runs. The API's paths are short, so on a documented
    # route only a query string can make a request line too long: the operations that take one document the 414.
    "URITooLong": ("The request line is over gunicorn's limit of 8,190 bytes (answered by gunicorn, without a "
                   "request id).", problem_body(414, "Request Line is too large (9036 > 8190)")),
    "HeadersTooLarge": ("A header, or their number, is over gunicorn's limits (8,192 bytes a header line with "
                        "its CRLF, so 8,190 of `Name: value`; 100 headers; answered by gunicorn, without a "
                        "request id).", problem_body(
        431, "Error parsing headers: 'limit request headers fields size'")),
}
# The errors that only gunicorn answers: they carry no request id.
GUNICORN_ERRORS = ("URITooLong", "HeadersTooLarge")
ALLOW_HEADER: dict[str, Any] = {"schema": {"type": "string"}, "example": "OPTIONS, POST",
                                "description": "A 405's: the methods the path takes."}
BODY_ERRORS = {400: "BadRequest", 413: "ContentTooLarge", 415: "UnsupportedMediaType", 422: "UnprocessableContent"}
QUERY_ERRORS = {400: "BadRequest", 414: "URITooLong", 422: "UnprocessableContent"}


DEFAULT_ERROR = "Error"
REQUEST_ID = "RequestId"
REQUEST_ID_EXAMPLE = "5d0c9e2a4b7f41c3a8e6d1f0b2c4a6e8"
REQUEST_ID_PARAMETER: dict[str, Any] = {
    "name": REQUEST_ID_HEADER, "schema": {"type": "string"}, "example": REQUEST_ID_EXAMPLE,
    "description": "An id for the request, echoed in the answer and its log line: 1 to 128 visible ASCII "
    "characters, no spaces; any other value is replaced by a new id."}
REQUEST_ID_ANSWER: dict[str, Any] = {
    "schema": {"type": "string", "pattern": f"^{REQUEST_ID_PATTERN.pattern}$"}, "example": REQUEST_ID_EXAMPLE,
    "description": "The request's id: the `X-Request-ID` sent, else a new one (32 hex digits)."}

# The headers of an answer that any cache may keep (``Blueprint.cached``), and the request header that revalidates it.
CACHE_HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {"schema": {"type": "string", "pattern": '^W/"[0-9a-f]{40}"$'},
             "example": 'W/"0c6f3f1c8d27b1e5d7a4b9f0e2c3d4a5b6c7d8e9"',
             "description": "A weak tag of the answer, a hash of its body: send it back as `If-None-Match` to be "
             "answered 304, without a body, while the answer is the same."},
    "Cache-Control": {"schema": {"type": "string"}, "example": "public, max-age=300",
                      "description": "How long any cache may reuse the answer without asking again: "
                      "`GIN_CACHE_MAX_AGE` seconds, 300 unless set; with 0, `no-cache` (ask again each time, "
                      "by the `ETag`). The answer depends on the request alone, but a new release of the service "
                      "may change it."},
    "Vary": {"schema": {"type": "string"}, "example": "X-Request-ID, Accept-Encoding",
             "description": "The request headers a cache must match: `X-Request-ID`, which the answer echoes (a "
             "cache keeps one answer for the requests without one, carrying the id of the request that fetched "
             "it); `Accept-Encoding`, for a gateway that compresses; and `Origin` where CORS names origins."},
}
CACHE_VARY = f"{REQUEST_ID_HEADER}, Accept-Encoding"
IF_NONE_MATCH = "IfNoneMatch"
IF_NONE_MATCH_PARAMETER: dict[str, Any] = {
    "name": "If-None-Match", "schema": {"type": "string"}, "example": CACHE_HEADERS["ETag"]["example"],
    "description": "The `ETag`s of answers already held (or `*`): a 304 without a body when this answer's is "
    "among them."}
IF_MATCH = "IfMatch"
IF_MATCH_PARAMETER: dict[str, Any] = {
    "name": "If-Match", "schema": {"type": "string"}, "example": "*",
    "description": "`*` goes on to the answer; any tag is refused 412, as the answer's `ETag` is weak and "
    "`If-Match` matches only strong tags (RFC 9110, 13.1.1)."}
NOT_MODIFIED: dict[str, Any] = {"description": "Not Modified: the `If-None-Match` named this answer's `ETag`; no body."}


def make_cacheable(answer: Response) -> Response:
    """``answer``, a 200, with the headers that let any cache keep it (``CACHE_HEADERS``); then the request's
    preconditions in RFC 9110's order (13.2.2): a 412 problem for an ``If-Match`` but ``*`` (a weak tag never
    matches it), a 304 without a body for an ``If-None-Match`` that names the tag. The headers are written as
    text: through Werkzeug's header objects they cost some 30 us more a request (measured in process)."""
    max_age = current_app.config["CACHE_MAX_AGE"]
    tag = generate_etag(answer.get_data())
    headers = answer.headers
    headers.setdefault("Cache-Control", f"public, max-age={max_age}" if max_age else "no-cache")  # a view's first
    headers["ETag"] = f'W/"{tag}"'
    headers["Vary"] = f"{headers['Vary']}, {CACHE_VARY}" if "Vary" in headers else CACHE_VARY
    environ = request.environ
    if "HTTP_IF_MATCH" in environ and request.if_match and not request.if_match.star_tag:
        return problem(412, PRECONDITION_FAILED.format(etag=headers["ETag"]))
    if "HTTP_IF_NONE_MATCH" in environ and request.if_none_match.contains_weak(tag):
        answer.status = "304 Not Modified"
    return answer


# ``/metrics`` is served by ``service.observability``, outside the API's blueprints; ``register_api`` documents it.
METRICS_OPERATION: dict[str, Any] = {
    "tags": ["operations"], "operationId": "getMetrics", "summary": "Prometheus metrics.",
    "description": "Request counts and latency histograms by method, route and status, in-flight requests, and "
    "hands analyzed, summed over every worker, in the Prometheus text format.",
    "responses": {"200": {"description": "The metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}},
                  "default": {"$ref": "#/components/responses/Error"}},
}


def described_by_component(converter: FieldConverterMixin, field: Field[Any], ret: dict[str, Any],
                           **kwargs: Any) -> dict[str, Any]:
    """A field whose metadata refers to a component (``allOf``; ``anyOf`` with null once apispec made it
    nullable) takes its type and choices from it alone: apispec also writes those of the field's class and
    validators, and a generated client would name a type of its own for each such field. apispec's
    converter calls this as one of its methods."""
    if any("$ref" in part for part in ret.get("allOf", ret.get("anyOf", []))):
        for key in ("type", "enum"):
            ret.pop(key, None)
    return {}


class SpecExtras(BasePlugin):
    """What apispec cannot derive from the code: a schema's ``openapi_conditions`` (rules between its fields) and
    ``openapi_alternatives`` (a ``oneOf`` of named schemas, each with one of its properties required and without the
    others), fields described by a component alone, and the ``X-Request-ID`` header on every operation and answer."""

    spec: APISpec

    def init_spec(self, spec: APISpec) -> None:
        """Keep the spec, to add the alternatives' components to it, and have fields that refer to a
        component described by it alone."""
        self.spec = spec
        for plugin in spec.plugins:
            if isinstance(plugin, MarshmallowPlugin) and plugin.converter is not None:
                plugin.converter.add_attribute_function(described_by_component)  # type: ignore[no-untyped-call]

    def schema_helper(self, name: str, definition: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The component ``name`` with its ``openapi_conditions`` (rules between fields, as JSON Schema's ``if`` and
        ``then`` in an ``allOf``), or as a ``oneOf`` of its alternatives, if it has them."""
        schema = kwargs.get("schema")
        conditions: tuple[dict[str, Any], ...] = getattr(schema, "openapi_conditions", ())
        alternatives: dict[str, str] = getattr(schema, "openapi_alternatives", {})
        if not alternatives:
            return {"allOf": list(conditions)} if conditions else {}
        properties = definition.pop("properties")
        definition.clear()
        for component, required in alternatives.items():
            others = set(alternatives.values()) - {required}
            self.spec.components.schema(component, {
                "type": "object", "properties": {key: value for key, value in properties.items() if key not in others},
                "required": [required], "additionalProperties": False})
        return {"oneOf": [{"$ref": f"#/components/schemas/{component}"} for component in alternatives]}

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        """Each operation takes an ``X-Request-ID`` and each of its own answers carries one; each may get
        gunicorn's 431. A query parameter described by a component alone refers to it directly."""
        for operation in (operations or {}).values():
            for parameter in operation.get("parameters", []):
                if isinstance(parameter, dict) and list(parameter.get("schema", {})) == ["allOf"]:
                    parameter["schema"], = parameter["schema"]["allOf"]  # a plain $ref types a client's argument
            operation.setdefault("parameters", []).append(REQUEST_ID)
            operation.setdefault("responses", {}).setdefault("431", "HeadersTooLarge")
            for response in operation.get("responses", {}).values():
                if isinstance(response, dict) and "$ref" not in response:  # a shared response has its own
                    response.setdefault("headers", {})[REQUEST_ID_HEADER] = REQUEST_ID


class Api(flask_smorest.Api):  # type: ignore[misc]
    """flask-smorest's Api, with problem+json error responses, no error handler of its own, no
    pagination, and ``SpecExtras`` in the spec."""

    DEFAULT_ERROR_RESPONSE_NAME = DEFAULT_ERROR

    def __init__(self, app: Flask) -> None:
        super().__init__(app, spec_kwargs={"extra_plugins": [SpecExtras()]})

    def _register_error_handlers(self) -> None:
        """``service.errors`` answers every error."""

    def _register_pagination_header(self) -> None:
        """No operation pages its answers: no pagination header nor its schema in the spec."""

    def _register_responses(self) -> None:
        spec: APISpec = self.spec
        for name, schema in component_schemas().items():
            spec.components.schema(name, schema)
        spec.components.schema("Problem", schema=Problem)
        spec.components.schema("BatchAnswer", schema=BatchAnswer)
        spec.components.schema("BatchError", schema=BatchError)
        spec.components.parameter(REQUEST_ID, "header", REQUEST_ID_PARAMETER)
        spec.components.header(REQUEST_ID, REQUEST_ID_ANSWER)
        spec.components.parameter(IF_NONE_MATCH, "header", IF_NONE_MATCH_PARAMETER)
        spec.components.parameter(IF_MATCH, "header", IF_MATCH_PARAMETER)
        for name, header in CACHE_HEADERS.items():
            spec.components.header(name, header)
        for name, (description, example) in ERROR_RESPONSES.items():
            content: dict[str, Any] = {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"},
                                                            "example": example}}
            response: dict[str, Any] = {"description": description, "content": content}
            if name not in GUNICORN_ERRORS:
                response["headers"] = {REQUEST_ID_HEADER: REQUEST_ID}
            if name == DEFAULT_ERROR:
                response["headers"]["Allow"] = ALLOW_HEADER
            spec.components.response(name, response)


class NoQuery(InputSchema):
    """The query string of an operation that takes a JSON body: it must be empty (a parameter there
    would be ignored, e.g. rules meant for the body)."""

    error_messages = {"unknown": "not read here: this operation takes its input as a JSON body"}  # noqa: RUF012 (marshmallow reads it from the class)


class NoParameters(InputSchema):
    """The query string of an operation that takes no input: it must be empty (a misspelt or
    misplaced parameter is refused, not ignored)."""

    error_messages = {"unknown": "not read: this operation takes no parameters"}  # noqa: RUF012 (marshmallow reads it from the class)


def _declared_length(environ: WSGIEnvironment) -> int:
    """The body's ``Content-Length`` as a number (0 if none or unreadable), read from the environ: Werkzeug's
    ``request.content_length`` cost some 26,000 instructions a request, 1% of an analysis (callgrind)."""
    declared = environ.get("CONTENT_LENGTH", "")
    return int(declared) if declared.isascii() and declared.isdigit() else 0


class Parser(FlaskParser):
    """webargs' Flask parser with stricter edges. A JSON body not sent as JSON, compressed, or declared
    in a charset other than UTF-8 is a 415; a body over the endpoint's size limit a 413, chunked or
    not (its view class names the limit's setting in ``max_body_config``, else
    ``MAX_CONTENT_LENGTH`` applies); the JSON is read by ``load_request_body`` (orjson, its numbers
    exactly), and a query string beside it is refused, as is a body beside a GET's query. A query
    parameter that takes one value is refused when given twice (webargs would keep the first)."""

    def load_querystring(self, req: Request, schema: Schema) -> Any:
        """The query parameters, each single-valued one given at most once; a body beside them on a GET is
        refused."""
        if req.method in ("GET", "HEAD") and (_declared_length(req.environ) or "HTTP_TRANSFER_ENCODING" in req.environ):
            raise ValidationError(f"a {req.method} takes its input in the query string and reads no body; "
                                  "a JSON body goes with POST")
        query = req.environ.get("QUERY_STRING", "")
        if not query.isascii() or "%" in query:
            _refuse_undecodable(query)
        proxy = super().load_querystring(req, schema)
        repeated = {key: [f"given {len(values)} times: expected one value"] for key, values in req.args.lists()
                    if len(values) > 1 and key not in proxy.multiple_keys}
        if repeated:
            raise ValidationError(repeated)
        return proxy

    def _raw_load_json(self, req: Request) -> Any:
        # The environ is read directly where the request's properties would parse on every call.
        environ = req.environ
        if environ.get("QUERY_STRING"):
            self.parse(NoQuery(), req, location="query", unknown=RAISE)  # a 422 naming each parameter
        if not is_json_request(req):
            raise UnsupportedMediaType()
        encoding = environ.get("HTTP_CONTENT_ENCODING", "identity")
        if encoding.strip().lower() not in ("", "identity"):  # codings are case-insensitive (RFC 9110)
            raise UnsupportedBodyEncoding(f"the request body is sent with Content-Encoding: {encoding}; "
                                          "send it uncompressed")
        if (codings := environ.get("HTTP_TRANSFER_ENCODING")) and codings.lower().replace(" ", "") != "chunked":
            # gunicorn answers a coding it does not know itself, and passes others before chunked on (``gzip,
            # chunked`` with the body still compressed; ``identity``, which RFC 9112 no longer has).
            raise NotImplementedCoding(f"the request body is sent with Transfer-Encoding: {codings[:100]}; send it "
                                       "chunked alone, or with a Content-Length")
        if ";" in environ.get("CONTENT_TYPE", ""):
            charset = req.mimetype_params.get("charset", "utf-8").lower()
            if charset not in ("utf-8", "utf8"):
                raise UnsupportedBodyEncoding(f"the request body is declared charset={charset}; JSON is read as UTF-8")
        view_class = getattr(current_app.view_functions.get(req.endpoint or ""), "view_class", None)
        limit_key = getattr(view_class, "max_body_config", None)
        if limit_key is not None:
            req.max_content_length = current_app.config[limit_key]
        try:
            body = req.get_data(cache=True)
            if "CONTENT_LENGTH" not in environ and len(body) == req.max_content_length and \
                    environ["wsgi.input"].read(1):
                # A chunked body (no Content-Length) is cut at the limit by Werkzeug: past it, refuse.
                raise RequestEntityTooLarge()
            if len(body) < _declared_length(environ):
                # gunicorn ends the body at what arrived when the client stops sending: a prefix that may be JSON.
                raise ClientDisconnected()
        except ParseException as error:  # gunicorn's, for a chunked coding it cannot read (else a 500)
            if isinstance(error, ChunkMissingTerminator) and not error.term:  # the body ended there
                raise ClientDisconnected() from None
            raise BadRequest(f"the request body's chunked coding could not be read: {str(error)[:100]}") from None
        if not body.strip():
            # Not JSON, like a body of spaces; webargs would take an error with an empty ``doc`` for
            # a missing body, and answer that the fields are missing.
            raise json.JSONDecodeError("the body is empty: expected a JSON object", " ", 0)
        try:
            return load_request_body(body)
        except json.JSONDecodeError as error:
            text = body.decode(errors="replace")
            try:
                body.decode()
            except UnicodeDecodeError as bad:
                raise json.JSONDecodeError(f"byte 0x{body[bad.start]:02x} is not UTF-8", text, bad.start) from None
            raise json.JSONDecodeError(error.msg, text, error.pos) from None


def _refuse_undecodable(query: str) -> None:
    """A 400 for a query string whose bytes are not UTF-8: raw (Werkzeug would fail on them with a 500; gunicorn
    refuses any raw byte past ASCII in the request line itself, other servers pass them on), or percent-escaped
    (Werkzeug would keep the escape as text, to be read as a card or a parameter's name)."""
    raw = query.encode("latin-1")  # how WSGI hands the bytes over (PEP 3333)
    try:
        raw.decode()
    except UnicodeDecodeError as bad:
        raise BadRequest(f"byte 0x{raw[bad.start]:02x} of the query string is not UTF-8: percent-encode the "
                         "parameters' values (as %XX escapes of their UTF-8 bytes)") from None
    unescaped = unquote_to_bytes(raw)
    try:
        unescaped.decode()
    except UnicodeDecodeError as bad:
        raise BadRequest(f"the escape %{unescaped[bad.start]:02X} of the query string does not decode as UTF-8: "
                         "escape the UTF-8 bytes of the parameters' values (é is %C3%A9)") from None


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """A flask-smorest Blueprint whose arguments document this API's own error responses."""

    ARGUMENTS_PARSER = Parser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.append(self._prepare_cache_doc)

    def cached(self, view: Callable[..., Response]) -> Callable[..., Response]:
        """A GET view whose answer depends on the request alone: any cache may keep it (``make_cacheable``). The
        outermost decorator, so that it sees the answer. (flask-smorest's own ``etag`` hashes the data a view
        returns, which here is already a ``Response``.)"""

        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Response:
            return make_cacheable(view(*args, **kwargs))

        wrapper._apidoc = {**getattr(view, "_apidoc", {}), "cached": True}  # type: ignore[attr-defined]
        return wrapper

    @staticmethod
    def _prepare_cache_doc(doc: dict[str, Any], doc_info: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """A cached operation's answer documents its cache headers, and the operation its 304 and 412."""
        if doc_info.get("cached"):
            cache_headers = {name: name for name in CACHE_HEADERS}
            doc["responses"][200].setdefault("headers", {}).update(cache_headers)
            doc["responses"][304] = {**NOT_MODIFIED, "headers": cache_headers}
            doc["responses"][412] = PRECONDITION_FAILED_RESPONSE
            doc.setdefault("parameters", []).extend((IF_NONE_MATCH, IF_MATCH))
        return doc

    def arguments(self, schema: Any, *, location: str = "json", **kwargs: Any) -> Callable[[Any], Any]:
        """Load and validate ``location`` with ``schema``; document its 4xx problems."""
        decorator = super().arguments(schema, location=location, **kwargs)
        errors = BODY_ERRORS if location == "json" else QUERY_ERRORS

        def wrap(view: Any) -> Any:
            loaded = decorator(view)
            loaded._apidoc["arguments"]["responses"] = dict(errors)
            return loaded

        return wrap


def register_api(api: Api, app: Flask) -> None:
    """Register every blueprint of the API, and document ``/metrics`` beside them."""
    from . import games, hands, hints, layoffs, ops, rounds, rules

    for module in (hands, layoffs, rounds, games, hints, rules, ops):
        api.register_blueprint(module.blp)
    api.spec.path(rule=next(app.url_map.iter_rules("metrics")), operations={"get": dict(METRICS_OPERATION)},
                  parameters=[])
