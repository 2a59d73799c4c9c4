# otelcol-mergelog: `make run` builds the collector and runs its main job on bundled samples;
# `make test` runs every test. Everything the targets need comes from the Go module proxy.
GO        ?= go
BUILD     := _build
COLLECTOR := $(BUILD)/otelcol-mergelog
# The node agent's build (builder-config-agent.yaml): the components the agent DaemonSet uses.
AGENT     := $(BUILD)/agent/otelcol-mergelog-agent
# The smallest ocb build that runs a pipeline: the floor the agent's idle memory is measured against.
FLOOR     := $(BUILD)/floor/otelcol-floor
OCB_VER   := v0.165.0
OCB       := $(BUILD)/bin/builder
# golangci-lint, pinned and built once into _build/bin (v2.15.0 is built with and supports Go 1.26).
GOLANGCI_LINT_VER := v2.15.0
GOLANGCI_LINT     := $(BUILD)/bin/golangci-lint-$(GOLANGCI_LINT_VER)
GOVULNCHECK_VER   := v1.9.0
# helm, pinned and built once into _build/tools (`make k8s` renders and lints the charts with it).
HELM_VER := v3.22.0
HELM     := $(BUILD)/tools/helm-$(HELM_VER)
# The modules: the distribution's, the benchmarks', the Kubernetes manifests' checker, the
# real-node test's (k8s.io/kubernetes and containerd), the pod-metadata test's (a fake API server).
MODULES   := . bench deploy/kubernetes/validate e2e/node e2e/k8smeta
# Inputs of the distribution: our Go sources (not tests, not the nested modules) and the manifest.
SOURCES   := $(shell find . \( -path ./_build -o -path ./bench -o -path ./deploy -o -path ./e2e \) -prune \
	-o -name '*.go' ! -name '*_test.go' -print) go.mod go.sum

.PHONY: run otelcol agent test test-loaded unit e2e validate k8s node soak bench bench-agent bench-steady bench-idle bench-idle-rss bench-mergelog bench-testbed pgo-profile lint vuln fuzz fuzz-ci clean

run: $(COLLECTOR)
	./scripts/run-sample.sh $(COLLECTOR) configs/run.yaml

otelcol: $(COLLECTOR)

$(OCB):
	GOBIN=$(abspath $(BUILD)/bin) $(GO) install go.opentelemetry.io/collector/cmd/builder@$(OCB_VER)

# Installed under a versioned name, so that changing GOLANGCI_LINT_VER builds the new one.
$(GOLANGCI_LINT):
	@mkdir -p $(BUILD)/tmp-golangci-lint $(dir $@)
	GOBIN=$(abspath $(BUILD)/tmp-golangci-lint) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VER)
	mv $(BUILD)/tmp-golangci-lint/golangci-lint $@
	@rmdir $(BUILD)/tmp-golangci-lint

# Installed under a versioned name, so that changing HELM_VER builds the new one.
$(HELM):
	@mkdir -p $(BUILD)/tmp-helm $(dir $@)
	GOBIN=$(abspath $(BUILD)/tmp-helm) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VER)
	mv $(BUILD)/tmp-helm/helm $@
	@rmdir $(BUILD)/tmp-helm

$(COLLECTOR): $(OCB) $(SOURCES) builder-config.yaml
	$(OCB) --config builder-config.yaml
	@test -x $(COLLECTOR)

agent: $(AGENT)

# Compiled with profile-guided optimisation: agent.pgo is a CPU profile of the agent's config on
# its benchmarks' workloads (scripts/pgo-profile.sh, `make pgo-profile` writes it again).
$(AGENT): $(OCB) $(SOURCES) builder-config-agent.yaml agent.pgo
	GOFLAGS="$$($(GO) env GOFLAGS) -pgo=$(abspath agent.pgo)" $(OCB) --config builder-config-agent.yaml
	@test -x $(AGENT)

test: lint unit fuzz-ci validate e2e k8s node

# The unit and e2e suites with two CPU-burning processes alongside (scripts/with-load.sh starts
# them and stops them however the run ends): no test may depend on the machine's speed.
test-loaded: $(COLLECTOR)
	LOAD_PROCS=2 ./scripts/with-load.sh $(MAKE) unit e2e

unit:
	$(GO) test -race -count=1 ./...
	FILETRACK_TEST_WATCH=oracle $(GO) test -race -count=1 ./internal/filetrack/
	cd bench && $(GO) test -race -count=1 ./...

# Tests that run the built collector as a process (they skip under plain `go test`). The fault
# tests' figures go to a file, printed here, pass or fail: go test shows nothing of a test that
# passes. e2e/k8smeta (a module of its own): the pod-metadata component's config against a fake
# Kubernetes API server on loopback.
e2e: $(COLLECTOR)
	@rm -f $(BUILD)/faults-report.txt
	OTELCOL_BIN=$(abspath $(COLLECTOR)) FAULTS_REPORT=$(abspath $(BUILD))/faults-report.txt \
		$(GO) test -count=1 ./e2e/; status=$$?; cat $(BUILD)/faults-report.txt 2>/dev/null; exit $$status
	cd e2e/k8smeta && OTELCOL_BIN=$(abspath $(COLLECTOR)) $(GO) test -count=1 ./...

# Every example config (and the `make run` config) must pass the built collector's validation.
validate: $(COLLECTOR)
	@for c in configs/*.yaml examples/*.yaml; do \
		echo "validate $$c"; \
		$(COLLECTOR) validate --config "$$c" || exit 1; \
	done

# The Kubernetes manifests (deploy/kubernetes): strict decoding, cross-checks, and `validate` on
# every collector config they carry, by the build its image holds; our chart (deploy/helm)
# linted and rendered by helm, and compared with the kustomize build; the official chart's values
# and the Operator resource against the chart and CRD in ../shared/third_party (skipped where
# absent). A module of its own, so k8s.io stays out of go.mod.
k8s: $(COLLECTOR) $(AGENT) $(HELM)
	cd deploy/kubernetes/validate && OTELCOL_BIN=$(abspath $(COLLECTOR)) OTELCOL_AGENT_BIN=$(abspath $(AGENT)) \
		HELM_BIN=$(abspath $(HELM)) \
		$(GO) test -count=1 ./...

# The node agent on a node's own code (e2e/node, a module of its own): containerd v1.7's CRI
# loggers write the pods' logs, kubelet v1.37's log manager rotates them, the agent's build reads
# them with the shipped agent config beside the helm chart's file_log preset (on the full build), and gateways check
# every line arrives once and whole. `node` is the short run (fast rotation, one SIGKILL); `soak`
# runs both rotation settings with and without SIGKILLs, and kubelet's defaults at 10 000 lines/s with
# SIGKILLs, three times each (about 30 min). The
# table of runs is printed, pass or fail.
node: $(COLLECTOR) $(AGENT)
	@rm -f $(BUILD)/node-report.md
	cd e2e/node && OTELCOL_BIN=$(abspath $(COLLECTOR)) OTELCOL_AGENT_BIN=$(abspath $(AGENT)) NODE_REPORT=$(abspath $(BUILD))/node-report.md \
		$(GO) test -count=1 ./...; status=$$?; cat $(abspath $(BUILD))/node-report.md 2>/dev/null; exit $$status

soak: $(COLLECTOR) $(AGENT)
	@rm -f $(BUILD)/soak-report.md
	cd e2e/node && OTELCOL_BIN=$(abspath $(COLLECTOR)) OTELCOL_AGENT_BIN=$(abspath $(AGENT)) NODE_REPORT=$(abspath $(BUILD))/soak-report.md NODE_SOAK=1 \
		$(GO) test -count=1 -timeout 3h -run TestNodeSoak ./...; status=$$?; cat $(abspath $(BUILD))/soak-report.md 2>/dev/null; exit $$status

# The node agent end to end: the agent's build with the pod's limits on 300 MB of pod logs (and
# plain and multiline files), beside the helm chart's file_log preset (the full build) and Fluent
# Bit (FLUENT_BIT, on the pod logs; skipped where absent), interleaved, medians of 3 runs; the
# table is also written to $(BUILD)/agent-report.md. AGENTBENCH_FLAGS passes more (e.g. -size 100
# -runs 5 -extra name=variant.yaml).
bench-agent: $(COLLECTOR) $(AGENT)
	cd bench && $(GO) build -o $(abspath $(BUILD))/agentbench ./cmd/agentbench
	@rm -f $(BUILD)/agent-report.md
	{ $(BUILD)/agentbench -otelcol $(COLLECTOR) -otelcol-agent $(AGENT) -fluent-bit $(FLUENT_BIT) \
		-config deploy/kubernetes/agent-config.yaml $(AGENTBENCH_FLAGS); echo $$? > $(BUILD)/agent-report.status; } \
		| tee $(BUILD)/agent-report.md; status=$$(cat $(BUILD)/agent-report.status); rm -f $(BUILD)/agent-report.status; exit $$status

bench:
	./scripts/bench.sh

# Writes agent.pgo again (see $(AGENT)): two benchmark runs of the full build with pprof, ~3 min.
pgo-profile:
	./scripts/pgo-profile.sh

# contrib's load test on the full build: the file cases of its testbed's TestLog10kDPS (v0.148.0,
# 10 000 logs/s, the collector a child process at GOMAXPROCS=2), each under file_log and under
# mergelog with the same config, TESTBED_RUNS times alternating (medians); the testbed's CPU and
# RSS of the two side by side in $(BUILD)/testbed-report.md, its own results and each run's CPU
# profile (cpu.prof) in $(BUILD)/testbed/results. bench/testbed is a module of its own (see its
# doc.go); TESTCASE_DURATION (the testbed's, default 15s) sets how long the load runs.
TESTBED_RUNS ?= 1
bench-testbed: $(COLLECTOR)
	@rm -rf $(BUILD)/testbed $(BUILD)/testbed-report.md
	cd bench/testbed && TESTBED_OTELCOL=$(abspath $(COLLECTOR)) TESTBED_RESULTS=$(abspath $(BUILD))/testbed \
		TESTBED_REPORT=$(abspath $(BUILD))/testbed-report.md TESTBED_RUNS=$(TESTBED_RUNS) \
		$(GO) test -count=1 -timeout 3h -run 'TestLog10kDPSFiles$$' .; status=$$?; \
		cat $(abspath $(BUILD))/testbed-report.md 2>/dev/null; exit $$status

# The node agents at a steady rate (e2e/node TestSteady): VictoriaMetrics' log-collectors-benchmark
# workload (10 pods writing its generator's JSON lines, 10 000 lines/s in all, through containerd's
# CRI loggers, kubelet rotating at 10Mi) read for 60 s by ours (the agent's build, shipped config +
# json_parser), the helm preset + json_parser (the full build) and Fluent Bit (FLUENT_BIT, skipped
# where absent), one after the other; the table is printed. NODE_STEADY_RATE, NODE_STEADY_DURATION
# change the load; NODE_STEADY_RAMP=1 doubles the rate until each agent loses or falls behind.
FLUENT_BIT ?= ../shared/third_party/fluent-bit/fluent-bit
bench-steady: $(COLLECTOR) $(AGENT)
	@rm -f $(BUILD)/steady-report.md
	cd e2e/node && OTELCOL_BIN=$(abspath $(COLLECTOR)) OTELCOL_AGENT_BIN=$(abspath $(AGENT)) \
		FLUENT_BIT_BIN=$(if $(wildcard $(FLUENT_BIT)),$(abspath $(FLUENT_BIT))) NODE_STEADY=1 \
		NODE_REPORT=$(abspath $(BUILD))/steady-report.md \
		$(GO) test -count=1 -timeout 2h -run 'TestSteady$$' .; status=$$?; cat $(abspath $(BUILD))/steady-report.md 2>/dev/null; exit $$status

# CPU while following 1 000 and 10 000 files, idle and with a trickle into every tenth file: contrib's
# file_log, then ours with directory watches, then ours without, in-process, medians of 3 runs.
# IDLEBENCH_FLAGS passes more (e.g. -files 10000 -runs 5 -measure 10s).
bench-idle:
	cd bench && $(GO) run ./cmd/idlebench $(IDLEBENCH_FLAGS)

# Idle memory (VmRSS, RssAnon, RssFile) of the agent's build and the full distribution with the
# agent's config over an empty tree, and of the floor build (otlp → debug), interleaved, medians.
bench-idle-rss: $(AGENT) $(COLLECTOR) $(FLOOR)
	./scripts/idle-rss.sh $(AGENT) $(COLLECTOR) $(FLOOR)

$(FLOOR): $(OCB) bench/idlerss/floor-builder.yaml
	$(OCB) --config bench/idlerss/floor-builder.yaml
	@test -x $(FLOOR)

# Our mergelog against Debian's mergelog/zmergelog on 7 x 150 MB of CLF (installs them with apt).
bench-mergelog:
	./scripts/bench-mergelog.sh

# The README's figures (docs/figures/*.svg: CPU per GB and peak RSS at a steady rate and catching
# up, ours against the helm preset and Fluent Bit) redrawn from the reports of bench-steady and
# bench-agent; STEADY_REPORT, AGENT_REPORT name others (empty: none).
STEADY_REPORT ?= $(BUILD)/steady-report.md
AGENT_REPORT  ?= $(BUILD)/agent-report.md
.PHONY: plots
plots:
	cd bench && $(GO) build -o $(abspath $(BUILD))/plots ./cmd/plots
	$(BUILD)/plots -steady '$(STEADY_REPORT)' -agent '$(AGENT_REPORT)' -out docs/figures

# Every fuzz target for FUZZTIME (default 30s) each; the seed corpora also run in `make test`.
fuzz:
	./scripts/fuzz.sh

# Every fuzz target for 10 000 inputs, in `make test`. A count, not a duration: with a duration, Go
# 1.26's fuzz coordinator can fail a target with "context deadline exceeded" when the deadline
# falls while a worker is busy, on a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
fuzz-ci:
	FUZZTIME=10000x ./scripts/fuzz.sh

# gofmt; go vet and golangci-lint (.golangci.yml) on every module; go.mod/go.sum tidy in every
# module; the main module's non-test code builds and vets for Windows and macOS too (tests may be
# Linux-only; `go vet` always takes the test files, so the vet there is golangci-lint's govet with
# --tests=false).
lint: $(GOLANGCI_LINT)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@set -e; for m in $(MODULES); do \
		echo "== $$m: go vet, go mod tidy -diff, golangci-lint"; \
		(cd $$m && $(GO) vet ./... && $(GO) mod tidy -diff && \
			$(abspath $(GOLANGCI_LINT)) run --config $(abspath .golangci.yml) ./...); \
	done
	@set -e; for os in windows darwin; do \
		echo "== GOOS=$$os: go build, vet (non-test code)"; \
		GOOS=$$os $(GO) build ./... && \
			GOOS=$$os $(abspath $(GOLANGCI_LINT)) run --config $(abspath .golangci.yml) \
				--tests=false --enable-only govet ./...; \
	done

# Known vulnerabilities in the modules' dependencies and the code that reaches them. Needs the
# vulnerability database (vuln.go.dev), so it is not part of `make lint`.
vuln:
	@set -e; for m in $(MODULES); do \
		echo "== $$m: govulncheck"; \
		(cd $$m && $(GO) run golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VER) ./...); \
	done

clean:
	rm -rf $(BUILD)
