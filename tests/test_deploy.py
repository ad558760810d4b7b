"""deploy/: the Kubernetes manifests validate against the Kubernetes API schemas (kubernetes-validate, for a
fixed version), and the compose file, HAProxy's configuration and the manifests agree on names and ports.
(deploy/smoke builds and runs the compose file itself.)"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
K8S_VERSION = "1.31.0"


def k8s_documents() -> list[tuple[str, dict]]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def of_kind(kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for _, d in k8s_documents() if d["kind"] == kind}


@pytest.mark.parametrize("name, doc", k8s_documents(), ids=lambda v: v if isinstance(v, str) else v["kind"])
def test_each_manifest_validates_against_the_kubernetes_schema(name, doc):
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)      # raises on any invalid or unknown field


def test_the_kustomization_lists_every_manifest():
    listed = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in (DEPLOY / "k8s").glob("*.yaml") if p.name != "kustomization.yaml")


def test_the_kinds_an_organiser_needs_are_there():
    kinds = {(d["kind"], d["metadata"]["name"]) for _, d in k8s_documents()}
    assert {("Deployment", "baloot-api"), ("Deployment", "baloot-worker"), ("Job", "baloot-migrate"),
            ("Service", "baloot-api"), ("Ingress", "baloot"), ("HorizontalPodAutoscaler", "baloot-api"),
            ("PodDisruptionBudget", "baloot-api"), ("PodDisruptionBudget", "baloot-worker"),
            ("ConfigMap", "baloot-config"), ("Secret", "baloot-secrets")} <= kinds


def test_the_api_is_ready_by_health_and_alive_without_the_database():
    (api,) = of_kind("Deployment")["baloot-api"]["spec"]["template"]["spec"]["containers"]
    assert api["readinessProbe"]["httpGet"]["path"] == "/health"
    assert "tcpSocket" in api["livenessProbe"]      # a database outage makes pods unready, never restarts them
    port = api["ports"][0]
    service = of_kind("Service")["baloot-api"]["spec"]["ports"][0]
    assert service["targetPort"] == port["name"] and f"--port {port['containerPort']}" in " ".join(api["command"])


def test_the_ingress_suits_server_sent_events():
    notes = of_kind("Ingress")["baloot"]["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600


def test_every_pod_gets_the_urls_and_the_secret_from_the_secret():
    secret = of_kind("Secret")["baloot-secrets"]["stringData"]
    assert {"DATABASE_URL", "BROKER_URL", "BALOOT_SECRET"} <= set(secret)
    pods = [d["spec"]["template"]["spec"] for _, d in k8s_documents() if d["kind"] in ("Deployment", "Job")]
    for pod in pods:
        for c in pod["containers"]:
            assert {"secretRef": {"name": "baloot-secrets"}} in c["envFrom"]
            assert pod["securityContext"]["runAsNonRoot"] is True


# ---------------------------------------------------------------- compose and HAProxy


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yml").read_text())


def haproxy_ports() -> tuple[int, list[int]]:
    text = (DEPLOY / "haproxy.cfg").read_text()
    bind = int(re.search(r"^\s*bind\s+[\d.]*:(\d+)", text, re.M).group(1))
    servers = [int(p) for p in re.findall(r"^\s*server\s+\S+\s+[\d.]+:(\d+)", text, re.M)]
    return bind, servers


def test_haproxy_balances_the_compose_files_api_replicas_on_their_ports():
    services = compose()["services"]
    replicas = sorted(int(s["environment"]["PORT"]) for name, s in services.items() if name.startswith("api"))
    bind, servers = haproxy_ports()
    assert sorted(servers) == replicas == [21801, 21802]
    assert bind == 21880
    text = (DEPLOY / "haproxy.cfg").read_text()
    assert "balance roundrobin" in text and "option httpchk GET /health" in text
    assert re.search(r"timeout tunnel\s+1h", text) and re.search(r"timeout server\s+1h", text)


def test_the_compose_services_meet_on_the_same_ports():
    services = compose()["services"]
    env = services["api1"]["environment"]
    # Both PostgreSQL nodes, the first that takes writes: the primary, or the standby once promoted.
    assert "@127.0.0.1:21432,127.0.0.1:21433/" in env["DATABASE_URL"]
    assert env["DATABASE_URL"].endswith("?target_session_attrs=read-write")
    nodes = {s: services[s]["environment"] for s in ("postgres", "postgres2")}
    assert (nodes["postgres"]["PG_PORT"], nodes["postgres"]["PG_PEER"]) == ("21432", "21433")
    assert (nodes["postgres2"]["PG_PORT"], nodes["postgres2"]["PG_PEER"]) == ("21433", "21432")
    assert ":21672/" in env["BROKER_URL"] and services["rabbitmq"]["environment"]["RABBITMQ_NODE_PORT"] == "21672"
    assert {"migrate", "api1", "api2", "worker1", "worker2", "haproxy", "postgres", "postgres2", "rabbitmq"} \
        == set(services)
    assert services["migrate"]["command"] == ["baloot", "migrate"]
    assert all(services[w]["command"][:2] == ["baloot", "worker"] for w in ("worker1", "worker2"))


def test_haproxy_accepts_its_configuration(tmp_path):
    """`haproxy -c` (Debian's haproxy, which .ci/run installs) on the file, its error page put where it goes."""
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(haproxy).exists():
        pytest.fail("this test checks deploy/haproxy.cfg with Debian's haproxy: apt-get install -y haproxy")
    page = tmp_path / "503.http"
    page.write_text((DEPLOY / "haproxy-503.http").read_text())
    config = tmp_path / "haproxy.cfg"
    config.write_text((DEPLOY / "haproxy.cfg").read_text().replace("/etc/haproxy/503.http", str(page)))
    result = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_hosts_ports_lie_below_the_ephemeral_range():
    # Linux hands outgoing connections ports from 32768 up: a service listening there may find its port taken.
    text = (DEPLOY / "compose.yml").read_text() + (DEPLOY / "haproxy.cfg").read_text()
    ports = {int(p) for p in re.findall(r"(?:127\.0\.0\.1:|PORT: \"|-p )(\d{4,5})", text)}
    assert {21432, 21672, 21673, 21369, 21801, 21802, 21880} <= ports
    assert max(ports) < 32768, sorted(ports)


def test_the_broker_stops_cleanly():
    # A stop sends SIGTERM; without an init process the shell wrapper as PID 1 never passes it on.
    assert compose()["services"]["rabbitmq"]["init"] is True
