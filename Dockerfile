# gpucalc in a container: the image a Prefect Docker (or Kubernetes) work pool runs the nightly in.
#
#   docker build -t gpucalc .          # or: prefect deploy -n nightly-docker
#
# Everything the pipeline needs is installed from PyPI at build time, DuckDB's extensions
# included (their wheels, pinned in pyproject.toml), so a container needs no network for
# DuckDB itself; only the live sources (and MotherDuck, if used) reach out. State lives
# outside: mount the shared data directory at /data and name the shared warehouse in
# GPUCALC_WAREHOUSE (README, "Beyond one machine").
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GPUCALC_DATA_DIR=/data \
    PREFECT_SERVER_ANALYTICS_ENABLED=false \
    GX_ANALYTICS_ENABLED=false

WORKDIR /opt/gpucalc

# Dependencies first, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
COPY flows/__init__.py flows/
COPY sources/__init__.py sources/
COPY warehouse/__init__.py warehouse/
COPY reports/__init__.py reports/
RUN pip install . && pip uninstall -y gpucalc

# The code; the deployment's entrypoint (flows/nightly.py:nightly) is read from here.
COPY flows flows
COPY sources sources
COPY warehouse warehouse
COPY reports reports
RUN pip install --no-deps . \
    && useradd --uid 10001 --create-home gpucalc \
    && mkdir -p /data && chown gpucalc /data

USER gpucalc
VOLUME ["/data"]
CMD ["gpucalc", "--help"]
