package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/probecases"
)

// obj is a JSON object under construction.
type obj = map[string]any

// drop, as a value in with, removes the key.
var drop = &struct{}{}

// with returns a copy of base with the key/value pairs in kv set, or removed for drop.
func with(base obj, kv ...any) obj {
	out := obj{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == drop {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

// step1Probe is the probe of the user guide's Step 1.
func step1Probe() obj { return probecases.Step1() }

// chartObserver is the chart's default observer block.
func chartObserver() obj {
	return obj{
		"maxConcurrentReconciles": 8,
		"maxConcurrentRequests":   16,
		"maxResponseBytes":        65536,
		"minPeriod":               "1s",
		"maxPeriod":               "5m",
		"maxTimeout":              "30s",
		"maxSamples":              10,
		"allowLoopback":           false,
		"allowPrivateNetworks":    false,
	}
}

// routing renders a document with the given routing block.
func routing(block obj) string {
	return mustJSON(obj{"routing": block})
}

// enabled renders a document with routing on and the given probe and observer blocks; a
// nil block is left out.
func enabled(probeBlock any, observer obj) string {
	block := obj{"enabled": true}
	if probeBlock != nil {
		block["probe"] = probeBlock
	}
	if observer != nil {
		block["observer"] = observer
	}
	return routing(block)
}

func mustJSON(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(out)
}

func step1Policy() *probe.Policy {
	return &probe.Policy{
		Path:             "/v1/models",
		Method:           "GET",
		AcceptStatuses:   []int32{200},
		GateStatuses:     []int32{404, 500, 502, 503, 504},
		Period:           10 * time.Second,
		Timeout:          3 * time.Second,
		FailureThreshold: 3,
		SuccessThreshold: 2,
		AllFailedPolicy:  v1beta1.AllFailedPreserveTraffic,
	}
}

func chartObserverConfig() Observer {
	return Observer{
		MaxConcurrentReconciles: 8,
		MaxConcurrentRequests:   16,
		MaxResponseBytes:        65536,
		MinPeriod:               time.Second,
		MaxPeriod:               5 * time.Minute,
		MaxTimeout:              30 * time.Second,
		MaxSamples:              10,
	}
}

// routingOff is what a document that turns nothing on gives.
func routingOff() *Config {
	return &Config{Routing: Routing{Observer: defaultMaxima()}}
}

// defaultMaxima is the observer of a document that sets none of its limits.
func defaultMaxima() Observer {
	return Observer{MaxPeriod: DefaultMaxPeriod, MaxTimeout: DefaultMaxTimeout}
}

// errorLines splits a joined error into its problems and checks that each one carries a
// prefix that a grep for "multi-cluster configuration" finds.
func errorLines(t testing.TB, err error) []string {
	t.Helper()
	lines := strings.Split(err.Error(), "\n")
	for _, line := range lines {
		if !strings.HasPrefix(line, loadPrefix) && !strings.HasPrefix(line, invalidPrefix) {
			t.Errorf("error line %q has neither prefix", line)
		}
	}
	return lines
}
