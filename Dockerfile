# Filled in by the container issue: a multi-stage python:3.11-slim image, non-root, with a
# HEALTHCHECK on /healthz. Until then, install with `pip install .` (see README).
FROM python:3.11-slim
