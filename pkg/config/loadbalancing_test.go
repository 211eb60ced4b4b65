package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func parseLoad(t *testing.T, signal, load any) (*Config, error) {
	t.Helper()
	routing := obj{"enabled": true, "observer": chartObserver(), "loadBalancing": load}
	if signal != nil {
		routing["trafficSignal"] = signal
	}
	data, err := json.Marshal(obj{"routing": routing})
	if err != nil {
		t.Fatal(err)
	}
	return Parse(data)
}

func TestLoadBalancingDecodesWithItsDefaults(t *testing.T) {
	cfg, err := parseLoad(t, signalBlock(), obj{"mode": "Enforce", "cacheUsePercent": 80})
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Routing.LoadBalancing
	if p == nil || p.Mode != "Enforce" || p.CacheUsePercent != 80 || p.MinInterval != 30*time.Second || p.MaxStepPercent != 25 ||
		p.HysteresisPercent != 20 || p.FloorPercent != 10 {
		t.Fatalf("got %+v", p)
	}
	for _, none := range []any{nil, obj{}} {
		if cfg, err := parseLoad(t, signalBlock(), none); err != nil || cfg.Routing.LoadBalancing != nil {
			t.Fatalf("%v: got %+v, %v; want no load balancing", none, cfg, err)
		}
	}
}

func TestLoadBalancingRefusals(t *testing.T) {
	cases := map[string]struct {
		signal, load any
		want         string
	}{
		"without a traffic signal": {nil, obj{"mode": "Enforce", "waitingPerReplica": 4},
			"routing.loadBalancing needs the installation's routing.trafficSignal, which reads the model servers' load: it is not set"},
		"faster than the signal": {signalBlock(), obj{"mode": "Shadow", "waitingPerReplica": 4, "minInterval": "1s"},
			"routing.loadBalancing.minInterval (1s) must be at least routing.trafficSignal.interval (2s): a share may not move faster than the signal that moves it"},
		"no target": {signalBlock(), obj{"mode": "Shadow"},
			"routing.loadBalancing must set waitingPerReplica, cacheUsePercent, or both"},
		"a mode the API does not have": {signalBlock(), obj{"mode": "enforce", "cacheUsePercent": 80},
			`routing.loadBalancing.mode must be Shadow or Enforce, got "enforce"`},
		"disabled": {signalBlock(), obj{"disabled": true},
			"routing.loadBalancing.disabled is not supported in the installation's loadBalancing: leave routing.loadBalancing out for none"},
		"an unknown key": {signalBlock(), obj{"mode": "Shadow", "cacheUsePercent": 80, "target": 1},
			`unknown field "routing.loadBalancing.target"`},
		"a bad duration": {signalBlock(), obj{"mode": "Shadow", "cacheUsePercent": 80, "minInterval": "soon"},
			`routing.loadBalancing.minInterval: "soon" is not a duration`},
	}
	for name, c := range cases {
		_, err := parseLoad(t, c.signal, c.load)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", name, err, c.want)
		}
	}
}
