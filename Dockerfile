# The HTTP gateway with the four bundled platform servers, as a non-root user.
#   docker build -t gwanjong .
#   docker run --rm -p 127.0.0.1:8765:8765 -v gwanjong-state:/home/gwanjong/.gwanjong \
#     -v "$PWD/gateway.toml:/home/gwanjong/.config/gwanjong/gateway.toml:ro" \
#     -e DEVTO_API_KEY=... gwanjong
# Listening on 0.0.0.0 needs [auth] in that gateway.toml (the gateway refuses to start
# otherwise): issue tokens with `docker run ... gwanjong token add NAME`, or use
# docker-compose.yml, which does all of this. Publish the port on loopback or behind TLS.

# -- build: resolve from uv.lock, install the gateway and its servers (no dev tools) -----
FROM python:3.11-slim AS build
COPY --from=ghcr.io/astral-sh/uv:0.13.9 /uv /uvx /bin/
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never
# The venv must live at the same path in both stages (its scripts name it absolutely).
WORKDIR /app
COPY pyproject.toml uv.lock LICENSE ./
COPY shared ./shared
COPY gateway ./gateway
COPY sandbox ./sandbox
COPY servers ./servers
RUN uv sync --locked --no-dev --no-editable --package gwanjong --extra postgres

# -- run: only the virtual environment, owned by root, run as an unprivileged user -------
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 gwanjong \
 && install -d -o gwanjong -g gwanjong /home/gwanjong/.gwanjong
COPY --from=build /app/.venv /app/.venv
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    FASTMCP_CHECK_FOR_UPDATES=off
USER gwanjong
WORKDIR /home/gwanjong
VOLUME ["/home/gwanjong/.gwanjong"]
EXPOSE 8765
ENTRYPOINT ["gwanjong"]
CMD ["--transport", "http", "--host", "0.0.0.0", "--port", "8765"]
