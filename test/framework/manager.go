package framework

import (
	"context"
	"errors"
	"net/netip"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
)

// InProcessManager is a manager the suites and the bench run in their own process, wired as
// cmd/manager wires one: the controllers and the observer built from the installation's
// settings by controllers.OptionsFor and controllers.ObserverOptions, the cache limited by
// controllers.CacheOptions, Secrets read from SecretNamespace.
type InProcessManager struct {
	// Config is the API server the manager talks to, as the manager's user.
	Config *rest.Config
	// Settings are the installation's settings, as the chart's ConfigMap gives them.
	Settings config.Config
	// Hosts resolve the suite's host names for the observer (see observer.Options.Hosts).
	Hosts map[string]netip.Addr
	// ClusterProfiles is where WorkloadClusters' ClusterProfiles are read from, and the
	// access providers they may name (none: no ClusterProfiles are read).
	ClusterProfiles workloadcluster.ClusterProfiles
	// Adjust changes what the settings do not hold: shorter member timings, a field
	// manager, how often the publisher looks for the Gateway API.
	Adjust func(*controllers.Options)
	// PublisherOnly sets up the publisher alone (controllers.SetupPublisher).
	PublisherOnly bool
	// Manager adjusts the manager's options (a logger, leader election) after the
	// defaults: the suite scheme, no metrics or health listener, and controller names that
	// may repeat because suites start several managers in one process.
	Manager func(*ctrl.Options)
}

// Start builds the manager and runs it until ctx ends or the returned stop is called.
// stop waits for the manager to return, closes its observer and gives what Start returned
// (nil for a manager stopped by its context).
func (m InProcessManager) Start(ctx context.Context) (ctrl.Manager, func() error, error) {
	oo := controllers.ObserverOptions(m.Settings.Routing.Observer)
	oo.Hosts = m.Hosts
	obs, err := observer.New(oo)
	if err != nil {
		return nil, nil, err
	}
	opts := ctrl.Options{
		Scheme:                 envfleet.Scheme,
		Cache:                  controllers.CacheOptions(envfleet.SecretNamespace, m.ClusterProfiles.Namespace),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	}
	if m.Manager != nil {
		m.Manager(&opts)
	}
	mgr, err := ctrl.NewManager(m.Config, opts)
	if err == nil {
		c := controllers.OptionsFor(&m.Settings, envfleet.SecretNamespace, obs)
		c.ClusterProfiles = m.ClusterProfiles
		if m.Adjust != nil {
			m.Adjust(&c)
		}
		if m.PublisherOnly {
			err = controllers.SetupPublisher(mgr, c)
		} else {
			err = controllers.Setup(mgr, c)
		}
	}
	if err != nil {
		obs.Close()
		return nil, nil, err
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	return mgr, sync.OnceValue(func() error {
		cancel()
		err := <-done
		obs.Close()
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}), nil
}
