# Tensorcamp images, two targets (see docs/self-hosting.md):
#
#   docker build --target web    -t tensorcamp-web .      # the web app: FastAPI, no torch
#   docker build --target worker -t tensorcamp-worker .   # a grader worker: torch, bubblewrap
#
# Build arguments:
#   BASE_IMAGE       a Debian bookworm image with Python 3.11 and python3 -m venv
#                    (default python:3.11-slim-bookworm)
#   TORCH_SPEC       what pip installs as torch in the worker (default torch==2.13.0: PyPI's
#                    build, CUDA-capable). CPU-only: TORCH_SPEC=torch==2.13.0+cpu with
#                    TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu, or a wheel put in
#                    docker/wheels/: TORCH_SPEC=/wheels/torch-2.13.0+cpu-...whl
#   TORCH_INDEX_URL  an extra package index for TORCH_SPEC (default: none)
#
# Stages: base, build (a venv), frontend (node: the browser bundle), web-build, web,
# worker-build, worker. Builds with the classic builder (no BuildKit features).
# docker/ca-certificates/*.crt, if any, are trusted by pip and npm while building only (for
# networks behind a TLS-inspecting proxy); the final images do not contain them.

ARG BASE_IMAGE=python:3.11-slim-bookworm

# --- common to every stage ------------------------------------------------------------------
FROM ${BASE_IMAGE} AS base
# PATH spelled out: an imported base image (docker import) may set none.
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore

# --- build stages: a virtual environment in /opt/venv, copied into the final images ----------
FROM base AS build
COPY docker/ca-certificates/ /usr/local/share/ca-certificates/build-extra/
RUN set -eu; \
    if ls /usr/local/share/ca-certificates/build-extra/*.crt >/dev/null 2>&1; then \
      update-ca-certificates; \
      printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /etc/pip.conf; \
    fi; \
    python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The browser bundle (CodeMirror and frontend/*.js, by esbuild) into app/static/dist/.
FROM build AS frontend
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY frontend/ frontend/
RUN node frontend/build.mjs && test -s app/static/dist/app.js

FROM build AS web-build
COPY pyproject.toml /src/pyproject.toml
# The app's dependencies only (the app itself runs from /app): cached until they change.
RUN python -c "import tomllib; deps = tomllib.load(open('/src/pyproject.toml', 'rb'))['project']['dependencies']; open('/src/requirements.txt', 'w').write(chr(10).join(deps) + chr(10))" \
 && pip install -r /src/requirements.txt
# The grader package without its dependencies: the app only uses its pydantic contract and
# grader.queueing, never torch.
COPY grader/ /src/grader/
RUN pip install --no-deps /src/grader \
 && python -c "import sys; sys.modules['torch'] = None; import grader, grader.queueing"

# --- web: the HTTP app, the results consumer and the reaper (one process) --------------------
FROM base AS web
RUN groupadd --system --gid 10001 tensorcamp \
 && useradd --system --uid 10001 --gid tensorcamp --no-user-group --home-dir /home/tensorcamp \
      --create-home --shell /usr/sbin/nologin tensorcamp \
 && mkdir -p /var/lib/tensorcamp && chown tensorcamp:tensorcamp /var/lib/tensorcamp
COPY --from=web-build /opt/venv /opt/venv
WORKDIR /app
COPY alembic.ini ./
COPY alembic/ alembic/
COPY exercises/ exercises/
COPY app/ app/
COPY --from=frontend /src/app/static/dist/ app/static/dist/
RUN /opt/venv/bin/python -m compileall -q app alembic
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    ENVIRONMENT=production \
    DATA_DIR=/var/lib/tensorcamp \
    CONTENT_DIR=/app/exercises \
    PORT=8000
USER tensorcamp
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=4)"]
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0"]

# --- worker build: torch first (large, rarely changes), then the grader -----------------------
FROM build AS worker-build
ARG TORCH_SPEC=torch==2.13.0
ARG TORCH_INDEX_URL=
COPY docker/wheels/ /wheels/
RUN set -eu; \
    if [ -n "$TORCH_INDEX_URL" ]; then \
      pip install --extra-index-url "$TORCH_INDEX_URL" "$TORCH_SPEC" numpy; \
    else \
      pip install "$TORCH_SPEC" numpy; \
    fi
# The grader's dependencies go into the venv, the grader package itself beside it in
# /opt/grader (on PYTHONPATH): the sandbox exposes the interpreter's whole prefix (/opt/venv)
# read-only, so the package is kept out of it rather than covered inside it.
COPY grader/ /src/grader/
RUN pip install '/src/grader[worker]' \
 && pip uninstall -y tensorcamp-grader \
 && pip install --no-deps --target /opt/grader /src/grader

# --- worker: takes grading jobs from Redis and runs them in bubblewrap sandboxes --------------
FROM base AS worker
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10002 grader \
 && useradd --system --uid 10002 --gid grader --no-user-group --home-dir /home/grader \
      --create-home --shell /usr/sbin/nologin grader
COPY --from=worker-build /opt/venv /opt/venv
COPY --from=worker-build /opt/grader /opt/grader
COPY docker/worker-healthcheck.py /usr/local/lib/tensorcamp/worker-healthcheck.py
# GPUs come from the container runtime (compose's device reservation, docker run --gpus);
# the driver's compute libraries are what torch needs from it.
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONPATH=/opt/grader \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
# The working directory and home are hidden from the sandbox; keep them empty.
USER grader
WORKDIR /home/grader
HEALTHCHECK --interval=15s --timeout=10s --start-period=180s --retries=3 \
  CMD ["python", "/usr/local/lib/tensorcamp/worker-healthcheck.py"]
CMD ["python", "-m", "grader.worker"]
