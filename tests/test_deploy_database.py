"""deploy/k8s/postgres/: the database on Kubernetes, a CloudNativePG Cluster. Its custom resources cannot be
checked against CloudNativePG's schemas offline, so these tests check the facts the platform's promises rest
on: three instances on three nodes, a commit waiting for a standby even when none is left (no acknowledged
command on one machine only), backups with the WAL archive, and the app's DATABASE_URL naming the Service
that follows the primary. The core kinds beside them validate against the Kubernetes API schemas."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

K8S = Path(__file__).resolve().parents[1] / "deploy" / "k8s"
POSTGRES = K8S / "postgres"
K8S_VERSION = "1.31.0"
CNPG = "postgresql.cnpg.io/v1"


def documents() -> list[tuple[str, dict]]:
    docs = []
    for path in sorted(POSTGRES.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def of_kind(kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for _, d in documents() if d["kind"] == kind}


def cluster() -> dict:
    (only,) = of_kind("Cluster").values()
    return only


def database_url() -> str:
    for d in yaml.safe_load_all((K8S / "config.yaml").read_text()):
        if d and d["kind"] == "Secret" and d["metadata"]["name"] == "baloot-secrets":
            return d["stringData"]["DATABASE_URL"]
    raise AssertionError("deploy/k8s/config.yaml has no Secret baloot-secrets")


def test_the_kustomization_lists_every_manifest():
    listed = yaml.safe_load((POSTGRES / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in POSTGRES.glob("*.yaml") if p.name != "kustomization.yaml")


@pytest.mark.parametrize("name, doc", [(n, d) for n, d in documents() if d["apiVersion"] != CNPG],
                         ids=lambda v: v if isinstance(v, str) else v["kind"])
def test_each_core_manifest_validates_against_the_kubernetes_schema(name, doc):
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_everything_lives_in_the_platforms_namespace():
    assert {d["metadata"]["namespace"] for _, d in documents()} == {"baloot"}
    assert {d["kind"] for _, d in documents() if d["apiVersion"] == CNPG} == {"Cluster", "ScheduledBackup"}


def test_three_instances_on_three_nodes():
    spec = cluster()["spec"]
    assert spec["instances"] >= 3
    affinity = spec["affinity"]
    assert affinity.get("enablePodAntiAffinity", True) is True
    assert affinity["topologyKey"] == "kubernetes.io/hostname"
    assert affinity["podAntiAffinityType"] == "required"      # never two copies of the log on one node
    assert spec.get("enablePDB", True) is True


def test_a_commit_waits_for_a_standby_even_when_none_is_left():
    spec = cluster()["spec"]
    sync = spec["postgresql"]["synchronous"]
    assert sync["method"] in ("any", "first")
    assert 1 <= sync["number"] < spec["instances"]           # a standby can be lost and commits go on
    assert sync["dataDurability"] == "required"              # "preferred" would write to the primary alone
    # The older settings are another, self-healing, synchronous mode, and exclusive of this one.
    assert not {"minSyncReplicas", "maxSyncReplicas"} & set(spec)


def test_the_database_url_names_the_clusters_read_write_service_and_database():
    c = cluster()
    url = urlsplit(database_url())
    initdb = c["spec"]["bootstrap"]["initdb"]
    assert url.scheme == "postgresql"
    assert url.hostname == f"{c['metadata']['name']}-rw.{c['metadata']['namespace']}.svc"
    assert url.port == 5432
    assert url.path == f"/{initdb['database']}" and url.username == initdb["owner"]
    assert url.password == "CHANGE-ME"                         # a placeholder, never a password


def test_the_base_backups_and_the_wal_archive_go_to_an_object_store():
    c = cluster()
    store = c["spec"]["backup"]["barmanObjectStore"]
    assert store["destinationPath"].startswith("s3://") and "CHANGE-ME" in store["destinationPath"]
    secrets = of_kind("Secret")
    for ref in store["s3Credentials"].values():
        assert ref["key"] in secrets[ref["name"]]["stringData"]
    assert c["spec"]["backup"]["retentionPolicy"]
    (scheduled,) = of_kind("ScheduledBackup").values()
    assert scheduled["spec"]["cluster"]["name"] == c["metadata"]["name"]
    assert scheduled["spec"]["method"] == "barmanObjectStore"
    assert len(scheduled["spec"]["schedule"].split()) == 6   # CloudNativePG's cron has seconds first


def test_the_platform_kustomization_leaves_the_database_to_its_own():
    # deploy/k8s/*.yaml are validated as core kinds (tests/test_deploy.py); the Cluster lives below, applied
    # on its own once the operator runs, so neither the schema test nor the platform's kustomization sees it.
    listed = yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]
    assert not any(r.startswith("postgres") for r in listed)
    for path in K8S.glob("*.yaml"):
        assert all(d["apiVersion"] != CNPG for d in yaml.safe_load_all(path.read_text()) if d), path.name
