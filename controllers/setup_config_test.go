package controllers

import (
	"fmt"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/config"
)

// Every routing setting the manager reads (the observer's, the probe, failover) reaches the
// controllers' options and the observer's, with values unlike any default, so a setting
// wired in one binary but not the other (the demo's in-process manager once dropped
// recordInterval) shows here.
func TestOptionsFor(t *testing.T) {
	cfg, err := config.Parse([]byte(`{"routing": {"enabled": true,
  "probe": {"path": "/v1/models", "method": "GET", "acceptStatuses": [200], "gateStatuses": [503], "period": "10s", "timeout": "3s", "failureThreshold": 3, "successThreshold": 2, "allFailedPolicy": "Drain"},
  "observer": {"maxConcurrentReconciles": 7, "maxConcurrentRequests": 19, "maxResponseBytes": 4097, "minPeriod": "3s", "maxPeriod": "3m", "maxTimeout": "17s",
    "maxSamples": 6, "recordInterval": "41s", "allowLoopback": true, "allowPrivateNetworks": true},
  "failover": {"tiers": [{"name": "onprem", "clusters": ["a"]}], "overprovisioningPercent": 130},
  "trafficSignal": {"prometheus": {"url": "http://prom:9090"}, "interval": "7s", "window": "33s",
    "queries": {"requests": "sum(r{ns=\"{{.Namespace}}\"})", "failures": "sum(f{ns=\"{{.Namespace}}\"})"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	opts := OptionsFor(cfg, "ome-system", nil)
	checks := []struct {
		field     string
		got, want any
	}{
		{"SecretNamespace", opts.SecretNamespace, "ome-system"},
		{"RoutingEnabled", opts.RoutingEnabled, true},
		{"InstallationProbe.Period", opts.InstallationProbe.Period, 10 * time.Second},
		{"Limits.MinPeriod", opts.Limits.MinPeriod, 3 * time.Second},
		{"Limits.MaxPeriod", opts.Limits.MaxPeriod, 3 * time.Minute},
		{"Limits.MaxTimeout", opts.Limits.MaxTimeout, 17 * time.Second},
		{"CapacityLimits.MinPeriod", opts.CapacityLimits.MinPeriod, 3 * time.Second},
		{"CapacityLimits.MaxSamples", opts.CapacityLimits.MaxSamples, 6},
		{"InstallationFailover.Tiers[0].Name", opts.InstallationFailover.Tiers[0].Name, "onprem"},
		{"InstallationFailover.OverprovisioningPercent", *opts.InstallationFailover.OverprovisioningPercent, 130},
		{"TrafficSignal.URL", opts.TrafficSignal.URL, "http://prom:9090"},
		{"TrafficSignal.Interval", opts.TrafficSignal.Interval, 7 * time.Second},
		{"TrafficSignal.Window", opts.TrafficSignal.Window, 33 * time.Second},
		{"RoutingWorkers", opts.RoutingWorkers, 7},
		{"MaxProbesInFlight", opts.MaxProbesInFlight, 19},
		{"RecordInterval", opts.RecordInterval, 41 * time.Second},
		{"MemberGrace", opts.MemberGrace, DefaultMemberTimings.MemberGrace},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
		}
	}
	oo := ObserverOptions(cfg.Routing.Observer)
	if oo.MaxConcurrentRequests != 19 || oo.MaxResponseBytes != 4097 || !oo.AllowLoopback || !oo.AllowPrivateNetworks {
		t.Errorf("observer options %+v, want 19 requests, 4097 bytes, loopback and private networks allowed", oo)
	}
}
