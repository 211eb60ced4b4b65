package settingcases

import (
	"slices"
	"strings"

	"github.com/ome-routing/operator/test/probecases"
)

// Case is one installation config and the verdict on it.
type Case struct {
	// Name names the case in test output.
	Name string
	// Set are the settings the case changes in Base, by dotted path under the config.
	Set map[string]any
	// Manager is "" when the manager accepts the config; otherwise a line of its refusal.
	Manager string
	// Schema is a substring of helm's error when the chart's values schema refuses the
	// config; "" when the chart's template refuses it, which then prints the manager's
	// lines word for word.
	Schema string
}

// Base is a config both accept, fresh each call: routing on, the chart's default observer
// and publisher, and the user guide's Step 1 probe.
func Base() map[string]any {
	return map[string]any{
		"routing": map[string]any{
			"enabled": true,
			"probe":   probecases.Step1(),
			"observer": map[string]any{
				"maxConcurrentReconciles": 8, "maxConcurrentRequests": 16, "maxResponseBytes": 65536,
				"minPeriod": "1s", "maxPeriod": "5m", "maxTimeout": "30s", "maxSamples": 10,
				"recordInterval": "0s", "allowLoopback": false, "allowPrivateNetworks": false,
			},
			"publisher": map[string]any{"name": "", "resyncInterval": "1m"},
		},
	}
}

// Config is Base with the case's settings.
func (c Case) Config() map[string]any {
	cfg := Base()
	for path, value := range c.Set {
		keys := strings.Split(path, ".")
		m := cfg
		for _, k := range keys[:len(keys)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[keys[len(keys)-1]] = value
	}
	return cfg
}

// The schema's words for its refusals, as helm prints them.
const (
	schemaPattern   = "does not match pattern"
	schemaMaxLength = "maxLength: got"
	schemaMaximum   = "maximum: got"
	schemaType      = "got number, want integer"
)

// notDuration is the manager's line for a value that is not a duration.
func notDuration(path, value string) string {
	return path + `: "` + value + `" is not a duration (use forms like "30s", "5m")`
}

// capacity is a capacity poll both accept.
func capacity() map[string]any {
	return map[string]any{"path": "/capacity", "method": "GET", "format": "Report", "samples": 10,
		"quorum": 2, "period": "10s", "timeout": "3s", "maxAge": "30s"}
}

// Cases is the shared table.
var Cases = slices.Concat(durationCases(), integerCases(), trafficSignalCases(), retryCases())

// durationCases are durations at and past the largest time.Duration, and in and out of the
// grammar the two share.
func durationCases() []Case {
	const largest = "2562047h47m16.854775807s"
	return []Case{
		// Accepted.
		{Name: "rampUp at the largest duration", Set: map[string]any{"routing.probe.rampUp": largest}},
		{Name: "timeout with nine decimals just under the period", Set: map[string]any{"routing.probe.timeout": "9.999999999s"}},
		{Name: "a fraction of an hour to the nanosecond", Set: map[string]any{"routing.probe.rampUp": "1.000000001h"}},
		{Name: "maxPeriod at the largest duration", Set: map[string]any{"routing.observer.maxPeriod": largest}},
		{Name: "leading zeros", Set: map[string]any{"routing.probe.period": "00000000000000000000010s"}},

		// Refused by the manager's rules, which the chart's template repeats exactly.
		{Name: "rampUp one nanosecond under the period", Set: map[string]any{"routing.probe.rampUp": "9.999999999s"},
			Manager: "routing.probe.rampUp (9.999999999s) must be at least routing.probe.period (10s)"},
		{Name: "timeout a fraction of an hour over the period", Set: map[string]any{"routing.probe.timeout": "0.002777778h"},
			Manager: "routing.probe.timeout (10.0000008s) must be shorter than routing.probe.period (10s)"},

		// Past the largest duration: the schema's grammar allows them, the manager and the
		// chart's template refuse them and drop the rules that name them.
		{Name: "rampUp 5124096h, which wraps int64 nanoseconds", Set: map[string]any{"routing.probe.rampUp": "5124096h"},
			Manager: notDuration("routing.probe.rampUp", "5124096h")},
		{Name: "rampUp one nanosecond past the largest duration", Set: map[string]any{"routing.probe.rampUp": "2562047h47m16.854775808s"},
			Manager: notDuration("routing.probe.rampUp", "2562047h47m16.854775808s")},
		{Name: "rampUp whose parts add up past the largest duration", Set: map[string]any{"routing.probe.rampUp": "2562047h2562047h"},
			Manager: notDuration("routing.probe.rampUp", "2562047h2562047h")},
		{Name: "rampUp with 20 digits of hours", Set: map[string]any{"routing.probe.rampUp": "99999999999999999999h"},
			Manager: notDuration("routing.probe.rampUp", "99999999999999999999h")},
		{Name: "rampUp of 2^63 nanoseconds", Set: map[string]any{"routing.probe.rampUp": "9223372036854775808ns"},
			Manager: notDuration("routing.probe.rampUp", "9223372036854775808ns")},
		{Name: "hours and a fraction past the largest duration", Set: map[string]any{"routing.probe.rampUp": "2562047.9h"},
			Manager: notDuration("routing.probe.rampUp", "2562047.9h")},
		{Name: "timeout past the largest duration", Set: map[string]any{"routing.probe.timeout": "5124096h"},
			Manager: notDuration("routing.probe.timeout", "5124096h")},
		{Name: "period past the largest duration", Set: map[string]any{"routing.probe.period": "5124096h"},
			Manager: notDuration("routing.probe.period", "5124096h")},
		{Name: "flapDamping window past the largest duration",
			Set:     map[string]any{"routing.probe.flapDamping": map[string]any{"window": "5124096h", "maxFactor": 4}},
			Manager: notDuration("routing.probe.flapDamping.window", "5124096h")},
		{Name: "minPeriod past the largest duration", Set: map[string]any{"routing.observer.minPeriod": "5124096h"},
			Manager: notDuration("routing.observer.minPeriod", "5124096h")},
		{Name: "maxPeriod past the largest duration", Set: map[string]any{"routing.observer.maxPeriod": "5124096h"},
			Manager: notDuration("routing.observer.maxPeriod", "5124096h")},
		{Name: "maxTimeout past the largest duration", Set: map[string]any{"routing.observer.maxTimeout": "5124096h"},
			Manager: notDuration("routing.observer.maxTimeout", "5124096h")},
		{Name: "recordInterval past the largest duration", Set: map[string]any{"routing.observer.recordInterval": "5124096h"},
			Manager: notDuration("routing.observer.recordInterval", "5124096h")},
		{Name: "resyncInterval past the largest duration", Set: map[string]any{"routing.publisher.resyncInterval": "5124096h"},
			Manager: notDuration("routing.publisher.resyncInterval", "5124096h")},
		{Name: "capacity maxAge past the largest duration",
			Set:     map[string]any{"routing.capacity": with(capacity(), "maxAge", "5124096h")},
			Manager: notDuration("routing.capacity.maxAge", "5124096h")},

		// Outside the grammar: the schema refuses them, the manager says they are no
		// duration. Past nine decimals time.ParseDuration rounds through a float64, which
		// the chart cannot repeat: 9.99999999999999999999999s is 10s to the manager.
		{Name: "timeout with 16 decimals", Set: map[string]any{"routing.probe.timeout": "9.9999999999999999s"},
			Manager: notDuration("routing.probe.timeout", "9.9999999999999999s"), Schema: schemaPattern},
		{Name: "rampUp with 23 decimals, 10s to time.ParseDuration", Set: map[string]any{"routing.probe.rampUp": "9.99999999999999999999999s"},
			Manager: notDuration("routing.probe.rampUp", "9.99999999999999999999999s"), Schema: schemaPattern},
		{Name: "timeout with ten decimals", Set: map[string]any{"routing.probe.timeout": "1.0000000001s"},
			Manager: notDuration("routing.probe.timeout", "1.0000000001s"), Schema: schemaPattern},
		{Name: "a unit only Go reads", Set: map[string]any{"routing.probe.timeout": "3000000µs"},
			Manager: notDuration("routing.probe.timeout", "3000000µs"), Schema: schemaPattern},
		{Name: "a leading plus", Set: map[string]any{"routing.probe.timeout": "+3s"},
			Manager: notDuration("routing.probe.timeout", "+3s"), Schema: schemaPattern},
		{Name: "no digit before the point", Set: map[string]any{"routing.probe.timeout": ".5s"},
			Manager: notDuration("routing.probe.timeout", ".5s"), Schema: schemaPattern},
		{Name: "no digit after the point", Set: map[string]any{"routing.probe.timeout": "1.s"},
			Manager: notDuration("routing.probe.timeout", "1.s"), Schema: schemaPattern},
		{Name: "33 characters", Set: map[string]any{"routing.probe.rampUp": "1m" + strings.Repeat("0s", 15) + "1s"},
			Manager: notDuration("routing.probe.rampUp", "1m"+strings.Repeat("0s", 15)+"1s"), Schema: schemaMaxLength},
	}
}

// integerCases are integers at and past their bounds: 2^31-1 for the 32-bit settings, and
// 2^53-1, the most that helm's float64 values keep exactly, for the others.
func integerCases() []Case {
	return []Case{
		{Name: "observer limits at their bounds", Set: map[string]any{
			"routing.observer.maxConcurrentReconciles": 9007199254740991, "routing.observer.maxConcurrentRequests": 9007199254740991,
			"routing.observer.maxResponseBytes": 9007199254740991, "routing.observer.maxSamples": 2147483647}},
		{Name: "thresholds at the bound", Set: map[string]any{
			"routing.probe.failureThreshold": 2147483647, "routing.probe.successThreshold": 2147483647}},

		{Name: "maxConcurrentRequests 1e20", Set: map[string]any{"routing.observer.maxConcurrentRequests": 1e20},
			Manager: "routing.observer.maxConcurrentRequests: want an integer, got 100000000000000000000", Schema: schemaMaximum},
		{Name: "maxConcurrentRequests 2^53", Set: map[string]any{"routing.observer.maxConcurrentRequests": 1 << 53},
			Manager: "routing.observer.maxConcurrentRequests must be at most 9007199254740991, got 9007199254740992", Schema: schemaMaximum},
		{Name: "maxConcurrentReconciles 2^53", Set: map[string]any{"routing.observer.maxConcurrentReconciles": 1 << 53},
			Manager: "routing.observer.maxConcurrentReconciles must be at most 9007199254740991, got 9007199254740992", Schema: schemaMaximum},
		{Name: "maxResponseBytes 2^63, past int64", Set: map[string]any{"routing.observer.maxResponseBytes": float64(1 << 63)},
			Manager: "routing.observer.maxResponseBytes: want an integer, got 9223372036854776000", Schema: schemaMaximum},
		{Name: "maxResponseBytes 1e20", Set: map[string]any{"routing.observer.maxResponseBytes": 1e20},
			Manager: "routing.observer.maxResponseBytes: want an integer, got 100000000000000000000", Schema: schemaMaximum},
		{Name: "maxSamples past the bound", Set: map[string]any{"routing.observer.maxSamples": 2147483648},
			Manager: "routing.observer.maxSamples: want a 32-bit integer, got 2147483648", Schema: schemaMaximum},
		{Name: "failureThreshold 1e20", Set: map[string]any{"routing.probe.failureThreshold": 1e20},
			Manager: "routing.probe.failureThreshold: want a 32-bit integer, got 100000000000000000000", Schema: schemaMaximum},
		{Name: "a fraction where an integer goes", Set: map[string]any{"routing.observer.maxConcurrentRequests": 1.5},
			Manager: "routing.observer.maxConcurrentRequests: want an integer, got 1.5", Schema: schemaType},
		{Name: "backendPort past 65535", Set: map[string]any{"endpoint.backendPort": 65536},
			Manager: "endpoint.backendPort: 65536 is not a valid port", Schema: schemaMaximum},
		{Name: "BackendTLSPolicies with the system's CAs", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 443,
			"endpoint.gatewayBackend.tls": map[string]any{"enabled": true, "wellKnownCACertificates": "System"}}},
		{Name: "tls without the system's CAs", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 443,
			"endpoint.gatewayBackend.tls": map[string]any{"enabled": true}},
			Manager: `endpoint.gatewayBackend.tls.wellKnownCACertificates: "" must be "System" when enabled`},
		{Name: "tls with other CAs", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 443,
			"endpoint.gatewayBackend.tls": map[string]any{"enabled": true, "wellKnownCACertificates": "Mozilla"}},
			Manager: `endpoint.gatewayBackend.tls.wellKnownCACertificates: "Mozilla" must be "System" when enabled`},
		{Name: "tls settings while tls is off", Set: map[string]any{"endpoint.gatewayBackend.tls": map[string]any{"enabled": false, "wellKnownCACertificates": "System"}},
			Manager: "endpoint.gatewayBackend.tls.enabled: must be true when TLS settings are supplied"},
		{Name: "tls without a gateway", Set: map[string]any{"endpoint.gatewayBackend.tls": map[string]any{"enabled": true, "wellKnownCACertificates": "System"}},
			Manager: "endpoint.globalGateway: must be set when gateway backend features are enabled"},
		{Name: "EndpointSlices refreshed every minute", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": true, "addressRefreshInterval": "1m"}}},
		{Name: "EndpointSlices without a refresh interval", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": true}},
			Manager: "endpoint.gatewayBackend.endpointSlices.addressRefreshInterval: must be set when enabled"},
		{Name: "EndpointSlice refresh zero", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": true, "addressRefreshInterval": "0s"}},
			Manager: `endpoint.gatewayBackend.endpointSlices.addressRefreshInterval: "0s" must be positive`, Schema: schemaPattern},
		{Name: "EndpointSlice refresh not a duration", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": true, "addressRefreshInterval": "60"}},
			Manager: notDuration("endpoint.gatewayBackend.endpointSlices.addressRefreshInterval", "60"), Schema: schemaPattern},
		{Name: "EndpointSlice refresh past the largest duration", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": true, "addressRefreshInterval": "5124096h"}},
			Manager: notDuration("endpoint.gatewayBackend.endpointSlices.addressRefreshInterval", "5124096h")},
		{Name: "EndpointSlice settings while they are off", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": false, "addressRefreshInterval": "1m"}},
			Manager: "endpoint.gatewayBackend.endpointSlices.enabled: must be true when EndpointSlice settings are supplied"},
		{Name: "EndpointSlices without a gateway", Set: map[string]any{"endpoint.gatewayBackend.endpointSlices": map[string]any{"enabled": true, "addressRefreshInterval": "1m"}},
			Manager: "endpoint.globalGateway: must be set when gateway backend features are enabled"},
		{Name: "EndpointSlices with Envoy Gateway backends", Set: map[string]any{"endpoint.globalGateway": "gateway-system/global", "endpoint.backendPort": 80,
			"endpoint.gatewayBackend": map[string]any{"kind": "EnvoyGatewayBackend", "endpointSlices": map[string]any{"enabled": true, "addressRefreshInterval": "1m"}}},
			Manager: `endpoint.gatewayBackend.endpointSlices.enabled: needs gatewayBackend.kind "ExternalNameService", since EndpointSlices belong to Services`},
	}
}

// with returns block with key set to value.
func with(block map[string]any, key string, value any) map[string]any {
	block[key] = value
	return block
}

// signal is a routing.trafficSignal both accept, with edits: key/value pairs by dotted path
// under the block.
func signal(kv ...any) map[string]any {
	block := map[string]any{
		"prometheus": map[string]any{"url": "http://prometheus.monitoring:9090"},
		"queries": map[string]any{
			"requests": `sum(increase(requests_total{namespace="{{.Namespace}}",cluster="{{.Cluster}}"}[{{.Window}}]))`,
			"failures": `sum(increase(requests_total{namespace="{{.Namespace}}",cluster="{{.Cluster}}",code="5xx"}[{{.Window}}]))`,
		},
	}
	for i := 0; i+1 < len(kv); i += 2 {
		keys := strings.Split(kv[i].(string), ".")
		m := block
		for _, k := range keys[:len(keys)-1] {
			m = m[k].(map[string]any)
		}
		m[keys[len(keys)-1]] = kv[i+1]
	}
	return block
}

// trafficSignalCases are routing.trafficSignal's rules between fields, which the chart's
// template repeats, and the shape the schema holds.
func trafficSignalCases() []Case {
	const path = "routing.trafficSignal"
	return []Case{
		{Name: "a traffic signal with its defaults", Set: map[string]any{path: signal()}},
		{Name: "a traffic signal with every field", Set: map[string]any{path: signal("interval", "10s", "window", "1m",
			"prometheus", map[string]any{"url": "https://prom.example.com/api/prom", "timeout": "3s", "bearerTokenSecret": map[string]any{"name": "prom", "key": "token"}})}},
		{Name: "no traffic signal, {}", Set: map[string]any{path: map[string]any{}}},

		{Name: "traffic signal timeout at its interval", Set: map[string]any{path: signal("prometheus.timeout", "5s")},
			Manager: "routing.trafficSignal.prometheus.timeout (5s) must be less than routing.trafficSignal.interval (5s)"},
		{Name: "traffic signal interval under minPeriod", Set: map[string]any{path: signal("interval", "500ms", "prometheus.timeout", "100ms")},
			Manager: "routing.trafficSignal.interval (500ms) must be at least routing.observer.minPeriod (1s)"},
		{Name: "traffic signal window under its interval", Set: map[string]any{path: signal("window", "3s")},
			Manager: "routing.trafficSignal.window (3s) must be at least routing.trafficSignal.interval (5s): each reading covers the time since the one before"},
		{Name: "traffic signal window of a fraction of a second", Set: map[string]any{path: signal("window", "7500ms")},
			Manager: "routing.trafficSignal.window must be a whole number of seconds, got 7.5s"},
		{Name: "traffic signal interval past the largest duration, its rules left out", Set: map[string]any{path: signal("interval", "5124096h")},
			Manager: notDuration("routing.trafficSignal.interval", "5124096h")},
		{Name: "traffic signal with both token sources", Set: map[string]any{path: signal("prometheus.bearerTokenFile", "/t",
			"prometheus.bearerTokenSecret", map[string]any{"name": "prom", "key": "token"})},
			Manager: "routing.trafficSignal.prometheus: set bearerTokenSecret or bearerTokenFile, not both"},

		{Name: "traffic signal URL of another scheme", Set: map[string]any{path: signal("prometheus.url", "ftp://prom:21")},
			Manager: `routing.trafficSignal.prometheus.url must be an http or https URL, got "ftp://prom:21"`, Schema: schemaPattern},
		{Name: "traffic signal URL with a password", Set: map[string]any{path: signal("prometheus.url", "http://u:p@prom:9090")},
			Manager: "routing.trafficSignal.prometheus.url must not carry credentials: use prometheus.bearerTokenSecret", Schema: schemaPattern},
		{Name: "traffic signal interval that is no duration", Set: map[string]any{path: signal("interval", "soon")},
			Manager: notDuration("routing.trafficSignal.interval", "soon"), Schema: schemaPattern},
		{Name: "traffic signal without queries", Set: map[string]any{path: map[string]any{"prometheus": map[string]any{"url": "http://p:9090"}}},
			Manager: "routing.trafficSignal.queries.failures is required", Schema: "missing property 'queries'"},
	}
}
