package chart

import (
	"strings"
	"testing"
)

// The schema stops a probe or observer setting that the manager would refuse before anything
// is deployed. Each case checks the line helm prints for it, which names the setting.
func TestSchemaRejects(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	const probe = "/ome/multicluster/config/routing/probe"
	const observer = "/ome/multicluster/config/routing/observer"
	cases := []struct {
		name, values string
		want         string
	}{{
		name:   "missing field",
		values: edit(t, step1Values, "          timeout: 3s\n", ""),
		want:   "- at '" + probe + "': missing property 'timeout'",
	}, {
		name:   "several missing fields",
		values: edit(t, step1Values, "          path: /v1/models\n          method: GET\n", ""),
		want:   "- at '" + probe + "': missing properties 'path', 'method'",
	}, {
		name:   "period as a number",
		values: edit(t, step1Values, "period: 10s", "period: 10"),
		want:   "- at '" + probe + "/period': got number, want string",
	}, {
		name:   "period not a duration",
		values: edit(t, step1Values, "period: 10s", "period: 10 seconds"),
		want:   "- at '" + probe + "/period': '10 seconds' does not match pattern '^([0-9]+(\\\\.[0-9]{1,9})?(ns|us|ms|s|m|h))+$'",
	}, {
		name:   "zero timeout",
		values: edit(t, step1Values, "timeout: 3s", "timeout: 0s"),
		want:   "- at '" + probe + "/timeout': '0s' does not match pattern '[1-9]'",
	}, {
		name:   "method PUT",
		values: edit(t, step1Values, "method: GET", "method: PUT"),
		want:   "- at '" + probe + "/method': value must be one of 'GET', 'HEAD', 'POST'",
	}, {
		name:   "path without a leading slash",
		values: edit(t, step1Values, "path: /v1/models", "path: v1/models"),
		want:   "- at '" + probe + "/path': 'v1/models' does not match pattern '^/'",
	}, {
		name:   "extra field",
		values: edit(t, step1Values, "timeout: 3s\n", "timeout: 3s\n          interval: 5s\n"),
		want:   "- at '" + probe + "': additional properties 'interval' not allowed",
	}, {
		name:   "disabled, which only a service's probe has",
		values: edit(t, step1Values, "timeout: 3s\n", "timeout: 3s\n          disabled: false\n"),
		want:   "- at '" + probe + "': additional properties 'disabled' not allowed",
	}, {
		name:   "status as a string",
		values: edit(t, step1Values, "acceptStatuses: [200]", `acceptStatuses: ["200"]`),
		want:   "- at '" + probe + "/acceptStatuses/0': got string, want integer",
	}, {
		name:   "status out of range",
		values: edit(t, step1Values, "[404, 500", "[404, 600"),
		want:   "- at '" + probe + "/gateStatuses/1': maximum: got 600, want 599",
	}, {
		name:   "no accept status",
		values: edit(t, step1Values, "acceptStatuses: [200]", "acceptStatuses: []"),
		want:   "- at '" + probe + "/acceptStatuses': minItems: got 0, want 1",
	}, {
		name:   "too many gate statuses",
		values: edit(t, step1Values, "gateStatuses: [404,", "gateStatuses: ["+strings.Repeat("500, ", 500)+"404,"),
		want:   "- at '" + probe + "/gateStatuses': maxItems: got 505, want 500",
	}, {
		name:   "zero threshold",
		values: edit(t, step1Values, "successThreshold: 2", "successThreshold: 0"),
		want:   "- at '" + probe + "/successThreshold': minimum: got 0, want 1",
	}, {
		name:   "fractional threshold",
		values: edit(t, step1Values, "failureThreshold: 3", "failureThreshold: 2.5"),
		want:   "- at '" + probe + "/failureThreshold': got number, want integer",
	}, {
		name:   "allFailedPolicy in the wrong case",
		values: edit(t, step1Values, "allFailedPolicy: PreserveTraffic", "allFailedPolicy: drain"),
		want:   "- at '" + probe + "/allFailedPolicy': value must be one of 'PreserveTraffic', 'Drain'",
	}, {
		name:   "probe as a string",
		values: routingValues("probe: none"),
		want:   "- at '" + probe + "': got string, want array or object",
	}, {
		name:   "probe as a non-empty list",
		values: routingValues("probe: [{path: /v1/models}]"),
		want:   "- at '" + probe + "': maxItems: got 1, want 0",
	}, {
		name:   "observer limit of zero",
		values: routingValues("observer: {maxConcurrentRequests: 0}"),
		want:   "- at '" + observer + "/maxConcurrentRequests': minimum: got 0, want 1",
	}, {
		name:   "observer minPeriod as a number",
		values: routingValues("observer: {minPeriod: 1}"),
		want:   "- at '" + observer + "/minPeriod': got number, want string",
	}, {
		name:   "observer switch as a string",
		values: routingValues(`observer: {allowLoopback: "yes"}`),
		want:   "- at '" + observer + "/allowLoopback': got string, want boolean",
	}, {
		name:   "capacity without maxAge",
		values: routingValues("capacity: {path: /capacity, method: GET, format: Report, samples: 10, quorum: 2, period: 10s, timeout: 3s}"),
		want:   "- at '/ome/multicluster/config/routing/capacity': missing property 'maxAge'",
	}, {
		name:   "capacity format not registered",
		values: routingValues("capacity: {path: /capacity, method: GET, format: report, samples: 10, quorum: 2, period: 10s, timeout: 3s, maxAge: 30s}"),
		want:   "- at '/ome/multicluster/config/routing/capacity/format': value must be 'Report'",
	}, {
		name: "capacity disabled, which only a service's poll has",
		// Nested under "validation failed", next to the missing fields, hence the indent.
		values: routingValues("capacity: {disabled: true}"),
		want:   "  - at '/ome/multicluster/config/routing/capacity': additional properties 'disabled' not allowed",
	}, {
		name:   "observer maxSamples of zero",
		values: routingValues("observer: {maxSamples: 0}"),
		want:   "- at '" + observer + "/maxSamples': minimum: got 0, want 1",
	}, {
		name:   "observer limit removed",
		values: routingValues("observer: {maxResponseBytes: null}"),
		want:   "- at '" + observer + "': missing property 'maxResponseBytes'",
	}, {
		name:   "unknown routing setting",
		values: routingValues("weights: {period: 10s}"),
		want:   "- at '/ome/multicluster/config/routing': additional properties 'weights' not allowed",
	}, {
		name:   "zero observationGrace",
		values: "ome:\n  multicluster:\n    config:\n      placement:\n        observationGrace: 0s\n",
		want:   "- at '/ome/multicluster/config/placement/observationGrace': '0s' does not match pattern '[1-9]'",
	}, {
		name:   "unknown placement setting",
		values: "ome:\n  multicluster:\n    config:\n      placement:\n        requeueInterval: 1m\n",
		want:   "- at '/ome/multicluster/config/placement': additional properties 'requeueInterval' not allowed",
	}, {
		// values.yaml promises that a typo stops helm, at the top level too.
		name:   "top-level typo",
		values: "imagee:\n  repository: example.com/ome-manager\n",
		want:   "- at '': additional properties 'imagee' not allowed",
	}, {
		name:   "unknown role",
		values: edit(t, step1Values, "role: control-plane", "role: worker"),
		want:   "- at '/ome/multicluster/role': value must be one of '', 'control-plane'",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { expectSchemaRefusal(t, tc.values, tc.want) })
	}
}

// expectSchemaRefusal checks that helm refuses the values through the schema, with the
// line want among the ones it prints.
func expectSchemaRefusal(t *testing.T, values, want string) {
	t.Helper()
	stderr := renderError(t, values)
	if !strings.Contains(stderr, "Error: "+schemaErrorHeader) {
		t.Fatalf("helm did not refuse the values through the schema:\n%s", stderr)
	}
	if !strings.Contains(stderr, "\n"+want+"\n") {
		t.Errorf("helm error lacks the line\n%s\nit printed:\n%s", want, stderr)
	}
}

// The empty forms of the probe, [] and {}, mean no probe; so does leaving it out.
func TestSchemaAcceptsNoProbe(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for _, probe := range []string{"probe: []", "probe: {}", "probe: null"} {
		t.Run(probe, func(t *testing.T) {
			render(t, routingValues(probe))
		})
	}
}

// routingValues turns routing on, in the topology it needs, with one more line under
// ome.multicluster.config.routing.
func routingValues(line string) string {
	return `ome:
  multicluster:
    enabled: true
    role: control-plane
    config:
      routing:
        enabled: true
        ` + line + "\n"
}

// A top-level typo given with --set stops helm as one in a values file does.
func TestSchemaRejectsTopLevelTypoFromSet(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	stderr := renderError(t, "", "--set", "imagee.repository=x")
	if !strings.Contains(stderr, "Error: "+schemaErrorHeader+"- at '': additional properties 'imagee' not allowed\n") {
		t.Errorf("helm did not refuse the typo through the schema:\n%s", stderr)
	}
}
