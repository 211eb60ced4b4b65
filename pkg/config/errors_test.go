package config

import (
	"slices"
	"strings"
	"testing"
)

// Short forms for the secondary cases; the messages that users grep for are spelled out.
const (
	inv = "invalid multi-cluster configuration: "
	bad = "load multi-cluster configuration: unable to parse multicluster config json: "
)

type rejectCase struct {
	name string
	json string
	want []string // every line of the error, in order
}

var rejectedCases = []rejectCase{
	// Durations.
	{"period not a duration", enabled(with(step1Probe(), "period", "10"), chartObserver()),
		[]string{`invalid multi-cluster configuration: routing.probe.period: "10" is not a duration (use forms like "30s", "5m")`}},
	{"period a number, as values.yaml's period: 10 renders", enabled(with(step1Probe(), "period", 10), chartObserver()),
		[]string{`invalid multi-cluster configuration: routing.probe.period: "10" is not a duration (use forms like "30s", "5m")`}},
	{"timeout not a duration", enabled(with(step1Probe(), "timeout", "3"), chartObserver()),
		[]string{`invalid multi-cluster configuration: routing.probe.timeout: "3" is not a duration (use forms like "30s", "5m")`}},
	{"minPeriod not a duration", enabled(step1Probe(), with(chartObserver(), "minPeriod", "1")),
		[]string{`invalid multi-cluster configuration: routing.observer.minPeriod: "1" is not a duration (use forms like "30s", "5m")`}},
	{"period with a space", enabled(with(step1Probe(), "period", " 10s"), chartObserver()),
		[]string{inv + `routing.probe.period: " 10s" is not a duration (use forms like "30s", "5m")`}},
	{"bad durations are not also called missing", enabled(with(step1Probe(), "period", "10", "timeout", "3"), chartObserver()),
		[]string{
			inv + `routing.probe.period: "10" is not a duration (use forms like "30s", "5m")`,
			inv + `routing.probe.timeout: "3" is not a duration (use forms like "30s", "5m")`,
		}},

	// The probe's rules, which pkg/probe holds.
	{"timeout equal to period", enabled(with(step1Probe(), "timeout", "10s"), chartObserver()),
		[]string{"invalid multi-cluster configuration: routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)"}},
	{"period under the observer's floor", enabled(with(step1Probe(), "period", "500ms", "timeout", "100ms"), chartObserver()),
		[]string{"invalid multi-cluster configuration: routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"}},
	{"timeout over the observer's maximum", enabled(with(step1Probe(), "period", "2h", "timeout", "59m"), chartObserver()),
		[]string{
			"invalid multi-cluster configuration: routing.probe.period (2h0m0s) must be at most routing.observer.maxPeriod (5m0s)",
			"invalid multi-cluster configuration: routing.probe.timeout (59m0s) must be at most routing.observer.maxTimeout (30s)",
		}},
	{"timeout over a lowered maximum", enabled(step1Probe(), with(chartObserver(), "maxTimeout", "2s")),
		[]string{inv + "routing.probe.timeout (3s) must be at most routing.observer.maxTimeout (2s)"}},
	{"timeout over the default maximum", enabled(with(step1Probe(), "timeout", "45s", "period", "1m"), with(chartObserver(), "maxTimeout", drop, "maxPeriod", drop)),
		[]string{inv + "routing.probe.timeout (45s) must be at most routing.observer.maxTimeout (30s)"}},
	{"maxima not durations", enabled(nil, with(chartObserver(), "maxPeriod", "5", "maxTimeout", 30)),
		[]string{
			inv + `routing.observer.maxPeriod: "5" is not a duration (use forms like "30s", "5m")`,
			inv + `routing.observer.maxTimeout: "30" is not a duration (use forms like "30s", "5m")`,
		}},
	{"maxima not positive", enabled(nil, with(chartObserver(), "maxPeriod", "0s", "maxTimeout", "-1s")),
		[]string{
			inv + "routing.observer.maxPeriod must be positive, got 0s",
			inv + "routing.observer.maxTimeout must be positive, got -1s",
		}},
	{"recordInterval negative", enabled(nil, with(chartObserver(), "recordInterval", "-20s")),
		[]string{inv + "routing.observer.recordInterval must not be negative, got -20s"}},
	{"recordInterval not a duration", enabled(nil, with(chartObserver(), "recordInterval", 20)),
		[]string{inv + `routing.observer.recordInterval: "20" is not a duration (use forms like "30s", "5m")`}},
	{"minPeriod over maxPeriod", enabled(nil, with(chartObserver(), "minPeriod", "10m")),
		[]string{inv + "routing.observer.minPeriod (10m0s) must not be over routing.observer.maxPeriod (5m0s)"}},
	{"period under the floor, routing off", routing(obj{"probe": with(step1Probe(), "period", "500ms", "timeout", "100ms"), "observer": obj{"minPeriod": "1s"}}),
		[]string{inv + "routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"}},
	{"bad probe, routing off", routing(obj{"probe": with(step1Probe(), "gateStatuses", []int{401})}),
		[]string{inv + "routing.probe.gateStatuses must not contain 401"}},
	{"probe without a period", enabled(with(step1Probe(), "period", drop), chartObserver()),
		[]string{inv + "routing.probe.period must be positive when routing.probe.path is set"}},
	{"status in both lists", enabled(with(step1Probe(), "acceptStatuses", []int{200, 503}), chartObserver()),
		[]string{inv + "routing.probe: status 503 is in both acceptStatuses and gateStatuses"}},
	{"method in lower case", enabled(with(step1Probe(), "method", "get"), chartObserver()),
		[]string{inv + `routing.probe.method "get" must be GET, HEAD, or POST`}},
	{"empty path", enabled(with(step1Probe(), "path", ""), chartObserver()),
		[]string{inv + "routing.probe.path must not be empty"}},

	// A probe without one of its string fields fails decoding.
	{"probe without path", enabled(with(step1Probe(), "path", drop), chartObserver()),
		[]string{"load multi-cluster configuration: unable to parse multicluster config json: routing.probe.path is required"}},
	{"probe without method", enabled(with(step1Probe(), "method", drop), chartObserver()),
		[]string{"load multi-cluster configuration: unable to parse multicluster config json: routing.probe.method is required when routing.probe.path is set"}},
	{"probe without allFailedPolicy", enabled(with(step1Probe(), "allFailedPolicy", drop), chartObserver()),
		[]string{"load multi-cluster configuration: unable to parse multicluster config json: routing.probe.allFailedPolicy is required"}},
	{"probe with a null path", enabled(with(step1Probe(), "path", nil), chartObserver()),
		[]string{bad + "routing.probe.path is required"}},
	{"probe without any string field", enabled(obj{"period": "10s"}, chartObserver()),
		[]string{bad + "routing.probe.path is required", bad + "routing.probe.method is required", bad + "routing.probe.allFailedPolicy is required"}},
	{"disabled", enabled(obj{"disabled": true}, chartObserver()),
		[]string{bad + "routing.probe.disabled is not supported in the installation's probe: leave routing.probe empty ([] or {}) for no probe"}},
	{"disabled false with every field", enabled(with(step1Probe(), "disabled", false), chartObserver()),
		[]string{bad + "routing.probe.disabled is not supported in the installation's probe: leave routing.probe empty ([] or {}) for no probe"}},

	// The observer.
	{"maxConcurrentRequests zero", enabled(nil, with(chartObserver(), "maxConcurrentRequests", 0)),
		[]string{"invalid multi-cluster configuration: routing.observer.maxConcurrentRequests must be positive, got 0"}},
	{"maxConcurrentReconciles negative", enabled(nil, with(chartObserver(), "maxConcurrentReconciles", -1)),
		[]string{inv + "routing.observer.maxConcurrentReconciles must be positive, got -1"}},
	{"maxResponseBytes missing", enabled(nil, with(chartObserver(), "maxResponseBytes", drop)),
		[]string{"invalid multi-cluster configuration: routing.observer.maxResponseBytes is required"}},
	{"minPeriod zero", enabled(nil, with(chartObserver(), "minPeriod", "0s")),
		[]string{inv + "routing.observer.minPeriod must be positive, got 0s"}},
	{"minPeriod negative", enabled(nil, with(chartObserver(), "minPeriod", "-1s")),
		[]string{inv + "routing.observer.minPeriod must be positive, got -1s"}},
	{"observer absent, routing on", enabled(step1Probe(), nil),
		[]string{
			inv + "routing.observer.maxConcurrentReconciles is required",
			inv + "routing.observer.maxConcurrentRequests is required",
			inv + "routing.observer.maxResponseBytes is required",
			inv + "routing.observer.maxSamples is required",
			inv + "routing.observer.minPeriod is required",
		}},
	{"zero limit, routing off", routing(obj{"observer": with(chartObserver(), "maxConcurrentRequests", 0)}),
		[]string{inv + "routing.observer.maxConcurrentRequests must be positive, got 0"}},

	// Unknown and repeated keys, named by their path.
	{"observationGrace not positive", `{"placement": {"observationGrace": "0s"}}`,
		[]string{inv + "placement.observationGrace must be positive, got 0s"}},
	{"observationGrace negative", `{"placement": {"observationGrace": "-1m"}}`,
		[]string{"invalid multi-cluster configuration: placement.observationGrace must be positive, got -1m0s"}},
	{"observationGrace not a duration", `{"placement": {"observationGrace": 600}}`,
		[]string{inv + `placement.observationGrace: "600" is not a duration (use forms like "30s", "5m")`}},
	{"unknown placement key", `{"placement": {"observationGrase": "1m"}}`,
		[]string{bad + `unknown field "placement.observationGrase"`}},
	{"unknown top-level key", `{"routng": {"enabled": true}}`,
		[]string{bad + `unknown field "routng"`}},
	{"unknown routing key", routing(obj{"capacities": obj{"period": "10s"}}),
		[]string{bad + `unknown field "routing.capacities"`}},
	{"unknown probe key", enabled(with(step1Probe(), "intervalSeconds", 10), chartObserver()),
		[]string{bad + `unknown field "routing.probe.intervalSeconds"`}},
	{"unknown observer key", enabled(nil, with(chartObserver(), "maxConcurentRequests", 16)),
		[]string{"load multi-cluster configuration: unable to parse multicluster config json: unknown field \"routing.observer.maxConcurentRequests\""}},
	{"keys match case-sensitively", enabled(with(step1Probe(), "path", drop, "Path", "/v1/models"), chartObserver()),
		[]string{bad + `unknown field "routing.probe.Path"`, bad + "routing.probe.path is required"}},
	{"repeated key", `{"routing": {"enabled": true, "enabled": false}}`,
		[]string{bad + `duplicate field "routing.enabled"`}},

	// Values of the wrong type.
	{"enabled a string", routing(obj{"enabled": "true"}),
		[]string{bad + `routing.enabled: want a boolean, got "true"`}},
	{"threshold a string", enabled(with(step1Probe(), "failureThreshold", "3"), chartObserver()),
		[]string{bad + `routing.probe.failureThreshold: want a 32-bit integer, got "3"`}},
	{"threshold over 32 bits", enabled(with(step1Probe(), "successThreshold", 3000000000), chartObserver()),
		[]string{bad + `routing.probe.successThreshold: want a 32-bit integer, got 3000000000`}},
	{"null status", `{"routing": {"probe": {"path": "/", "method": "GET", "allFailedPolicy": "Drain", "acceptStatuses": [200, null]}}}`,
		[]string{bad + `routing.probe.acceptStatuses: want a list of 32-bit integers, got [200,null]`}},
	{"limit a fraction", enabled(nil, with(chartObserver(), "maxConcurrentRequests", 1.5)),
		[]string{bad + `routing.observer.maxConcurrentRequests: want an integer, got 1.5`}},
	{"path a number", enabled(with(step1Probe(), "path", 5), chartObserver()),
		[]string{bad + `routing.probe.path: want a string, got 5`}},
	{"probe a non-empty list", enabled([]int{1}, chartObserver()),
		[]string{bad + `routing.probe: want an object, or [] for no probe, got [1]`}},
	{"probe a string", enabled("none", chartObserver()),
		[]string{bad + `routing.probe: want an object, or [] for no probe, got "none"`}},
	{"routing a boolean", `{"routing": true}`,
		[]string{bad + `routing: want an object, got true`}},
	{"document a list", `[]`,
		[]string{bad + `the document: want an object, got []`}},
	{"long values are cut short", routing(obj{"enabled": strings.Repeat("x", 100)}),
		[]string{bad + `routing.enabled: want a boolean, got "` + strings.Repeat("x", 63) + `...`}},

	// Not JSON.
	{"truncated", `{"routing": {`,
		[]string{bad + "unexpected end of JSON input (at byte 13)"}},
	{"two documents", `{} {}`,
		[]string{bad + "invalid character '{' after top-level value (at byte 4)"}},
	{"YAML instead of JSON", "routing:\n  enabled: true\n",
		[]string{bad + "invalid character 'r' looking for beginning of value (at byte 1)"}},

	// Every problem at once.
	{"every rule broken at once",
		enabled(
			with(step1Probe(), "period", "500ms", "timeout", "600ms", "acceptStatuses", []int{503}, "gateStatuses", []int{401, 503}),
			with(chartObserver(), "maxConcurrentRequests", 0, "maxResponseBytes", drop)),
		[]string{
			inv + "routing.observer.maxConcurrentRequests must be positive, got 0",
			inv + "routing.observer.maxResponseBytes is required",
			inv + "routing.probe.gateStatuses must not contain 401",
			inv + "routing.probe: status 503 is in both acceptStatuses and gateStatuses",
			inv + "routing.probe.timeout (600ms) must be shorter than routing.probe.period (500ms)",
			inv + "routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)",
		}},
	{"every decoding problem at once",
		`{"x": 1, "routing": {"enabled": "yes", "probe": {"period": "10s", "y": 2}, "observer": {"z": 3}}}`,
		[]string{
			bad + `unknown field "x"`,
			bad + `routing.enabled: want a boolean, got "yes"`,
			bad + `unknown field "routing.probe.y"`,
			bad + "routing.probe.path is required",
			bad + "routing.probe.method is required",
			bad + "routing.probe.allFailedPolicy is required",
			bad + `unknown field "routing.observer.z"`,
		}},
}

func TestParseRejects(t *testing.T) {
	for _, tc := range rejectedCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.json))
			if err == nil {
				t.Fatalf("Parse() = %s, want an error", describe(got))
			}
			if got != nil {
				t.Errorf("Parse() returned a config along with its error")
			}
			if lines := errorLines(t, err); !slices.Equal(lines, tc.want) {
				t.Errorf("Parse() error lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
