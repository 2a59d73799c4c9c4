# syntax=docker/dockerfile:1
# The otelcol-mergelog image: `docker build -t ghcr.io/mergelog/otelcol-mergelog:0.1.0 .`
# The distribution is built exactly as on a developer's machine, by `make otelcol` (the ocb
# builder at the version the Makefile pins, then builder-config.yaml). ocb compiles with
# CGO_ENABLED=0 (the manifest does not set dist.cgo_enabled), so the binary is static and needs
# no libc in the image.
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    make otelcol

# distroless static: CA certificates, tzdata and /etc/passwd, no shell. It runs as the unprivileged
# user 65532 unless the pod says otherwise (the agent DaemonSet runs it as root to read host logs).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/_build/otelcol-mergelog /otelcol-mergelog
EXPOSE 4317 4318 13133
ENTRYPOINT ["/otelcol-mergelog"]
CMD ["--config=/etc/otelcol/config.yaml"]
