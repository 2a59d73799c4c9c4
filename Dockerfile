# syntax=docker/dockerfile:1
# Two images from one Dockerfile:
#   docker build -t ghcr.io/mergelog/otelcol-mergelog:0.1.0 .                          (the full distribution)
#   docker build --target agent -t ghcr.io/mergelog/otelcol-mergelog-agent:0.1.0 .     (the node agent)
# Each is built exactly as on a developer's machine, by `make otelcol` or `make agent` (the ocb
# builder at the version the Makefile pins, then builder-config.yaml or builder-config-agent.yaml).
# ocb compiles with CGO_ENABLED=0 (the manifests do not set dist.cgo_enabled), so the binaries are
# static and need no libc in the image.
# The base images are named by tag, which moves; for builds you can repeat, pin each by digest
# (FROM <image>:<tag>@sha256:<digest>): deploy/kubernetes/README.md's Hardening says how.
FROM golang:1.26 AS build-agent
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    make agent

FROM golang:1.26 AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    make otelcol

# distroless static: CA certificates, tzdata and /etc/passwd, no shell. It runs as the unprivileged
# user 65532 unless the pod says otherwise (the agent DaemonSet runs it as root to read host logs).
FROM gcr.io/distroless/static-debian12:nonroot AS agent
COPY --from=build-agent /src/_build/agent/otelcol-mergelog-agent /otelcol-mergelog-agent
EXPOSE 13133
ENTRYPOINT ["/otelcol-mergelog-agent"]
CMD ["--config=/etc/otelcol/config.yaml"]

# The last stage is the default target: the full distribution.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/_build/otelcol-mergelog /otelcol-mergelog
EXPOSE 4317 4318 13133
ENTRYPOINT ["/otelcol-mergelog"]
CMD ["--config=/etc/otelcol/config.yaml"]
