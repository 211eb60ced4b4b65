package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// leaderElectionID names the Lease the replicas compete for.
const leaderElectionID = "ome-routing-operator.ome.io"

// newManager builds the controller-runtime manager, with its health checks, for the API
// server that restCfg reaches.
func newManager(restCfg *rest.Config, o *options) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(omev1beta1.AddToScheme(scheme))
	utilruntime.Must(gatewayv1.Install(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))

	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  controllers.CacheOptions(o.operatorNamespace, o.profiles.Namespace),
		Metrics:                metricsOptions(o),
		HealthProbeBindAddress: o.probeAddr,
		LeaderElection:         o.leaderElect,
		LeaderElectionID:       leaderElectionID,
		LeaseDuration:          &o.lease.duration,
		RenewDeadline:          &o.lease.renewDeadline,
		RetryPeriod:            &o.lease.retryPeriod,
		// The Lease lives in the manager's own namespace, where the chart's leader-election
		// Role lets it write one. Named here rather than left to controller-runtime, which
		// reads it from the pod's ServiceAccount mount and so fails outside a pod.
		LeaderElectionNamespace: o.operatorNamespace,
	})
	if err != nil {
		return nil, err
	}
	// The build is exported whatever the role, so that every manager says which it is.
	if err := registerBuildInfo(metrics.Registry); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}

// The metrics endpoint checks each caller's token with a TokenReview and its right to get
// /metrics with a SubjectAccessReview.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// metricsOptions serves metrics over HTTPS with authentication and authorization, unless
// --metrics-secure=false. Without a certificate directory, controller-runtime makes a
// self-signed certificate at start.
func metricsOptions(o *options) metricsserver.Options {
	if !o.secureMetrics {
		return metricsserver.Options{BindAddress: o.metricsAddr}
	}
	return metricsserver.Options{
		BindAddress:    o.metricsAddr,
		SecureServing:  true,
		FilterProvider: filters.WithAuthenticationAndAuthorization,
	}
}

// setupControllers registers the WorkloadCluster and routing controllers and the prober
// when this manager is a multi-cluster control plane. With routing off they still run, so
// that TrafficMaps left from when it was on are deleted.
func setupControllers(mgr ctrl.Manager, o *options, cfg *config.Config) error {
	log := ctrl.Log.WithName("setup")
	if !o.enableMulticluster || o.multiclusterRole != roleControlPlane {
		log.Info("Not a multi-cluster control plane; routing controllers are off")
		return nil
	}
	obsCfg := cfg.Routing.Observer
	var obs *observer.Observer
	if cfg.Routing.Enabled {
		m := observer.NewMetrics()
		if err := m.Register(metrics.Registry); err != nil {
			return err
		}
		var err error
		oo := controllers.ObserverOptions(obsCfg)
		oo.Metrics, oo.Hosts = m, o.observerHosts
		obs, err = observer.New(oo)
		if err != nil {
			return err
		}
	}
	if err := controllers.RegisterMetrics(metrics.Registry); err != nil {
		return err
	}
	opts := controllers.OptionsFor(cfg, o.operatorNamespace, obs)
	opts.FieldManager = o.fieldManager
	opts.Exec = o.execPolicy()
	opts.ClusterProfiles = o.profiles
	return controllers.Setup(mgr, opts)
}

// logSettings records the settings the manager runs with, so that a log shows which probe
// and limits were in force.
func logSettings(o *options, cfg *config.Config) {
	r, obs := cfg.Routing, cfg.Routing.Observer
	probeSummary, digest := "none", "none"
	if p := r.Probe; p != nil {
		probeSummary = fmt.Sprintf("%s %s every %s, timeout %s", p.Method, p.Path, p.Period, p.Timeout)
		digest = probe.Digest(*p)
	}
	capacitySummary := "none"
	if c := r.Capacity; c != nil {
		capacitySummary = fmt.Sprintf("%s %s (%s) every %s, timeout %s, quorum %d of %d, maxAge %s",
			c.Method, c.Path, c.Format, c.Period, c.Timeout, c.Quorum, c.Samples, c.MaxAge)
	}
	ctrl.Log.WithName("setup").Info("Routing settings loaded",
		"routingEnabled", r.Enabled,
		"enableMulticluster", o.enableMulticluster,
		"multiclusterRole", o.multiclusterRole,
		"operatorNamespace", o.operatorNamespace,
		"metricsSecure", o.secureMetrics,
		"probe", probeSummary,
		"probeDigest", digest,
		"maxConcurrentReconciles", obs.MaxConcurrentReconciles,
		"maxConcurrentRequests", obs.MaxConcurrentRequests,
		"maxResponseBytes", obs.MaxResponseBytes,
		"minPeriod", obs.MinPeriod.String(),
		"maxPeriod", obs.MaxPeriod.String(),
		"maxTimeout", obs.MaxTimeout.String(),
		"maxSamples", obs.MaxSamples,
		"recordInterval", obs.RecordInterval.String(),
		"capacity", capacitySummary,
		"allowLoopback", obs.AllowLoopback,
		"allowPrivateNetworks", obs.AllowPrivateNetworks,
	)
}
