"""The deployment files, offline: Kubernetes manifests valid against the API schemas (strict), and
the manifests, the compose file and nginx.conf consistent with each other and with the app."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from service import create_app, gunicorn_conf
from service.api.schemas import BATCH_LIMIT
from service.config import DEFAULTS

from .live_server import ROOT

DEPLOY = ROOT / "service" / "deploy"
MANIFESTS = sorted((DEPLOY / "k8s").glob("*.yaml"))
# The oldest release whose defaults run every field used here (preStop sleep: beta in 1.30), and the newest.
KUBERNETES_VERSIONS = ("1.30.0", kubernetes_validate.latest_version())


def load_all(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def by_kind() -> dict[str, dict[str, Any]]:
    resources = [resource for path in MANIFESTS for resource in load_all(path)]
    kinds = {resource["kind"]: resource for resource in resources}
    assert len(kinds) == len(resources), "one resource of each kind"
    return kinds


def routes() -> set[str]:
    return {rule.rule for rule in create_app().url_map.iter_rules()}


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=[path.name for path in MANIFESTS])
def test_manifest_is_valid(path: Path, version: str) -> None:
    for resource in load_all(path):
        kubernetes_validate.validate(resource, version, strict=True)


def test_strict_validation_catches_a_misspelt_field() -> None:
    deployment = copy.deepcopy(by_kind()["Deployment"])
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["livenessprobe"] = container.pop("livenessProbe")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSIONS[-1], strict=True)


def test_the_set_is_complete() -> None:
    assert set(by_kind()) == {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"}


def test_selectors_ports_and_targets_match() -> None:
    kinds = by_kind()
    deployment, service = kinds["Deployment"], kinds["Service"]
    hpa, pdb = kinds["HorizontalPodAutoscaler"], kinds["PodDisruptionBudget"]
    pod = deployment["spec"]["template"]
    labels = pod["metadata"]["labels"]
    for selector in (deployment["spec"]["selector"]["matchLabels"], pdb["spec"]["selector"]["matchLabels"],
                     service["spec"]["selector"]):
        assert selector.items() <= labels.items()
    [container] = pod["spec"]["containers"]
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert {port["targetPort"] for port in service["spec"]["ports"]} <= set(ports)
    env = {variable["name"]: variable["value"] for variable in container["env"]}
    assert int(env["PORT"]) == ports["http"] == int(pod["metadata"]["annotations"]["prometheus.io/port"])
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    # The autoscaler owns the replica count (an apply of a fixed count would reset it), and a drain takes one
    # pod at a time at any scale (a minAvailable of 1 let a drain evict 9 of 10).
    assert "replicas" not in deployment["spec"] and hpa["spec"]["minReplicas"] >= 2
    assert pdb["spec"] == {**pdb["spec"], "maxUnavailable": 1} and "minAvailable" not in pdb["spec"]


def test_the_pod_is_probed_bounded_and_stops_gracefully() -> None:
    pod = by_kind()["Deployment"]["spec"]["template"]["spec"]
    [container] = pod["containers"]
    served = routes()
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["httpGet"]["path"] in served
        assert container[probe]["httpGet"]["port"] == "http"
    # The probes queue behind requests for the same sync workers: a busy pod stays in the Service (a probe
    # queued 1.5 s under load passes readiness), a stuck one leaves it (readiness) long before it is restarted
    # (liveness), which waits a minute without an answer.
    liveness, readiness = container["livenessProbe"], container["readinessProbe"]
    patience = liveness["periodSeconds"] * liveness["failureThreshold"]
    assert patience >= 60 and liveness["timeoutSeconds"] > readiness["timeoutSeconds"]
    assert patience > 2 * readiness["periodSeconds"] * readiness["failureThreshold"]
    assert readiness["timeoutSeconds"] >= 3 and readiness["failureThreshold"] >= 3
    resources = container["resources"]
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources[kind])
    env = {variable["name"]: variable["value"] for variable in container["env"]}
    assert int(env["WEB_CONCURRENCY"]) <= int(resources["limits"]["cpu"]), "one worker per CPU at most"
    mounts = [mount["mountPath"] for mount in container["volumeMounts"]]
    assert any(env["PROMETHEUS_MULTIPROC_DIR"].startswith(mount + "/") for mount in mounts)
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    drain = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pod["terminationGracePeriodSeconds"] > drain + gunicorn_conf.graceful_timeout


def nginx_directives() -> dict[str, list[str]]:
    text = re.sub(r"#.*", "", (DEPLOY / "nginx.conf").read_text())
    directives: dict[str, list[str]] = {}
    for name, value in re.findall(r"^\s*([a-z_]+)\s+([^;{]*);", text, re.MULTILINE):
        directives.setdefault(name, []).append(value.strip())
    return directives


def size_in_bytes(text: str) -> int:
    units = {"": 1, "k": 1024, "m": 1024**2}
    number, unit = re.fullmatch(r"(\d+)([km]?)", text.lower()).groups()  # type: ignore[union-attr]
    return int(number) * units[unit]


def test_compose_runs_replicas_behind_nginx() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    app, gateway = compose["services"]["app"], compose["services"]["gateway"]
    assert app["deploy"]["replicas"] >= 2
    assert (DEPLOY / app["build"]["context"] / "Dockerfile").resolve() == ROOT / "Dockerfile"
    health = re.search(r"http://127\.0\.0\.1:(\d+)(/\w+)", " ".join(app["healthcheck"]["test"]))
    assert health and health.group(1) == app["environment"]["PORT"] and health.group(2) in routes()
    assert gateway["depends_on"]["app"]["condition"] == "service_healthy"
    mounted = [volume.split(":")[0] for volume in gateway["volumes"]]
    assert (DEPLOY / mounted[0]).resolve() == DEPLOY / "nginx.conf"
    stop_grace = int(app["stop_grace_period"].removesuffix("s"))
    assert stop_grace > gunicorn_conf.graceful_timeout
    nginx = nginx_directives()
    assert nginx["server"] == [f"app:{app['environment']['PORT']} resolve"]
    passed = {name for name in app["environment"] if name.startswith("GIN_")}
    assert passed and passed <= {variable for variable, _ in DEFAULTS.values()}  # settings the app reads


def test_nginx_limits_match_the_service() -> None:
    nginx = nginx_directives()
    # Big enough for the largest body the service takes, so the service's own 413 explains the rest.
    _, batch_body_limit = DEFAULTS["BATCH_MAX_CONTENT_LENGTH"]
    assert size_in_bytes(nginx["client_max_body_size"][0]) == batch_body_limit
    # A full batch of ten-card hands stays in memory, not in a temporary file (nginx's default is 16 KiB).
    full_batch = json.dumps({"hands": [{"hand": "As 2s 3s 4s 5s 6s 7s 8s 9s Ts"}] * BATCH_LIMIT})
    assert size_in_bytes(nginx["client_body_buffer_size"][0]) >= len(full_batch) > 16 * 1024
    # Waits longer than a worker may take, so the worker timeout, not the proxy, bounds a request.
    assert int(nginx["proxy_read_timeout"][0].removesuffix("s")) > gunicorn_conf.timeout
    assert nginx["limit_req_status"] == ["429"]
    assert "proxy_set_header" in nginx and "X-Request-ID $request_id_out" in nginx["proxy_set_header"]


def test_every_location_applies_the_same_limits_of_every_path() -> None:
    """The batch's location repeats the limits of every path (limit_req and limit_conn set in a location replace
    those of the location around it): the copies must not drift apart when the rate is tuned (a review)."""
    nginx = nginx_directives()
    per_client = [value for value in nginx["limit_req"] if value.startswith("zone=per_client ")]
    connections = [value for value in nginx["limit_conn"] if value.startswith("connections_per_client ")]
    assert len(per_client) == len(connections) == 2
    assert len(set(per_client)) == len(set(connections)) == 1
    assert "zone=batches_per_client burst=4 nodelay" in nginx["limit_req"]
    assert "batch_connections_per_client 2" in nginx["limit_conn"]
