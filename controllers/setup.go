package controllers

import (
	"errors"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/controllers/publisher"
	"github.com/ome-routing/operator/controllers/recorder"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// Options wire the controllers to the installation's settings.
type Options struct {
	// RoutingEnabled is the installation's routing.enabled.
	RoutingEnabled bool
	// InstallationProbe is the installation's probe, nil when it sets none.
	InstallationProbe *probe.Policy
	// Limits are what a service's probe must respect (routing.observer.minPeriod).
	Limits probe.Limits
	// InstallationCapacity is the installation's capacity poll, nil when it sets none.
	InstallationCapacity *capacity.Policy
	// InstallationFailover is the installation's routing.failover, validated; nil when it
	// sets none.
	InstallationFailover *omev1beta1.RoutingFailover
	// CapacityLimits are what a service's capacity poll must respect
	// (routing.observer.minPeriod and maxSamples).
	CapacityLimits capacity.Limits
	// Observer is the one HTTP client every probe goes through.
	Observer *observer.Observer
	// MaxProbesInFlight caps the probes dispatched at once: routing.observer.maxConcurrentRequests.
	MaxProbesInFlight int
	// RoutingWorkers is routing.observer.maxConcurrentReconciles.
	RoutingWorkers int
	// RecordInterval is routing.observer.recordInterval: how long a map's quiet probe
	// rounds (only lastProbeTime moved) may go unwritten. Zero writes every round.
	RecordInterval time.Duration
	// SecretNamespace is the operator's own namespace: WorkloadCluster kubeconfig Secrets
	// are read only from it. The manager's cache must hold Secrets from it alone; see
	// CacheOptions.
	SecretNamespace string
	// MemberTimeout bounds every call to a workload cluster's API server.
	MemberTimeout time.Duration
	// MemberHealthInterval is how often each member's /version is checked.
	MemberHealthInterval time.Duration
	// MemberGrace is how long a Reachable member may fail before it turns ConnectionFailed.
	MemberGrace time.Duration
	// Exec says which exec credential plugins a member's kubeconfig may run; the zero
	// value, none.
	Exec workloadcluster.ExecPolicy
	// ClusterProfiles is where WorkloadClusters' ClusterProfiles are read from and the
	// access providers they may name; the zero value reads none. The manager's cache must
	// hold ClusterProfiles of that namespace alone; see CacheOptions.
	ClusterProfiles workloadcluster.ClusterProfiles
	// ObservationGrace is placement.observationGrace: how long the homes on a member that
	// turned ConnectionFailed keep their entries, their probe alone deciding their traffic.
	ObservationGrace time.Duration
	// TrafficSignal is routing.trafficSignal, nil without a signal source.
	TrafficSignal *trafficsignal.Settings
	// InstallationLoadBalancing is routing.loadBalancing, validated; nil when it sets none.
	InstallationLoadBalancing *loadbalance.Policy
	// Endpoint and Publisher are the publisher's settings: where it writes each map.
	Endpoint  config.Endpoint
	Publisher config.Publisher
	// GatewayAPIRecheck is how often a manager started without the Gateway API CRDs looks
	// for them; zero means every 10 seconds.
	GatewayAPIRecheck time.Duration
	// FieldManager names the routing writes in managedFields; empty means
	// routing.FieldManager.
	FieldManager string
}

// DefaultMemberTimings are the member connection timings the manager uses.
var DefaultMemberTimings = Options{
	MemberTimeout:        5 * time.Second,
	MemberHealthInterval: 15 * time.Second,
	MemberGrace:          30 * time.Second,
}

// memberWorkers lets several members connect at once, so a member that stops answering
// holds up only its own worker while it times out.
const memberWorkers = 4

// CacheOptions limit the manager's cache of Secrets to the operator's namespace and of
// ClusterProfiles to profileNamespace (when set), so that the manager neither needs nor
// holds the rights to either anywhere else, and its cache of Services to the publisher's
// backends.
func CacheOptions(secretNamespace, profileNamespace string) cache.Options {
	byObject := publisher.CacheByObject()
	byObject[&corev1.Secret{}] = cache.ByObject{Namespaces: map[string]cache.Config{secretNamespace: {}}}
	if profileNamespace != "" {
		byObject[&v1alpha1.ClusterProfile{}] = cache.ByObject{Namespaces: map[string]cache.Config{profileNamespace: {}}}
	}
	return cache.Options{ByObject: byObject}
}

// Setup adds the WorkloadCluster controller, the routing controller, the prober, the
// capacity poller, the traffic signal's poller (when routing.trafficSignal is set) and the
// publisher to the manager.
func Setup(mgr ctrl.Manager, opts Options) error {
	if opts.SecretNamespace == "" {
		return errors.New("controllers: SecretNamespace must be set")
	}
	members := workloadcluster.NewMembers(mgr.GetScheme(), opts.MemberTimeout, opts.Observer)
	prober := probing.NewProber(opts.Observer, opts.MaxProbesInFlight)
	poller := probing.NewPoller(opts.Observer, opts.MaxProbesInFlight)
	signal := probing.NewSignalPoller(opts.Observer, opts.TrafficSignal, opts.MaxProbesInFlight)
	load := probing.NewLoadPoller(opts.Observer, opts.TrafficSignal, opts.MaxProbesInFlight)
	if err := mgr.Add(members); err != nil {
		return err
	}
	if opts.TrafficSignal != nil {
		if err := mgr.Add(signal); err != nil {
			return err
		}
		if err := mgr.Add(load); err != nil {
			return err
		}
	}
	if err := mgr.Add(prober); err != nil {
		return err
	}
	if err := mgr.Add(poller); err != nil {
		return err
	}
	if err := (&workloadcluster.Reconciler{
		Client:          mgr.GetClient(),
		Members:         members,
		SecretNamespace: opts.SecretNamespace,
		HealthInterval:  opts.MemberHealthInterval,
		Grace:           opts.MemberGrace,
		Exec:            opts.Exec,
		Profiles:        opts.ClusterProfiles,
	}).SetupWithManager(mgr, memberWorkers); err != nil {
		return err
	}
	if err := publisher.Setup(mgr, publisherOptions(opts, members)); err != nil {
		return err
	}
	events, err := routing.NewEventRecorder(mgr)
	if err != nil {
		return err
	}
	return (&routing.Reconciler{
		Client:                    mgr.GetClient(),
		APIReader:                 mgr.GetAPIReader(),
		FieldManager:              opts.FieldManager,
		Recorder:                  events,
		Members:                   members,
		Prober:                    prober,
		Poller:                    poller,
		Signal:                    signal,
		Load:                      load,
		InstallationLoadBalancing: opts.InstallationLoadBalancing,
		RouteNamespace:            opts.Endpoint.RouteNamespace,
		RoutingEnabled:            opts.RoutingEnabled,
		InstallationProbe:         opts.InstallationProbe,
		InstallationFailover:      opts.InstallationFailover,
		Limits:                    opts.Limits,
		Capacity:                  opts.InstallationCapacity,
		CapacityLimits:            opts.CapacityLimits,
		RecordInterval:            opts.RecordInterval,
		ObservationGrace:          opts.ObservationGrace,
		BackendPort:               routeBackendPort(opts.Endpoint),
	}).SetupWithManager(mgr, max(opts.RoutingWorkers, 1))
}

// routeBackendPort is the port the global routes send to, 0 when no route is published
// (no global gateway: the publisher withdraws every map).
func routeBackendPort(ep config.Endpoint) int32 {
	if ep.GlobalGateway == "" {
		return 0
	}
	return ep.BackendPort
}

// SetupPublisher registers the publisher alone (Setup registers it with the rest); see
// publisher.Setup.
func SetupPublisher(mgr ctrl.Manager, opts Options) error {
	return publisher.Setup(mgr, publisherOptions(opts, nil))
}

// publisherOptions are the publisher's share of opts, with the member connections, which
// the EndpointSlice fallback reads the workload clusters' Gateways through; nil when the
// publisher runs alone.
func publisherOptions(opts Options, members *workloadcluster.Members) publisher.Options {
	po := publisher.Options{
		RoutingEnabled:    opts.RoutingEnabled,
		Endpoint:          opts.Endpoint,
		Publisher:         opts.Publisher,
		Observer:          opts.Observer,
		GatewayAPIRecheck: opts.GatewayAPIRecheck,
	}
	if members != nil {
		po.Members = members // not a typed nil in the interface
	}
	return po
}

// RegisterMetrics registers the routing, prober, member, publisher and event recorder
// metrics with reg.
func RegisterMetrics(reg prometheus.Registerer) error {
	for _, c := range slices.Concat(routing.Collectors(), probing.Collectors(), workloadcluster.Collectors(), publisher.Collectors(), recorder.Collectors()) {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
