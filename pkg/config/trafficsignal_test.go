package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/trafficsignal"
)

func signalBlock() obj {
	return obj{
		"prometheus": obj{"url": "http://127.0.0.1:9090", "timeout": "1s", "bearerTokenSecret": obj{"name": "prom", "key": "token"}},
		"interval":   "2s",
		"window":     "10s",
		"queries": obj{
			"requests": `sum(increase(r{ns="{{.Namespace}}"}[{{.Window}}]))`,
			"failures": `sum(increase(f{ns="{{.Namespace}}"}[{{.Window}}]))`,
		},
	}
}

func parseSignal(t *testing.T, signal any) (*Config, error) {
	t.Helper()
	data, err := json.Marshal(obj{"routing": obj{"enabled": true, "observer": chartObserver(), "trafficSignal": signal}})
	if err != nil {
		t.Fatal(err)
	}
	return Parse(data)
}

func TestTrafficSignalDecodes(t *testing.T) {
	cfg, err := parseSignal(t, signalBlock())
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Routing.TrafficSignal
	if s == nil || s.URL != "http://127.0.0.1:9090" || s.Timeout != time.Second || s.Interval != 2*time.Second ||
		s.Window != 10*time.Second || s.TokenFile != trafficsignal.TokenMountPath {
		t.Fatalf("got %+v", s)
	}
	for _, none := range []any{nil, obj{}} {
		if cfg, err := parseSignal(t, none); err != nil || cfg.Routing.TrafficSignal != nil {
			t.Fatalf("%v: got %+v, %v; want no signal source", none, cfg, err)
		}
	}
}

func TestTrafficSignalRefusals(t *testing.T) {
	cases := map[string]struct {
		signal obj
		want   []string
	}{
		"unknown key": {with(signalBlock(), "step", "1s"),
			[]string{`load multi-cluster configuration: unable to parse multicluster config json: unknown field "routing.trafficSignal.step"`}},
		"unknown prometheus key": {with(signalBlock(), "prometheus", obj{"url": "http://p", "user": "x"}),
			[]string{`unknown field "routing.trafficSignal.prometheus.user"`}},
		"query not a string": {with(signalBlock(), "queries", obj{"requests": 1, "failures": "x"}),
			[]string{"routing.trafficSignal.queries.requests: want a string, got 1"}},
		"bad duration and the rules on it left out": {with(signalBlock(), "interval", "soon"),
			[]string{`invalid multi-cluster configuration: routing.trafficSignal.interval: "soon" is not a duration (use forms like "30s", "5m")`}},
		"rules": {with(signalBlock(), "window", "1s", "prometheus", obj{"url": "ftp://p", "timeout": "1s"}),
			[]string{
				`invalid multi-cluster configuration: routing.trafficSignal.prometheus.url must be an http or https URL, got "ftp://p"`,
				"invalid multi-cluster configuration: routing.trafficSignal.window (1s) must be at least routing.trafficSignal.interval (2s): each reading covers the time since the one before",
			}},
		"interval under minPeriod": {with(signalBlock(), "interval", "500ms", "window", "30s", "prometheus", obj{"url": "http://p", "timeout": "100ms"}),
			[]string{"routing.trafficSignal.interval (500ms) must be at least routing.observer.minPeriod (1s)"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parseSignal(t, c.signal)
			if err == nil {
				t.Fatal("accepted")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(c.want) {
				t.Fatalf("got %d lines, want %d:\n%v", len(lines), len(c.want), err)
			}
			for i, w := range c.want {
				if !strings.HasSuffix(lines[i], w) {
					t.Errorf("line %d: got %q, want it to end %q", i, lines[i], w)
				}
			}
		})
	}
}
