package controllers

import (
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// ObserverOptions are the shared HTTP client's options from the installation's
// routing.observer block. Metrics and Hosts are the caller's (the manager registers the
// metrics; the demo and the tests resolve their own names).
func ObserverOptions(o config.Observer) observer.Options {
	return observer.Options{
		MaxConcurrentRequests: o.MaxConcurrentRequests,
		MaxResponseBytes:      o.MaxResponseBytes,
		AllowLoopback:         o.AllowLoopback,
		AllowPrivateNetworks:  o.AllowPrivateNetworks,
	}
}

// OptionsFor are the controllers' options for the installation's settings, as the manager
// runs them: the member timings are DefaultMemberTimings, Secrets are read from
// secretNamespace, and every probe goes through obs. cmd/manager and the demo's in-process
// manager both start from it, so a setting is wired once.
func OptionsFor(cfg *config.Config, secretNamespace string, obs *observer.Observer) Options {
	r := cfg.Routing
	opts := DefaultMemberTimings
	opts.SecretNamespace = secretNamespace
	opts.RoutingEnabled = r.Enabled
	opts.InstallationProbe = r.Probe
	opts.Limits = probe.Limits{MinPeriod: r.Observer.MinPeriod, MaxPeriod: r.Observer.MaxPeriod, MaxTimeout: r.Observer.MaxTimeout}
	opts.InstallationCapacity = r.Capacity
	opts.InstallationFailover = r.Failover
	opts.TrafficSignal = r.TrafficSignal
	opts.InstallationLoadBalancing = r.LoadBalancing
	opts.CapacityLimits = capacity.Limits{MinPeriod: r.Observer.MinPeriod, MaxSamples: r.Observer.MaxSamples}
	opts.Observer = obs
	opts.RoutingWorkers = r.Observer.MaxConcurrentReconciles
	opts.RecordInterval = r.Observer.RecordInterval
	opts.ObservationGrace = cfg.Placement.Grace()
	opts.MaxProbesInFlight = int(r.Observer.MaxConcurrentRequests)
	opts.Endpoint, opts.Publisher = cfg.Endpoint, r.Publisher
	return opts
}
