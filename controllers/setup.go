package controllers

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// Options wire the controllers to the installation's settings.
type Options struct {
	// RoutingEnabled is the installation's routing.enabled.
	RoutingEnabled bool
	// InstallationProbe is the installation's probe, nil when it sets none.
	InstallationProbe *probe.Policy
	// Limits are what a service's probe must respect (routing.observer.minPeriod).
	Limits probe.Limits
	// Observer is the one HTTP client every probe goes through.
	Observer *observer.Observer
	// MaxProbesInFlight caps the probes dispatched at once: routing.observer.maxConcurrentRequests.
	MaxProbesInFlight int
	// RoutingWorkers is routing.observer.maxConcurrentReconciles.
	RoutingWorkers int
	// MemberTimeout bounds every call to a workload cluster's API server.
	MemberTimeout time.Duration
	// MemberHealthInterval is how often each member's /version is checked.
	MemberHealthInterval time.Duration
	// MemberGrace is how long a Reachable member may fail before it turns ConnectionFailed.
	MemberGrace time.Duration
	// FieldManager names the routing writes in managedFields; empty means FieldManager.
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

// Setup adds the WorkloadCluster controller, the routing controller and the prober to
// the manager.
func Setup(mgr ctrl.Manager, opts Options) error {
	members := NewMembers(mgr.GetScheme(), opts.MemberTimeout)
	prober := NewProber(opts.Observer, opts.MaxProbesInFlight)
	if err := mgr.Add(members); err != nil {
		return err
	}
	if err := mgr.Add(prober); err != nil {
		return err
	}
	if err := (&WorkloadClusterReconciler{
		Client:         mgr.GetClient(),
		Members:        members,
		HealthInterval: opts.MemberHealthInterval,
		Grace:          opts.MemberGrace,
	}).SetupWithManager(mgr, memberWorkers); err != nil {
		return err
	}
	return (&RoutingReconciler{
		Client:            mgr.GetClient(),
		APIReader:         mgr.GetAPIReader(),
		FieldManager:      opts.FieldManager,
		Recorder:          mgr.GetEventRecorder("ome-routing"),
		Members:           members,
		Prober:            prober,
		Enabled:           opts.RoutingEnabled,
		InstallationProbe: opts.InstallationProbe,
		Limits:            opts.Limits,
	}).SetupWithManager(mgr, max(opts.RoutingWorkers, 1))
}
