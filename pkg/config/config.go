package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// Every error this package returns starts with one of these, so that one grep for
// "multi-cluster configuration" in the manager's log finds each problem.
const (
	// loadPrefix marks a file that cannot be read or decoded: bad JSON, an unknown key, a
	// value of the wrong type, or a probe without one of its string fields.
	loadPrefix = "load multi-cluster configuration: "
	// parsePrefix is loadPrefix for a decoding problem.
	parsePrefix = loadPrefix + "unable to parse multicluster config json: "
	// invalidPrefix marks a value that decodes but breaks a rule.
	invalidPrefix = "invalid multi-cluster configuration: "
)

// Config is the installation's multi-cluster settings: the JSON that the chart renders into
// the multicluster key of the inferenceservice-config ConfigMap.
type Config struct {
	Routing Routing
	// Placement holds the settings under placement.
	Placement Placement
	// Endpoint is where the publisher writes each TrafficMap. Its zero value publishes
	// nothing: every map is Withdrawn.
	Endpoint Endpoint
}

// Placement holds the settings under placement.
type Placement struct {
	// ObservationGrace is how long a home on a member the manager cannot read (its
	// WorkloadCluster ConnectionFailed) keeps its place in the map, at its last known
	// endpoint and capacity, with its probe alone deciding its traffic. Zero means unset:
	// Grace gives DefaultObservationGrace.
	ObservationGrace time.Duration
}

// DefaultObservationGrace is placement.observationGrace when it is unset, the chart's
// default. What blinds a control plane to a member while the member serves (its API
// server upgraded or restarted, a token rotated late, the network between the two cut)
// usually lasts minutes. The probe keeps testing the homes' data plane all along, so the
// grace bounds only how long the map trusts an endpoint and capacity it cannot re-read
// (a copy scaled or removed meanwhile), not how long it trusts their health.
const DefaultObservationGrace = 10 * time.Minute

// Grace is the observation grace in force.
func (p Placement) Grace() time.Duration {
	if p.ObservationGrace <= 0 {
		return DefaultObservationGrace
	}
	return p.ObservationGrace
}

// Routing holds the settings under routing.
type Routing struct {
	// Enabled turns multi-cluster routing on for the installation.
	Enabled bool
	// Probe is the installation's routing health probe, which applies to every routed
	// service that does not set its own; nil means no probe. It is validated, and kept, even
	// when Enabled is false.
	Probe *probe.Policy
	// Capacity is the installation's capacity poll, which applies to every routed service
	// that does not set its own; nil means none. It is validated only with routing on:
	// a block staged while routing is off is inert.
	Capacity *capacity.Policy
	// Failover is the installation's failover tiers, which apply to every routed service
	// that does not set spec.routing.failover; nil means none. It is validated, and kept,
	// even when Enabled is false.
	Failover *omev1beta1.RoutingFailover
	// Observer caps the outbound requests that probes and capacity polls make.
	Observer Observer
	// Publisher selects and paces the TrafficMap publisher.
	Publisher Publisher
	// TrafficSignal is where the global gateway's own counters are read (the passive
	// gate's readings); nil means no signal source. It is validated, and kept, even when
	// Enabled is false.
	TrafficSignal *trafficsignal.Settings
	// LoadBalancing is the installation's load balancing, which applies to every routed
	// service that does not set spec.routing.loadBalancing; nil means none. It needs the
	// traffic signal, whose interval its minInterval may not undercut.
	LoadBalancing *loadbalance.Policy
}

// Observer holds the settings under routing.observer. With routing on, the five limits are
// set and positive; with routing off, an unset limit is zero.
type Observer struct {
	// MaxConcurrentReconciles is the number of routing reconcile workers.
	MaxConcurrentReconciles int
	// MaxConcurrentRequests caps the observer requests underway at once, across every
	// routed service.
	MaxConcurrentRequests int64
	// MaxResponseBytes is how much of a response body the observer reads.
	MaxResponseBytes int64
	// MinPeriod is the shortest probe period allowed, for the installation's probe and for
	// every service's own.
	MinPeriod time.Duration
	// MaxPeriod and MaxTimeout are the longest probe period and timeout allowed, for the
	// installation's probe and for every service's own. A timeout bounds how long one
	// probe holds a shared slot, so one service cannot keep the slots for hours. Unset,
	// they are DefaultMaxPeriod and DefaultMaxTimeout: a missing key is not "unlimited".
	MaxPeriod  time.Duration
	MaxTimeout time.Duration
	// MaxSamples is the most readings a capacity poll may keep per home, for the
	// installation's poll and for every service's own.
	MaxSamples int32
	// RecordInterval, when positive, spares the control plane the writes of quiet probe
	// rounds: a round that changes nothing in a map but lastProbeTime is written only once
	// RecordInterval has passed since the map's last recorded probe. Any other change is
	// written at once. Zero (the default) writes every round, as the user guide describes.
	RecordInterval time.Duration

	// The observer's network guard. A probe's destination comes from a workload cluster's
	// status, which the control plane does not control, so the observer checks the address
	// it dials. Link-local addresses (169.254.0.0/16 and fe80::/10, where cloud metadata
	// services answer) are always refused, whatever these say; so are the other metadata
	// addresses, multicast, 0.0.0.0/8, :: and 240.0.0.0/4 (see pkg/observer).

	// AllowLoopback lets the observer dial loopback addresses (127.0.0.0/8 and ::1).
	// Default false; tests and the local demo, whose endpoints run on the manager's own
	// machine, set it.
	AllowLoopback bool
	// AllowPrivateNetworks lets the observer dial private addresses (10.0.0.0/8,
	// 172.16.0.0/12, 192.168.0.0/16, the shared 100.64.0.0/10 and fc00::/7). Default false:
	// a missing key must not open the control plane's own networks to a member's status.
	AllowPrivateNetworks bool
}

// The maxima a configuration without maxPeriod or maxTimeout gets; the chart's defaults.
const (
	DefaultMaxPeriod  = 5 * time.Minute
	DefaultMaxTimeout = 30 * time.Second
)

// Load reads the settings from the file at path, as Parse does. An empty file turns
// routing off; a file that does not exist is an error.
func Load(path string) (*Config, error) {
	// A missing file is an error, not "routing off": a mistyped path must not quietly
	// turn routing off. Leaving --multicluster-config unset is how to run without one.
	data, err := os.ReadFile(path) //nolint:gosec // the path is the operator's own --multicluster-config
	if err != nil {
		return nil, fmt.Errorf("%s%w", loadPrefix, err)
	}
	return Parse(data)
}

// Parse decodes data strictly and validates it. An empty document, or {}, turns routing off.
// Decoding problems (bad JSON, unknown or repeated keys, wrong types, a probe without one of
// its string fields) are reported first, all of them, and stop there; otherwise every rule
// that the values break is reported. The returned error joins one error per problem, so its
// text has one line per problem, each starting with "load multi-cluster configuration: " or
// "invalid multi-cluster configuration: ".
func Parse(data []byte) (*Config, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	raw, errs := decode(data)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cfg, errs := validate(raw)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}
