"""The exporter-toolkit style web config: basic auth and TLS on the daemon's endpoints."""

from __future__ import annotations

import base64
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import bcrypt
import httpx
import pytest
from prometheus_client import CollectorRegistry, Gauge

from tqe_monitor.config import ConfigError
from tqe_monitor.web import Probes, StatusServer
from tqe_monitor.webconfig import BasicAuth, WebConfig, load_web_config

PASSWORD = "s3cret-scrape-password"


def bcrypt_hash(password: str, prefix: str = "$2b$") -> str:
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
    return prefix + hashed[4:]


def make_server(web_config: WebConfig) -> StatusServer:
    registry = CollectorRegistry()
    Gauge("tqe_test_value", "A value.", registry=registry).set(7)
    probes = Probes(healthy=lambda: True, ready=lambda: (True, "ready"), state=lambda: {"ok": 1})
    return StatusServer(registry, probes, web_config, "test")


@pytest.fixture
async def auth_server() -> AsyncIterator[str]:
    users = {"prometheus": bcrypt_hash(PASSWORD, "$2y$").replace("$2y$", "$2b$").encode()}
    server = make_server(WebConfig(basic_auth_users=users))
    await server.start("127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.stop()


@pytest.mark.parametrize(
    ("path", "auth", "status"),
    [
        ("/metrics", None, 401),
        ("/metrics", ("prometheus", "wrong"), 401),
        ("/metrics", ("nobody", PASSWORD), 401),
        ("/metrics", ("prometheus", PASSWORD), 200),
        ("/api/state", None, 401),
        ("/api/state", ("prometheus", PASSWORD), 200),
        ("/", None, 401),
        ("/healthz", None, 200),
        ("/readyz", None, 200),
    ],
)
async def test_basic_auth_guards_all_but_the_probes(
    auth_server: str, path: str, auth: tuple[str, str] | None, status: int
) -> None:
    async with httpx.AsyncClient(base_url=auth_server) as client:
        response = await client.get(path, auth=auth)
    assert response.status_code == status
    if status == 401:
        assert response.headers["WWW-Authenticate"].startswith("Basic")
    if path == "/metrics" and status == 200:
        assert "tqe_test_value 7.0" in response.text


def test_basic_auth_remembers_a_verified_header_and_rejects_garbage() -> None:
    auth = BasicAuth({"u": bcrypt_hash("pw").encode()})
    good = "Basic " + base64.b64encode(b"u:pw").decode()
    assert auth.check(good)
    assert auth.check(good)  # second time from the cache
    assert not auth.check("Basic !!!not-base64")
    assert not auth.check("Bearer token")
    assert not auth.check(None)
    assert BasicAuth({}).check(None)  # auth off


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_tls_serves_metrics_over_https(
    certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    cert, key = certificate
    config_file = tmp_path / "web.yml"
    config_file.write_text(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n")
    web_config = load_web_config(config_file)
    assert web_config.tls
    server = make_server(web_config)
    await server.start("127.0.0.1", 0)
    try:
        context = ssl.create_default_context(cafile=str(cert))
        async with httpx.AsyncClient(verify=context) as client:
            response = await client.get(f"https://127.0.0.1:{server.port}/metrics")
        assert response.status_code == 200
        assert "tqe_test_value" in response.text
        with pytest.raises(httpx.HTTPError):
            async with httpx.AsyncClient() as plain:
                await plain.get(f"http://127.0.0.1:{server.port}/metrics")
    finally:
        await server.stop()


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ("tls_server_config:\n  cert_file: /nope.crt\n", "cert_file and key_file go together"),
        (
            "tls_server_config:\n  cert_file: /nope.crt\n  key_file: /nope.key\n",
            "tls_server_config.cert_file: no such file",
        ),
        (
            "basic_auth_users:\n  alice: plaintext-password\n",
            "basic_auth_users.alice: must be a bcrypt hash",
        ),
        ("unknown_section: {}\n", "unknown_section: unknown setting"),
        ("- a list\n", "the top level must be a mapping"),
        ("tls_server_config: [\n", "not a valid YAML file"),
    ],
    ids=[
        "half-tls",
        "missing-files",
        "plaintext-password",
        "unknown-key",
        "not-a-mapping",
        "bad-yaml",
    ],
)
def test_bad_web_configs_name_the_problem(document: str, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "web.yml"
    path.write_text(document)
    with pytest.raises(ConfigError) as raised:
        load_web_config(path)
    text = "\n".join(raised.value.problems)
    assert problem in text
    assert "plaintext-password" not in text
