# Two stages: build a virtualenv with the service, then copy it into a slim runtime image.
ARG PYTHON_VERSION=3.11

FROM python:${PYTHON_VERSION}-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
# The venv gets no pip or setuptools of its own (nothing installs at run time, and scanners flag
# old copies): the build image's pip installs into it.
RUN python -m venv --without-pip /opt/venv
WORKDIR /src
# Dependencies first, at their pinned versions (their own layer, rebuilt only when the lock changes),
# then the source.
COPY service/deploy/requirements.lock ./
RUN pip --python /opt/venv/bin/python install --no-cache-dir --no-deps -r requirements.lock
COPY pyproject.toml README.md ./
COPY service ./service
RUN pip --python /opt/venv/bin/python install --no-cache-dir --no-deps . \
    && pip --python /opt/venv/bin/python check \
    && /opt/venv/bin/python -m compileall -q /opt/venv

FROM python:${PYTHON_VERSION}-slim AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PORT=8000
RUN groupadd --system --gid 10001 gin \
    && useradd --system --no-log-init --uid 10001 --gid gin --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin gin
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
# Not /tmp: gunicorn puts its working directory first on the import path.
WORKDIR /
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"]
CMD ["gunicorn", "--config", "python:service.gunicorn_conf"]
