# tqe-monitor: a small, non-root image of the daemon (docs/deployment.md).
#
#   podman build --format docker -t tqe-monitor .     # `--format docker` keeps the HEALTHCHECK
#   docker run -v ./config.yaml:/etc/tqe-monitor/config.yaml:ro -p 9787:9787 tqe-monitor
#
# Two stages on the same base: `build` turns the source into a wheel and installs it into a
# venv; the runtime stage copies only that venv, so no compiler, pip, wheel or cache reaches the
# final image.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/venv
# Dependencies first, from pyproject.toml alone: this layer is rebuilt only when they change.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && /opt/venv/bin/pip install --requirement /tmp/requirements.txt
COPY README.md ./
COPY src ./src
RUN /opt/venv/bin/pip wheel --no-deps --wheel-dir /wheels . \
    && /opt/venv/bin/pip install --no-deps /wheels/tqe_monitor-*.whl \
    && /opt/venv/bin/python -m compileall -q /opt/venv/lib \
    && /opt/venv/bin/pip uninstall --yes --quiet pip setuptools

FROM python:3.11-slim
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="tqe-monitor" \
      org.opencontainers.image.description="Watches a Translation Quality Evaluation service: state, word balance, Prometheus metrics and alerts." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/python:3.11-slim"

# A fixed numeric uid/gid: Kubernetes' runAsNonRoot can only verify a numeric USER.
RUN groupadd --gid 10001 tqe \
    && useradd --no-log-init --uid 10001 --gid tqe --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin tqe \
    && install -d -o tqe -g tqe -m 0750 /var/lib/tqe-monitor \
    && install -d -m 0755 /etc/tqe-monitor

COPY --from=build /opt/venv /opt/venv

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TQE_MONITOR_CONFIG=/etc/tqe-monitor/config.yaml \
    TQE_MONITOR_STORAGE__PATH=/var/lib/tqe-monitor/tqe-monitor.db \
    TQE_MONITOR_SERVER__LISTEN=0.0.0.0:9787

# The config (read-only is fine) and the SQLite store (must be writable by uid 10001).
VOLUME ["/etc/tqe-monitor", "/var/lib/tqe-monitor"]
WORKDIR /var/lib/tqe-monitor
USER 10001:10001
EXPOSE 9787

# Liveness of the process and its scheduler, on whatever port TQE_MONITOR_SERVER__LISTEN names.
# (With TLS from server.web_config_file, override this check or rely on the orchestrator's.)
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ['TQE_MONITOR_SERVER__LISTEN'].rpartition(':')[2]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]

# The daemon drains in-flight polls on SIGTERM and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tqe-monitor"]
CMD ["run"]
