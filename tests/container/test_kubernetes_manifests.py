"""config/kubernetes/: the fields that decide whether the pod starts, stays up and gets scraped.

No cluster and no kubectl here, and no Kubernetes JSON schema in the test dependencies, so this
checks what matters by hand: kinds and API versions, that every reference resolves (selectors,
named ports, volumes, the ConfigMap, the Secret's keys, the claim), probe paths, the hardening,
and that the manifests agree with the Dockerfile (port, uid, config and state paths) and with
the config loader (the ConfigMap's config is valid and its key files are the Secret's keys).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from tqe_monitor.config import load_config, resolve_targets

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / "config" / "kubernetes"
DOCKERFILE = (REPO / "Dockerfile").read_text()


def _dockerfile_env(name: str) -> str:
    match = re.search(rf"\b{name}=(\S+)", DOCKERFILE)
    assert match, f"the Dockerfile sets no {name}"
    return match.group(1)


IMAGE_PORT = int(_dockerfile_env("TQE_MONITOR_SERVER__LISTEN").rpartition(":")[2])
IMAGE_CONFIG = PurePosixPath(_dockerfile_env("TQE_MONITOR_CONFIG"))
IMAGE_STORE = PurePosixPath(_dockerfile_env("TQE_MONITOR_STORAGE__PATH"))


def _dockerfile_uid() -> int:
    match = re.search(r"^USER (\d+)", DOCKERFILE, re.MULTILINE)
    assert match, "the Dockerfile sets no numeric USER"
    return int(match.group(1))


IMAGE_UID = _dockerfile_uid()


def _load() -> dict[str, dict[str, Any]]:
    """Every manifest by kind (each kind appears once)."""
    by_kind: dict[str, dict[str, Any]] = {}
    for path in sorted(MANIFESTS.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            assert document["kind"] not in by_kind, f"two {document['kind']}s"
            by_kind[document["kind"]] = document | {"_file": path.name}
    return by_kind


KINDS = _load()


def _pod() -> dict[str, Any]:
    spec: dict[str, Any] = KINDS["Deployment"]["spec"]["template"]["spec"]
    return spec


def _container() -> dict[str, Any]:
    containers = _pod()["containers"]
    assert len(containers) == 1
    container: dict[str, Any] = containers[0]
    return container


def _mounts() -> dict[PurePosixPath, dict[str, Any]]:
    """Mount path -> {the mount, plus the volume it names under "volume"}."""
    volumes = {volume["name"]: volume for volume in _pod()["volumes"]}
    return {
        PurePosixPath(mount["mountPath"]): mount | {"volume": volumes[mount["name"]]}
        for mount in _container()["volumeMounts"]
    }


def _named_port(name_or_number: str | int) -> int:
    if isinstance(name_or_number, int):
        return name_or_number
    ports = {port["name"]: port["containerPort"] for port in _container()["ports"]}
    return int(ports[name_or_number])


@pytest.mark.parametrize(
    ("kind", "api_version", "file"),
    [
        pytest.param("Deployment", "apps/v1", "deployment.yaml", id="deployment"),
        pytest.param("Service", "v1", "service.yaml", id="service"),
        pytest.param("ConfigMap", "v1", "configmap.yaml", id="configmap"),
        pytest.param("Secret", "v1", "secret.yaml", id="secret"),
        pytest.param("PersistentVolumeClaim", "v1", "persistentvolumeclaim.yaml", id="pvc"),
        pytest.param("ServiceMonitor", "monitoring.coreos.com/v1", "servicemonitor.yaml", id="sm"),
        pytest.param(
            "Kustomization", "kustomize.config.k8s.io/v1beta1", "kustomization.yaml", id="kust"
        ),
    ],
)
def test_each_kind_is_shipped_with_its_api_version(kind: str, api_version: str, file: str) -> None:
    manifest = KINDS[kind]
    assert (manifest["apiVersion"], manifest["_file"]) == (api_version, file)
    if kind != "Kustomization":
        assert manifest["metadata"]["name"].startswith("tqe-monitor")


def test_the_kustomization_lists_existing_files_and_never_the_secret_template() -> None:
    resources = KINDS["Kustomization"]["resources"]
    assert all((MANIFESTS / resource).is_file() for resource in resources)
    # Applying the template would overwrite real keys with placeholders.
    assert "secret.yaml" not in resources


def test_selectors_and_named_ports_resolve() -> None:
    deployment, service = KINDS["Deployment"], KINDS["Service"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert service["spec"]["selector"].items() <= pod_labels.items()
    monitor = KINDS["ServiceMonitor"]["spec"]
    assert monitor["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    service_ports = {port["name"]: port for port in service["spec"]["ports"]}
    for endpoint in monitor["endpoints"]:
        assert endpoint["path"] == "/metrics"
        assert _named_port(service_ports[endpoint["port"]]["targetPort"]) == IMAGE_PORT


def test_the_container_port_and_scrape_annotations_match_the_image() -> None:
    assert [port["containerPort"] for port in _container()["ports"]] == [IMAGE_PORT]
    annotations = KINDS["Deployment"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(IMAGE_PORT)
    assert annotations["prometheus.io/path"] == "/metrics"


@pytest.mark.parametrize(
    ("probe", "path"),
    [
        pytest.param("livenessProbe", "/healthz", id="liveness-healthz"),
        pytest.param("readinessProbe", "/readyz", id="readiness-readyz"),
    ],
)
def test_probes_ask_the_daemon(probe: str, path: str) -> None:
    http_get = _container()[probe]["httpGet"]
    assert http_get["path"] == path
    assert _named_port(http_get["port"]) == IMAGE_PORT


@pytest.mark.parametrize(
    ("where", "field", "expected"),
    [
        pytest.param("pod", "runAsNonRoot", True, id="non-root"),
        pytest.param("pod", "runAsUser", IMAGE_UID, id="the-image-uid"),
        pytest.param("pod", "fsGroup", IMAGE_UID, id="volumes-writable-by-it"),
        pytest.param("pod", "seccompProfile", {"type": "RuntimeDefault"}, id="seccomp"),
        pytest.param("container", "readOnlyRootFilesystem", True, id="read-only-root"),
        pytest.param("container", "allowPrivilegeEscalation", False, id="no-escalation"),
        pytest.param("container", "capabilities", {"drop": ["ALL"]}, id="no-capabilities"),
    ],
)
def test_security_context(where: str, field: str, expected: object) -> None:
    context = (_pod() if where == "pod" else _container())["securityContext"]
    assert context[field] == expected


def test_one_replica_replaced_not_rolled_since_the_store_has_one_writer() -> None:
    spec = KINDS["Deployment"]["spec"]
    assert (spec["replicas"], spec["strategy"]["type"]) == (1, "Recreate")


def test_config_state_and_tmp_are_mounted_where_the_image_looks() -> None:
    mounts = _mounts()
    config = mounts[IMAGE_CONFIG.parent]
    assert config["readOnly"] is True
    assert config["volume"]["configMap"]["name"] == KINDS["ConfigMap"]["metadata"]["name"]
    assert IMAGE_CONFIG.name in KINDS["ConfigMap"]["data"]
    state = mounts[IMAGE_STORE.parent]
    assert not state.get("readOnly", False)
    claim = state["volume"]["persistentVolumeClaim"]["claimName"]
    assert claim == KINDS["PersistentVolumeClaim"]["metadata"]["name"]
    # With a read-only root, anything that writes a temporary file needs a writable /tmp.
    assert "emptyDir" in mounts[PurePosixPath("/tmp")]["volume"]


def test_the_configmap_config_is_valid_and_reads_its_keys_from_the_secret(
    tmp_path: Path,
) -> None:
    config_file = tmp_path / "config.yaml"
    config_file.write_text(KINDS["ConfigMap"]["data"][IMAGE_CONFIG.name])
    settings = load_config(config_file).settings

    secret = KINDS["Secret"]
    mounts = _mounts()
    key_files: dict[Path, str] = {}
    for name, target in settings.targets.items():
        assert target.api_key_file is not None, f"{name}: keys belong in the Secret"
        path = PurePosixPath(target.api_key_file)
        mount = mounts[path.parent]
        assert mount["volume"]["secret"]["secretName"] == secret["metadata"]["name"]
        key_files[Path(path)] = secret["stringData"][path.name]

    # The loader accepts what the Secret holds as key files (one key on one line).
    resolved = resolve_targets(settings, read_text=key_files.__getitem__)
    assert [t.name for t in resolved] == list(settings.targets)
