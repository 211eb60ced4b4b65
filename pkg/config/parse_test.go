package config

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/probe"
)

type parseCase struct {
	name string
	json string
	want *Config // for a document that parses
}

// acceptedCases are documents that parse; rejectedCases (errors_test.go) those that do
// not. FuzzParse seeds its corpus with both.
var acceptedCases = []parseCase{
	{
		name: "user guide step 1",
		json: enabled(step1Probe(), chartObserver()),
		want: &Config{Routing: Routing{Enabled: true, Probe: step1Policy(), Observer: chartObserverConfig()}},
	},
	{
		name: "user guide step 1, as written in the issue",
		json: `{"routing": {"enabled": true,
  "probe": {"path": "/v1/models", "method": "GET", "acceptStatuses": [200], "gateStatuses": [404,500,502,503,504], "period": "10s", "timeout": "3s", "failureThreshold": 3, "successThreshold": 2, "allFailedPolicy": "PreserveTraffic"},
  "observer": {"maxConcurrentReconciles": 8, "maxConcurrentRequests": 16, "maxResponseBytes": 65536, "minPeriod": "1s", "maxSamples": 10, "allowLoopback": false, "allowPrivateNetworks": true}}}`,
		want: &Config{Routing: Routing{Enabled: true, Probe: step1Policy(), Observer: func() Observer {
			o := chartObserverConfig()
			o.AllowPrivateNetworks = true
			return o
		}()}},
	},
	{name: "empty document", json: "", want: routingOff()},
	{name: "blank document", json: " \n\t", want: routingOff()},
	{name: "empty object", json: "{}", want: routingOff()},
	{name: "null", json: "null", want: routingOff()},
	{name: "empty routing", json: `{"routing": {}}`, want: routingOff()},
	{name: "null routing", json: `{"routing": null}`, want: routingOff()},
	{
		name: "chart default: routing off, probe [], observer defaults",
		json: routing(obj{"enabled": false, "probe": []int{}, "observer": chartObserver()}),
		want: &Config{Routing: Routing{Observer: chartObserverConfig()}},
	},
	{
		name: "probe []",
		json: enabled([]int{}, chartObserver()),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}},
	},
	{
		name: "probe {}",
		json: enabled(obj{}, chartObserver()),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}},
	},
	{
		name: "probe absent",
		json: enabled(nil, chartObserver()),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}},
	},
	{
		name: "probe null",
		json: `{"routing": {"enabled": true, "probe": null, "observer": ` + mustJSON(chartObserver()) + `}}`,
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}},
	},
	{
		name: "probe whose fields are all null",
		json: enabled(obj{"path": nil, "period": nil}, chartObserver()),
		want: &Config{Routing: Routing{Enabled: true, Observer: chartObserverConfig()}},
	},
	{
		name: "routing off: the observer limits may be left out, the probe is kept",
		json: routing(obj{"probe": step1Probe()}),
		want: &Config{Routing: Routing{Probe: step1Policy(), Observer: defaultMaxima()}},
	},
	{
		name: "probe at the maxima",
		json: enabled(with(step1Probe(), "period", "2m", "timeout", "10s"), with(chartObserver(), "maxPeriod", "2m", "maxTimeout", "10s")),
		want: &Config{Routing: Routing{Enabled: true,
			Probe: func() *probe.Policy {
				p := step1Policy()
				p.Period, p.Timeout = 2*time.Minute, 10*time.Second
				return p
			}(),
			Observer: func() Observer {
				o := chartObserverConfig()
				o.MaxPeriod, o.MaxTimeout = 2*time.Minute, 10*time.Second
				return o
			}(),
		}},
	},
	{
		name: "network guard options",
		json: enabled(nil, with(chartObserver(), "allowLoopback", true, "allowPrivateNetworks", true)),
		want: &Config{Routing: Routing{Enabled: true, Observer: func() Observer {
			o := chartObserverConfig()
			o.AllowLoopback, o.AllowPrivateNetworks = true, true
			return o
		}()}},
	},
	{
		name: "observationGrace",
		json: `{"placement": {"observationGrace": "90s"}}`,
		want: &Config{Routing: Routing{Observer: Observer{MaxPeriod: DefaultMaxPeriod, MaxTimeout: DefaultMaxTimeout}},
			Placement: Placement{ObservationGrace: 90 * time.Second}},
	},
	{
		name: "recordInterval",
		json: enabled(nil, with(chartObserver(), "recordInterval", "1m40s")),
		want: &Config{Routing: Routing{Enabled: true, Observer: func() Observer {
			o := chartObserverConfig()
			o.RecordInterval = 100 * time.Second
			return o
		}()}},
	},
	{
		// A missing key opens nothing: neither loopback nor the private networks.
		name: "network guard defaults",
		json: enabled(nil, with(chartObserver(), "allowLoopback", drop, "allowPrivateNetworks", drop)),
		want: &Config{Routing: Routing{Enabled: true, Observer: func() Observer {
			o := chartObserverConfig()
			o.AllowLoopback, o.AllowPrivateNetworks = false, false
			return o
		}()}},
	},
	{
		name: "compound durations, period at the floor",
		json: enabled(with(step1Probe(), "period", "1m30s", "timeout", "1.5s"), with(chartObserver(), "minPeriod", "1m30s")),
		want: &Config{Routing: Routing{Enabled: true,
			Probe: func() *probe.Policy {
				p := step1Policy()
				p.Period, p.Timeout = 90*time.Second, 1500*time.Millisecond
				return p
			}(),
			Observer: func() Observer {
				o := chartObserverConfig()
				o.MinPeriod = 90 * time.Second
				return o
			}(),
		}},
	},
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range acceptedCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.json))
			if err != nil {
				t.Fatalf("Parse() error:\n%v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse() =\n%s\nwant\n%s", describe(got), describe(tc.want))
			}
		})
	}
}

// describe prints a Config with its probe, which %+v would show as an address.
func describe(c *Config) string {
	r := c.Routing
	var probe, capacity any = r.Probe, r.Capacity
	if r.Probe != nil {
		probe = *r.Probe
	}
	if r.Capacity != nil {
		capacity = *r.Capacity
	}
	return fmt.Sprintf("{Enabled:%v Probe:%+v Capacity:%+v Observer:%+v}", r.Enabled, probe, capacity, r.Observer)
}

// An unset observationGrace is the default; a set one is itself.
func TestObservationGrace(t *testing.T) {
	if g := (Placement{}).Grace(); g != DefaultObservationGrace {
		t.Errorf("unset: Grace() = %v, want %v", g, DefaultObservationGrace)
	}
	if g := (Placement{ObservationGrace: time.Minute}).Grace(); g != time.Minute {
		t.Errorf("set: Grace() = %v, want 1m", g)
	}
}
