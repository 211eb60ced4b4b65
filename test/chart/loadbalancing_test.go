package chart

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/config"
)

// The shipped vLLM and SGLang load queries, with the HAProxy traffic signal and a
// loadBalancing block, render a configuration the manager accepts; the chart refuses a
// loadBalancing the manager would refuse, in the manager's words.
func TestLoadBalancingValues(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	samples := filepath.Join(repoRoot(t), "config", "samples", "trafficsignal")
	routing := []string{"--set", "ome.multicluster.enabled=true", "--set", "ome.multicluster.role=control-plane",
		"--set", "ome.multicluster.config.routing.enabled=true",
		"--set", "ome.multicluster.config.routing.trafficSignal.prometheus.url=http://prometheus.monitoring:9090",
		"-f", filepath.Join(samples, "haproxy-values.yaml")}
	load := []string{"--set", "ome.multicluster.config.routing.loadBalancing.mode=Shadow",
		"--set", "ome.multicluster.config.routing.loadBalancing.cacheUsePercent=80"}
	for _, file := range []string{"vllm-load-values.yaml", "sglang-load-values.yaml"} {
		r := render(t, "", append(append(routing, "-f", filepath.Join(samples, file)), load...)...)
		cfg, err := config.Parse([]byte(r.multiclusterJSON(t)))
		if err != nil {
			t.Fatalf("%s: the manager refuses it: %v", file, err)
		}
		waiting, cacheUse := cfg.Routing.TrafficSignal.LoadQueries()
		if waiting == "" || cacheUse == "" || cfg.Routing.TrafficSignal.Waiting == nil || cfg.Routing.TrafficSignal.CacheUse == nil {
			t.Errorf("%s: load queries %q %q", file, waiting, cacheUse)
		}
		if p := cfg.Routing.LoadBalancing; p == nil || p.Mode != "Shadow" || p.CacheUsePercent != 80 || p.MinInterval != 30*time.Second {
			t.Errorf("%s: load balancing %+v", file, p)
		}
	}

	refusals := map[string][]string{
		"routing.loadBalancing needs the installation's routing.trafficSignal, which reads the model servers' load: it is not set": {
			"--set", "ome.multicluster.enabled=true", "--set", "ome.multicluster.role=control-plane",
			"--set", "ome.multicluster.config.routing.enabled=true",
			"--set", "ome.multicluster.config.routing.loadBalancing.mode=Enforce",
			"--set", "ome.multicluster.config.routing.loadBalancing.waitingPerReplica=4"},
		"routing.loadBalancing.minInterval (2s) must be at least routing.trafficSignal.interval (5s): a share may not move faster than the signal that moves it": append(
			append([]string{}, routing...), "--set", "ome.multicluster.config.routing.loadBalancing.mode=Enforce",
			"--set", "ome.multicluster.config.routing.loadBalancing.waitingPerReplica=4",
			"--set", "ome.multicluster.config.routing.loadBalancing.minInterval=2s"),
		"loadBalancing": append(append([]string{}, routing...), "--set", "ome.multicluster.config.routing.loadBalancing.floorPercent=5"),
	}
	for want, args := range refusals {
		if msg := renderError(t, "", args...); !strings.Contains(msg, want) {
			t.Errorf("got %q, want it to say %q", msg, want)
		}
	}
}
