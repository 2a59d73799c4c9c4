# otelcol-mergelog: `make run` builds the collector and runs its main job on bundled samples;
# `make test` runs every test. Everything the targets need comes from the Go module proxy.
GO        ?= go
BUILD     := _build
COLLECTOR := $(BUILD)/otelcol-mergelog
OCB_VER   := v0.165.0
OCB       := $(BUILD)/bin/builder
# Inputs of the distribution: our Go sources (not tests, not the nested modules) and the manifest.
SOURCES   := $(shell find . \( -path ./_build -o -path ./bench -o -path ./deploy -o -path ./e2e \) -prune \
	-o -name '*.go' ! -name '*_test.go' -print) go.mod go.sum builder-config.yaml

.PHONY: run otelcol test unit e2e validate k8s bench bench-mergelog lint fuzz fuzz-ci clean

run: $(COLLECTOR)
	./scripts/run-sample.sh $(COLLECTOR) configs/run.yaml

otelcol: $(COLLECTOR)

$(OCB):
	GOBIN=$(abspath $(BUILD)/bin) $(GO) install go.opentelemetry.io/collector/cmd/builder@$(OCB_VER)

$(COLLECTOR): $(OCB) $(SOURCES)
	$(OCB) --config builder-config.yaml
	@test -x $(COLLECTOR)

test: lint unit fuzz-ci validate e2e k8s

unit:
	$(GO) test -race -count=1 ./...
	cd bench && $(GO) test -race -count=1 ./...

# Tests that run the built collector as a process (they skip under plain `go test`). The fault
# tests' figures go to a file, printed here, pass or fail: go test shows nothing of a test that
# passes.
e2e: $(COLLECTOR)
	@rm -f $(BUILD)/faults-report.txt
	OTELCOL_BIN=$(abspath $(COLLECTOR)) FAULTS_REPORT=$(abspath $(BUILD))/faults-report.txt \
		$(GO) test -count=1 ./e2e/; status=$$?; cat $(BUILD)/faults-report.txt 2>/dev/null; exit $$status

# Every example config (and the `make run` config) must pass the built collector's validation.
validate: $(COLLECTOR)
	@for c in configs/*.yaml examples/*.yaml; do \
		echo "validate $$c"; \
		$(COLLECTOR) validate --config "$$c" || exit 1; \
	done

# The Kubernetes manifests (deploy/kubernetes): strict decoding, cross-checks, and `validate` on
# every collector config they carry. A module of its own, so k8s.io stays out of go.mod.
k8s: $(COLLECTOR)
	cd deploy/kubernetes/validate && OTELCOL_BIN=$(abspath $(COLLECTOR)) $(GO) test -count=1 ./...

bench:
	./scripts/bench.sh

# Our mergelog against Debian's mergelog/zmergelog on 7 x 150 MB of CLF (installs them with apt).
bench-mergelog:
	./scripts/bench-mergelog.sh

# Every fuzz target for FUZZTIME (default 30s) each; the seed corpora also run in `make test`.
fuzz:
	./scripts/fuzz.sh

# Every fuzz target for 10 000 inputs, in `make test`. A count, not a duration: with a duration, Go
# 1.26's fuzz coordinator can fail a target with "context deadline exceeded" when the deadline
# falls while a worker is busy, on a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
fuzz-ci:
	FUZZTIME=10000x ./scripts/fuzz.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd deploy/kubernetes/validate && $(GO) vet ./...

clean:
	rm -rf $(BUILD)
