package config

import (
	"time"

	"github.com/ome-routing/operator/pkg/capacity"
)

// chartCapacity is the capacity block of the chart's commented example.
func chartCapacity() obj {
	return obj{
		"path": "/capacity", "method": "GET", "format": "Report",
		"samples": 10, "quorum": 2, "period": "10s", "timeout": "3s", "maxAge": "30s",
	}
}

func chartCapacityPolicy() *capacity.Policy {
	return &capacity.Policy{
		Path: "/capacity", Method: "GET", Format: "Report", Samples: 10, Quorum: 2,
		Period: 10 * time.Second, Timeout: 3 * time.Second, MaxAge: 30 * time.Second,
	}
}

// withCapacity renders a document with routing on, no probe, the chart's observer and the
// given capacity block.
func withCapacity(block any) string {
	return routing(obj{"enabled": true, "observer": chartObserver(), "capacity": block})
}

var capacityAccepted = []parseCase{
	{name: "capacity: the chart's example",
		json: withCapacity(chartCapacity()),
		want: &Config{Routing: Routing{Enabled: true, Capacity: chartCapacityPolicy(), Observer: chartObserverConfig()}}},
	{name: "capacity: [] is no poll",
		json: withCapacity([]int{}),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}}},
	{name: "capacity: {} is no poll",
		json: withCapacity(obj{}),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}}},
	{name: "capacity: quorum 1 needs maxAge of one period only",
		json: withCapacity(with(chartCapacity(), "quorum", 1, "maxAge", "10s")),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig(), Capacity: func() *capacity.Policy {
			p := chartCapacityPolicy()
			p.Quorum, p.MaxAge = 1, 10*time.Second
			return p
		}()}}},
	{name: "capacity: samples at maxSamples, maxAge spanning exactly quorum periods",
		json: withCapacity(with(chartCapacity(), "samples", 10, "quorum", 3, "maxAge", "30s")),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig(), Capacity: func() *capacity.Policy {
			p := chartCapacityPolicy()
			p.Quorum = 3
			return p
		}()}}},
	{name: "capacity: a broken block is inert while routing is off",
		json: routing(obj{"capacity": obj{"path": "capacity", "period": "10"}, "observer": chartObserver()}),
		want: &Config{Routing: Routing{Observer: chartObserverConfig()}}},
}

var capacityRejected = []rejectCase{
	{"capacity: path without a slash", withCapacity(with(chartCapacity(), "path", "capacity")),
		[]string{`invalid multi-cluster configuration: routing.capacity.path "capacity" must begin with "/"`}},
	{"capacity: no method", withCapacity(with(chartCapacity(), "method", drop)),
		[]string{"invalid multi-cluster configuration: routing.capacity.method is required when routing.capacity.path is set"}},
	{"capacity: no format", withCapacity(with(chartCapacity(), "format", drop)),
		[]string{"invalid multi-cluster configuration: routing.capacity.format is required when routing.capacity.path is set"}},
	{"capacity: bad method", withCapacity(with(chartCapacity(), "method", "PUT")),
		[]string{`invalid multi-cluster configuration: routing.capacity.method "PUT" must be GET, HEAD, or POST`}},
	{"capacity: no period", withCapacity(with(chartCapacity(), "period", drop)),
		[]string{"invalid multi-cluster configuration: routing.capacity.period must be positive when routing.capacity.path is set"}},
	{"capacity: zero timeout", withCapacity(with(chartCapacity(), "timeout", "0s")),
		[]string{"invalid multi-cluster configuration: routing.capacity.timeout must be positive when routing.capacity.path is set"}},
	{"capacity: timeout equal to period", withCapacity(with(chartCapacity(), "timeout", "10s")),
		[]string{"invalid multi-cluster configuration: routing.capacity.timeout (10s) must be shorter than routing.capacity.period (10s)"}},
	{"capacity: no maxAge", withCapacity(with(chartCapacity(), "maxAge", drop)),
		[]string{"invalid multi-cluster configuration: routing.capacity.maxAge must be positive when routing.capacity.path is set"}},
	{"capacity: zero samples", withCapacity(with(chartCapacity(), "samples", 0)),
		[]string{"invalid multi-cluster configuration: routing.capacity.samples must be positive when routing.capacity.path is set"}},
	{"capacity: no quorum", withCapacity(with(chartCapacity(), "quorum", drop)),
		[]string{"invalid multi-cluster configuration: routing.capacity.quorum must be positive when routing.capacity.path is set"}},
	{"capacity: quorum over samples", withCapacity(with(chartCapacity(), "samples", 2, "quorum", 3, "maxAge", "30s")),
		[]string{"invalid multi-cluster configuration: routing.capacity.quorum (3) must not exceed routing.capacity.samples (2)"}},
	{"capacity: maxAge shorter than quorum periods", withCapacity(with(chartCapacity(), "quorum", 3, "maxAge", "20s")),
		[]string{"invalid multi-cluster configuration: routing.capacity.maxAge (20s) must span at least quorum (3) routing.capacity.period intervals"}},
	{"capacity: maxAge under period, quorum 1", withCapacity(with(chartCapacity(), "quorum", 1, "maxAge", "5s")),
		[]string{"invalid multi-cluster configuration: routing.capacity.maxAge (5s) must be at least routing.capacity.period (10s)"}},
	{"capacity: format in lower case", withCapacity(with(chartCapacity(), "format", "report")),
		[]string{`invalid multi-cluster configuration: routing.capacity.format "report" is not registered in this build (available: [Report])`}},
	{"capacity: options for Report", withCapacity(with(chartCapacity(), "options", obj{"b": "1", "a": "2"})),
		[]string{`invalid multi-cluster configuration: routing.capacity.options: format "Report" takes no options, got [a b]`}},
	{"capacity: period under minPeriod", withCapacity(with(chartCapacity(), "period", "500ms", "timeout", "100ms", "quorum", 1, "maxAge", "1s")),
		[]string{"invalid multi-cluster configuration: routing.capacity.period (500ms) must be at least routing.observer.minPeriod (1s)"}},
	{"capacity: samples over maxSamples", withCapacity(with(chartCapacity(), "samples", 11)),
		[]string{"invalid multi-cluster configuration: routing.capacity.samples (11) must not exceed routing.observer.maxSamples (10)"}},
	{"capacity: period not a duration", withCapacity(with(chartCapacity(), "period", "10")),
		[]string{`invalid multi-cluster configuration: routing.capacity.period: "10" is not a duration (use forms like "30s", "5m")`}},
	{"capacity: fields without the path", withCapacity(with(chartCapacity(), "path", drop)),
		[]string{"invalid multi-cluster configuration: routing.capacity.path is required when other routing.capacity fields are set (set: method, format, period, timeout, samples, quorum, maxAge)"}},
	{"capacity: disabled", withCapacity(obj{"disabled": true}),
		[]string{bad + "routing.capacity.disabled is not supported in the installation's poll: leave routing.capacity out for no poll"}},
	{"capacity: unknown key", withCapacity(with(chartCapacity(), "interval", "10s")),
		[]string{bad + `unknown field "routing.capacity.interval"`}},
	{"capacity: samples not a number", withCapacity(with(chartCapacity(), "samples", "10")),
		[]string{bad + `routing.capacity.samples: want a 32-bit integer, got "10"`}},
	{"capacity: every rule at once", withCapacity(obj{"path": "x", "method": "get", "format": "Rep", "period": "500ms",
		"timeout": "1s", "samples": 20, "quorum": 30, "maxAge": "100ms"}),
		[]string{
			inv + `routing.capacity.path "x" must begin with "/"`,
			inv + `routing.capacity.method "get" must be GET, HEAD, or POST`,
			inv + "routing.capacity.timeout (1s) must be shorter than routing.capacity.period (500ms)",
			inv + "routing.capacity.quorum (30) must not exceed routing.capacity.samples (20)",
			inv + "routing.capacity.maxAge (100ms) must be at least routing.capacity.period (500ms)",
			inv + "routing.capacity.maxAge (100ms) must span at least quorum (30) routing.capacity.period intervals",
			inv + `routing.capacity.format "Rep" is not registered in this build (available: [Report])`,
			inv + "routing.capacity.period (500ms) must be at least routing.observer.minPeriod (1s)",
			inv + "routing.capacity.samples (20) must not exceed routing.observer.maxSamples (10)",
		}},
	{"observer: zero maxSamples", enabled(nil, with(chartObserver(), "maxSamples", 0)),
		[]string{inv + "routing.observer.maxSamples must be positive, got 0"}},
}

// The capacity cases join the shared tables, so TestParseAccepts, TestParseRejects and the
// fuzz corpus cover them.
func init() {
	acceptedCases = append(acceptedCases, capacityAccepted...)
	rejectedCases = append(rejectedCases, capacityRejected...)
}
