# The routing operator's build. Every tool it needs is built from a pinned Go module into
# bin/, because prebuilt binaries cannot be downloaded on the machines this project runs on.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

BIN := $(CURDIR)/bin
GO ?= go

# Versions come from the pinning modules, so a bump there is the only edit needed.
modversion = $(shell awk '($$1 == "$(2)") { print $$2; exit } ($$1 == "require" && $$2 == "$(2)") { print $$3; exit }' $(1))
KUBE_VERSION := $(call modversion,hack/envtest/go.mod,k8s.io/kubernetes)
ETCD_VERSION := $(call modversion,hack/envtest/etcd/go.mod,go.etcd.io/etcd/server/v3)
CONTROLLER_TOOLS_VERSION := $(call modversion,hack/tools/go.mod,sigs.k8s.io/controller-tools)
HELM_VERSION := $(call modversion,hack/tools/go.mod,helm.sh/helm/v3)
GOLANGCI_LINT_VERSION := $(call modversion,hack/lint/go.mod,github.com/golangci/golangci-lint/v2)
KAL_VERSION := $(call modversion,hack/lint/go.mod,sigs.k8s.io/kube-api-linter)
PROMETHEUS_VERSION := $(call modversion,hack/promql/go.mod,github.com/prometheus/prometheus)
PROMETHEUS_OPERATOR_VERSION := $(call modversion,hack/prometheus-operator/go.mod,github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring)
GGCR_VERSION := $(call modversion,hack/image/go.mod,github.com/google/go-containerregistry)
EGCTL_VERSION := $(call modversion,hack/egctl/go.mod,github.com/envoyproxy/gateway)
HAPROXY_INGRESS_VERSION := $(call modversion,hack/haproxy-ingress/go.mod,github.com/jcmoraisjr/haproxy-ingress)

KUBE_APISERVER := $(BIN)/kube-apiserver-$(KUBE_VERSION)
KUBECTL := $(BIN)/kubectl-$(KUBE_VERSION)
ETCD := $(BIN)/etcd-$(ETCD_VERSION)
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
HELM := $(BIN)/helm-$(HELM_VERSION)
# golangci-lint with kube-api-linter compiled in (hack/lint/main.go). KAL has no releases,
# so the name carries the commit of its pseudo-version: a bump of either module builds a
# new binary, and a stock golangci-lint-vX.Y.Z left in bin/ is never taken for it.
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)-kal-$(lastword $(subst -, ,$(KAL_VERSION)))
PROMQL := $(BIN)/promql-metrics-$(PROMETHEUS_VERSION)
PROMETHEUS_OPERATOR_CRDS := $(BIN)/prometheus-operator-crds-$(PROMETHEUS_OPERATOR_VERSION)
IMAGE_BUILDER := $(BIN)/image-builder-$(GGCR_VERSION)
EGCTL := $(BIN)/egctl-$(EGCTL_VERSION)
HAPROXY_INGRESS := $(BIN)/haproxy-ingress-$(HAPROXY_INGRESS_VERSION)
# envtest looks for binaries named kube-apiserver, etcd and kubectl in KUBEBUILDER_ASSETS.
ENVTEST_ASSETS := $(BIN)/envtest-$(KUBE_VERSION)

TEST_TIMEOUT ?= 45m
TEST_FLAGS ?=

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

CHART_DIR := charts/ome-resources

# A chart cannot read files outside its own folder, so it ships copies of the generated CRDs
# (crds/) and of the manager's ClusterRole (rbac/role.yaml, whose rules a template includes).
# They are copied right after controller-gen writes them, never edited by hand; verify fails
# when a copy drifts.
.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRDs and RBAC from the API types and markers, and copy them into the chart.
	$(CONTROLLER_GEN) crd rbac:roleName=manager-role paths="./..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	mkdir -p $(CHART_DIR)/crds $(CHART_DIR)/rbac
	rm -f $(CHART_DIR)/crds/*.yaml
	cp config/crd/bases/*.yaml $(CHART_DIR)/crds/
	cp config/rbac/role.yaml $(CHART_DIR)/rbac/role.yaml

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code for the API types.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths="./api/..."

.PHONY: fmt
fmt: ## Run gofmt on the code.
	$(GO) fmt ./...

.PHONY: vet
vet: ## Run go vet on the code.
	$(GO) vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint with .golangci.yml, kube-api-linter on api/ included.
	$(GOLANGCI_LINT) run ./...

# The unit packages (no API server) run with the race detector; the envtest suites, which
# would take several times longer under it, run without. -count=1 everywhere: a cached pass
# must never stand in for a suite that was not run.
UNIT_PKGS := ./pkg/... ./controllers/...

# The manager and the plugin, built once for every suite and test that runs them as child
# processes (test/framework's ManagerBinary and PluginBinary read OME_MANAGER_BIN and
# OME_PLUGIN_BIN), into _out/test/ so that a test run never replaces bin/'s. They are
# stamped with the build test/framework's TestVersion and TestRevision name.
TEST_BIN := $(CURDIR)/_out/test
TEST_LDFLAGS = -X $(VERSION_PKG).version=v9.9.9-test -X $(VERSION_PKG).revision=0123456789abcdef

# make test runs everything, as kueue splits it: test-unit needs only Go (a change to a
# pkg/ package is checked without building a tool), test-integration builds the toolchain on
# its first run and runs every other package against the real parts.
.PHONY: test test-unit test-integration
test: test-unit test-integration ## Run go vet, the unit tests (with -race) and every other package: the envtest suites, the chart, the binaries, the docs (builds the toolchain on first run).

test-unit: vet ## Run go vet and the unit packages (pkg/, controllers/) with -race; builds no tool.
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(TEST_FLAGS) $(UNIT_PKGS)

test-integration: envtest helm image egctl haproxy-ingress haproxy prometheus $(PROMQL) $(PROMETHEUS_OPERATOR_CRDS) ## Build the toolchain when missing, the manager and the plugin, and run every package but the unit ones.
	$(GO) build -ldflags="$(TEST_LDFLAGS)" -o $(TEST_BIN)/manager ./cmd/manager
	$(GO) build -ldflags="$(TEST_LDFLAGS)" -o $(TEST_BIN)/kubectl-ome ./cmd/kubectl-ome
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" HELM="$(HELM)" KUBECTL="$(ENVTEST_ASSETS)/kubectl" OME_IMAGE_LAYOUT="$(IMAGE_OUT)/oci" EGCTL="$(EGCTL)" PROMQL="$(PROMQL)" \
		PROMETHEUS_OPERATOR_CRDS="$(PROMETHEUS_OPERATOR_CRDS)" HAPROXY_INGRESS="$(HAPROXY_INGRESS)" \
		OME_MANAGER_BIN="$(TEST_BIN)/manager" OME_PLUGIN_BIN="$(TEST_BIN)/kubectl-ome" \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(TEST_FLAGS) $$($(GO) list ./... | grep -v -e '/pkg/' -e '/controllers$$' -e '/controllers/')

.PHONY: verify
verify: manifests generate shellcheck ## Regenerate everything and fail if the tree changed (untracked files too), a tracked file is over 1 MiB, a Go module is not tidy, a Go file not gofmt'ed or shellcheck finds a fault in a shell script.
	@if [ -n "$$(git status --porcelain --untracked-files=all -- api config charts)" ]; then \
		echo "Generated files are out of date; run 'make manifests generate' and commit:"; \
		git status --porcelain --untracked-files=all -- api config charts; git diff -- api config charts | head -50; exit 1; \
	fi
	@hack/verify-tree.sh
	@hack/shellcheck.sh

##@ Build

# What the binaries report as their build (--version, the manager's startup log and its
# ome_build_info metric): the chart's appVersion and the commit, with -dirty when tracked
# files have uncommitted changes. A plain go build falls back to Go's build information.
VERSION ?= $(shell awk '$$1 == "appVersion:" { gsub(/"/, "", $$2); print $$2; exit }' $(CHART_DIR)/Chart.yaml)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && echo -dirty)
VERSION_PKG := github.com/ome-routing/operator/pkg/version
VERSION_LDFLAGS := -X $(VERSION_PKG).version=$(VERSION) -X $(VERSION_PKG).revision=$(REVISION)

.PHONY: build
build: ## Build the manager into bin/manager, and the kubectl plugin into bin/kubectl-ome with its completion helper bin/kubectl_complete-ome.
	$(GO) build -ldflags="$(VERSION_LDFLAGS)" -o $(BIN)/manager ./cmd/manager
	$(GO) build -ldflags="$(VERSION_LDFLAGS)" -o $(BIN)/kubectl-ome ./cmd/kubectl-ome
	install -m 0755 cmd/kubectl-ome/kubectl_complete-ome $(BIN)/kubectl_complete-ome

# The image's name is the chart's default: repository from values.yaml, tag from Chart.yaml's
# appVersion, so that `helm install` with no image values runs the image built here.
IMAGE_REPOSITORY ?= $(shell awk '/^image:/ { f = 1 } f && $$1 == "repository:" { print $$2; exit }' $(CHART_DIR)/values.yaml)
IMAGE_TAG ?= $(VERSION)
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
IMAGE_OUT := $(CURDIR)/_out/image
# The labels match the Dockerfile's (test/image compares them).
IMAGE_LABELS := --label org.opencontainers.image.title=ome-manager \
	--label "org.opencontainers.image.description=OME routing operator: weighted traffic maps across workload clusters, with health probes" \
	--label org.opencontainers.image.source=https://github.com/ome-routing/operator \
	--label org.opencontainers.image.version=$(IMAGE_TAG)

.PHONY: image
image: $(IMAGE_BUILDER) ## Build the manager's image without a container engine: _out/image/oci (OCI layout) and _out/image/ome-manager.tar.
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -ldflags="-s -w $(VERSION_LDFLAGS)" -o $(IMAGE_OUT)/manager ./cmd/manager
	$(IMAGE_BUILDER) --binary $(IMAGE_OUT)/manager --arch $(IMAGE_ARCH) --ref $(IMAGE_REPOSITORY):$(IMAGE_TAG) \
		--oci-layout $(IMAGE_OUT)/oci --tarball $(IMAGE_OUT)/ome-manager.tar $(IMAGE_LABELS)

.PHONY: run
run: ## Run the manager against the cluster in the current kubeconfig.
	$(GO) run ./cmd/manager $(ARGS)

##@ Tools (built from Go modules into bin/, only when missing)

.PHONY: envtest
envtest: $(ENVTEST_ASSETS)/kube-apiserver $(ENVTEST_ASSETS)/etcd $(ENVTEST_ASSETS)/kubectl ## Build kube-apiserver, etcd and kubectl for envtest.

.PHONY: helm
helm: $(HELM) ## Build the helm binary.

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint with kube-api-linter compiled in.

.PHONY: image-builder
image-builder: $(IMAGE_BUILDER) ## Build the image builder (hack/image, go-containerregistry).

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build the controller-gen binary.

.PHONY: egctl
egctl: $(EGCTL) ## Build Envoy Gateway's egctl, whose offline translator the publisher's tests check routes with.

.PHONY: haproxy-ingress
haproxy-ingress: $(HAPROXY_INGRESS) ## Build HAProxy Ingress, the Gateway API controller that drives haproxy in the data-plane suite, the demo and the failover bench.

# The data plane's haproxy comes from Debian, not from a Go module. As root with apt-get
# (CI, this project's machines) it is installed when missing; elsewhere this only says what
# is missing, and the data-plane suite skips (it fails under .ci/run).
.PHONY: haproxy
haproxy: ## Install Debian's haproxy and lua-json with apt-get when missing (needs root).
	@hack/haproxy-ingress/install-haproxy.sh

# Prometheus scrapes haproxy's own exporter in the data-plane suite (the traffic signal's
# queries run against it). Like haproxy it comes from Debian: installed with apt-get when
# missing as root; elsewhere this says what is missing and those specs skip (they fail under
# .ci/run).
.PHONY: prometheus
prometheus: ## Install Debian's prometheus with apt-get when missing (needs root).
	@hack/install-prometheus.sh

# shellcheck is a Haskell program, which no Go module builds: like haproxy it comes from
# Debian, installed with apt-get when missing as root; elsewhere this says what to install,
# and `make verify` fails until it is there.
.PHONY: shellcheck
shellcheck: ## Install Debian's shellcheck with apt-get when missing (needs root); make verify runs it over the shell scripts.
	@hack/install-shellcheck.sh

$(ENVTEST_ASSETS)/%: $(BIN)/%-$(KUBE_VERSION)
	@mkdir -p $(ENVTEST_ASSETS)
	ln -sf $< $@

$(ENVTEST_ASSETS)/etcd: $(ETCD)
	@mkdir -p $(ENVTEST_ASSETS)
	ln -sf $< $@

$(KUBE_APISERVER):
	@echo ">> Building kube-apiserver $(KUBE_VERSION) from k8s.io/kubernetes: no prebuilt envtest"
	@echo ">> binaries can be downloaded here. The first build takes about ten minutes on two"
	@echo ">> cores; the binary is kept in bin/ and reused."
	cd hack/envtest && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(KUBECTL): $(KUBE_APISERVER)
	@echo ">> Building kubectl $(KUBE_VERSION) (about a minute after kube-apiserver)"
	cd hack/envtest && $(GO) build -o $@ k8s.io/kubernetes/cmd/kubectl

$(ETCD):
	@echo ">> Building etcd $(ETCD_VERSION) from go.etcd.io/etcd/server/v3 (about two minutes)"
	cd hack/envtest/etcd && $(GO) build -o $@ .

$(CONTROLLER_GEN):
	@echo ">> Building controller-gen $(CONTROLLER_TOOLS_VERSION)"
	cd hack/tools && $(GO) build -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

$(GOLANGCI_LINT):
	@echo ">> Building golangci-lint $(GOLANGCI_LINT_VERSION) with kube-api-linter $(KAL_VERSION) (a few minutes the first time)"
	cd hack/lint && $(GO) build -o $@ .

# The chart's monitoring test parses PromQL with Prometheus's own parser, through this.
$(PROMQL):
	@echo ">> Building promql-metrics with the PromQL parser of Prometheus $(PROMETHEUS_VERSION)"
	cd hack/promql && $(GO) build -o $@ .

# The chart install test installs these CRDs so that the API server checks the chart's
# ServiceMonitor and PrometheusRule; they are generated from the Prometheus Operator's types.
$(PROMETHEUS_OPERATOR_CRDS): $(CONTROLLER_GEN)
	rm -rf $@.tmp
	cd hack/prometheus-operator && $(CONTROLLER_GEN) crd:allowDangerousTypes=true,maxDescLen=0 \
		paths=github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1 output:crd:dir=$@.tmp
	mv $@.tmp $@

$(IMAGE_BUILDER):
	@echo ">> Building the image builder with go-containerregistry $(GGCR_VERSION)"
	cd hack/image && $(GO) build -o $@ .

$(HELM):
	@echo ">> Building helm $(HELM_VERSION) (about three minutes the first time)"
	cd hack/tools && $(GO) build -o $@ helm.sh/helm/v3/cmd/helm

$(EGCTL):
	@echo ">> Building egctl $(EGCTL_VERSION) from github.com/envoyproxy/gateway (about eight minutes"
	@echo ">> the first time, a 333 MB binary); it is kept in bin/ and reused."
	cd hack/egctl && $(GO) build -o $@ github.com/envoyproxy/gateway/cmd/egctl

$(HAPROXY_INGRESS):
	@echo ">> Building HAProxy Ingress $(HAPROXY_INGRESS_VERSION) from github.com/jcmoraisjr/haproxy-ingress"
	@echo ">> (about three minutes the first time, a 61 MB binary); it is kept in bin/ and reused."
	hack/haproxy-ingress/build.sh $@

##@ Demo (cmd/demo: the operator at work on this machine, with no cluster)

DEMO_ARGS ?=

# The demo runs as a built binary rather than with `go run`: go run dies on a SIGTERM
# without passing it on, which would leave the demo and its API servers running.
# DEMO_KEEP=1 (`make demo DEMO_KEEP=1`) keeps everything running at the end until Ctrl-C.
.PHONY: demo
demo: envtest build egctl haproxy-ingress haproxy prometheus ## Watch the operator gate and restore a cluster on local API servers, with real requests through haproxy and the translator's view (about a minute).
	$(GO) build -o $(BIN)/demo ./cmd/demo
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" KUBECTL="$(ENVTEST_ASSETS)/kubectl" \
		$(BIN)/demo --manager $(BIN)/manager --plugin $(BIN)/kubectl-ome --egctl $(EGCTL) --haproxy-ingress $(HAPROXY_INGRESS) $(DEMO_ARGS)

##@ Benchmarks (make bench: one line per figure set; raw output in _out/bench/)

# The prober's figures come from BenchmarkProberScale (controllers/probing, no API server); the
# end-to-end ones from test/bench, which runs only with OME_BENCH=1 so that `make test`
# skips it. Figures depend on the machine's load: each part first prints the load average.
BENCH_TIMEOUT ?= 30m
BENCH_OUT := $(CURDIR)/_out/bench
BENCH_LOAD = echo "load part=$(1) load_average=$$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,) cpus=$$(nproc)"
BENCH_FIGURES = tee $(BENCH_OUT)/$(1).log | awk '/^(prober|capacity|e2e|publish|failover|fleet|load) /{print; fflush()} /^(--- FAIL|FAIL|panic:)/{print; bad=1} END{exit bad}'

.PHONY: bench bench-observer bench-prober bench-capacity bench-e2e bench-e2e-failover bench-fleet bench-publish bench-failover bench-load
bench: ## Measure the observer's overhead, the prober at 1k/10k/50k homes, polls with probes at 10k, 200 services end to end without and with failover tiers, 50 workload clusters, the publish latency, failover through haproxy and load-following weights through haproxy (about 22 minutes).
	@$(MAKE) --no-print-directory -j1 bench-observer bench-prober bench-capacity bench-e2e bench-e2e-failover bench-fleet bench-publish bench-failover bench-load

bench-observer: ## Observer vs a bare net/http client: ns/op, allocs/op and their ratios.
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,observer)
	@$(GO) test -count=1 -run '^$$' -bench '^(BenchmarkObserver|BenchmarkBareClient)$$' -benchmem -benchtime=2s ./pkg/observer/ \
		| tee $(BENCH_OUT)/observer.log | awk ' \
		function get(unit, i) { for (i = 2; i <= NF; i++) if ($$i == unit) return $$(i-1); return "" } \
		/^BenchmarkObserver[- \t]/   { ons = get("ns/op"); oal = get("allocs/op"); ob = get("B/op") } \
		/^BenchmarkBareClient[- \t]/ { bns = get("ns/op"); bal = get("allocs/op"); bb = get("B/op") } \
		END { if (ons == "" || bns == "") { print "observer: benchmark output missing, see $(BENCH_OUT)/observer.log"; exit 1 } \
			printf "observer client=observer ns_per_op=%s allocs_per_op=%s bytes_per_op=%s\n", ons, oal, ob; \
			printf "observer client=bare ns_per_op=%s allocs_per_op=%s bytes_per_op=%s\n", bns, bal, bb; \
			printf "observer ratio ns_per_op=%.2f allocs_per_op=%.2f extra_ns_per_op=%.0f extra_allocs_per_op=%d\n", \
				ons / bns, oal / bal, ons - bns, oal - bal }'

bench-prober: ## The prober alone at 1,000, 10,000 and 50,000 homes (10s period, 64 slots), then 50,000 past capacity, the time to a first verdict, and a greedy service beside a normal one (about 6 minutes: each size first measures two bare-client floors).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,prober)
	@$(GO) test -count=1 -run '^$$' -bench '^(BenchmarkProberScale|BenchmarkProberFirstVerdict|BenchmarkProberFairness)$$' -benchtime=1x -timeout $(BENCH_TIMEOUT) ./controllers/probing/ \
		| $(call BENCH_FIGURES,prober)

bench-capacity: ## Probes and capacity polls together through one observer at 10,000 homes (10s period, 64 slots; under a minute).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,capacity)
	@$(GO) test -count=1 -run '^$$' -bench '^BenchmarkPollsAndProbes$$' -benchtime=1x -timeout $(BENCH_TIMEOUT) ./controllers/probing/ \
		| $(call BENCH_FIGURES,capacity)

bench-e2e: envtest ## 200 services on 3 workload clusters with envtest, 2s period: writes and API server cost per map, gate and route delay, with the publisher off, on and with recordInterval (about 3 minutes).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,e2e)
	@OME_BENCH=1 KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" OME_BENCH_LOG=$(BENCH_OUT)/e2e-manager.log \
		$(GO) test -count=1 -v -run '^TestEndToEnd$$' -timeout $(BENCH_TIMEOUT) ./test/bench/ \
		| $(call BENCH_FIGURES,e2e)

bench-e2e-failover: envtest ## The same 200 services, each with two failover tiers (worker-c on standby): what the tier split costs at fleet size (about 3 minutes).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,e2e-failover)
	@OME_BENCH=1 OME_BENCH_E2E_FAILOVER=1 KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" OME_BENCH_LOG=$(BENCH_OUT)/e2e-failover-manager.log \
		$(GO) test -count=1 -v -run '^TestEndToEnd$$' -timeout $(BENCH_TIMEOUT) ./test/bench/ \
		| $(call BENCH_FIGURES,e2e-failover)

bench-fleet: envtest ## 50 WorkloadClusters (each its own user and connection, ten to an envtest API server) with 200 services on three each: memory and goroutines per member, start-up, gates while one member hangs and one flaps, a control-plane API server restart (about 3 minutes).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,fleet)
	@OME_BENCH=1 KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" OME_BENCH_LOG=$(BENCH_OUT)/fleet-manager.log \
		$(GO) test -count=1 -v -run '^TestFleet$$' -timeout $(BENCH_TIMEOUT) ./test/bench/ \
		| $(call BENCH_FIGURES,fleet)

bench-publish: envtest ## TrafficMap write to HTTPRoute update: median and max over 20 gate/ungate flips (about 30 seconds).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,publish)
	@OME_BENCH=1 KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(GO) test -count=1 -v -run '^TestPublishLatency$$' -timeout $(BENCH_TIMEOUT) ./test/bench/ \
		| $(call BENCH_FIGURES,publish)

bench-failover: envtest helm haproxy-ingress haproxy prometheus ## Failover through haproxy at 100 requests/s: detection, operator, publish and gateway times, requests failed, over 8 flips; then outages with a 10s x 3 probe alone, with the passive gate, and with the passive gate and a retry on the route, side by side (about 9 minutes).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,failover)
	@OME_BENCH=1 KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" HELM="$(HELM)" HAPROXY_INGRESS="$(HAPROXY_INGRESS)" OME_BENCH_DIR=$(BENCH_OUT)/failover \
		$(GO) test -count=1 -v -run '^(TestFailover|TestPassiveGateOutage)$$' -timeout $(BENCH_TIMEOUT) ./test/bench/failover/ \
		| $(call BENCH_FIGURES,failover)

bench-load: envtest helm haproxy-ingress haproxy prometheus ## Load-following weights through haproxy: two clusters serving 2:1 under equal static weights at 80% of their capacity, queue wait p50/p95 with static and with load-following weights side by side, the shares' settle time in signal intervals and their oscillation after the load steps up and after one cluster's capacity halves, and a failing cluster's gate delay with load balancing off and on (about 8 minutes).
	@mkdir -p $(BENCH_OUT); $(call BENCH_LOAD,load)
	@OME_BENCH=1 KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" HELM="$(HELM)" HAPROXY_INGRESS="$(HAPROXY_INGRESS)" OME_BENCH_DIR=$(BENCH_OUT)/load \
		$(GO) test -count=1 -v -run '^TestLoadBalancing$$' -timeout $(BENCH_TIMEOUT) ./test/bench/load/ \
		| $(call BENCH_FIGURES,load)

##@ Soak (make soak: the operator under faults for half an hour; not part of make test)

# SOAK_DURATION (a Go duration, 3m at least) and SOAK_SERVICES set the run's length and
# size (the set-up before and the settling after take up to 20 minutes more, within
# SOAK_TIMEOUT). The managers run from a binary built as `make build` builds bin/manager,
# into _out/soak/ so that a soak never replaces the one in bin/. The figures are printed
# as they come and kept in _out/soak/soak.log, with the managers' logs beside it.
SOAK_DURATION ?= 30m
SOAK_SERVICES ?= 200
SOAK_TIMEOUT ?= 2h
SOAK_OUT := $(CURDIR)/_out/soak

.PHONY: soak
soak: envtest helm ## 200 services on 3 clusters for 30 minutes with flapping homes, the leader killed every 5 minutes, a slow and a cut-off API server; checks every map version (SOAK_DURATION, SOAK_SERVICES).
	@rm -rf $(SOAK_OUT); mkdir -p $(SOAK_OUT); $(call BENCH_LOAD,soak)
	$(GO) build -ldflags="$(VERSION_LDFLAGS)" -o $(SOAK_OUT)/manager ./cmd/manager
	@OME_SOAK=1 OME_SOAK_DURATION=$(SOAK_DURATION) OME_SOAK_SERVICES=$(SOAK_SERVICES) OME_SOAK_OUT=$(SOAK_OUT) \
		OME_MANAGER_BIN=$(SOAK_OUT)/manager KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" HELM="$(HELM)" \
		$(GO) test -count=1 -v -run '^TestSoak$$' -timeout $(SOAK_TIMEOUT) ./test/soak/ \
		| tee $(SOAK_OUT)/soak.log | awk '/^soak /{print; fflush()} /^(--- FAIL|FAIL|panic:|    [a-z_]+_test\.go:[0-9]+:)/{print; bad=1} END{exit bad}'
