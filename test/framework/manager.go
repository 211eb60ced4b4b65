package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/proc"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
)

// Manager is a running manager that Environment.StartManager started: the controllers in
// this process, wired as cmd/manager wires them, or (with AsBinary) the manager's binary
// as a child process. Its log goes through Check; Stop stops it and returns what Check
// found.
type Manager struct {
	// Manager is the controller-runtime manager of a manager run in this process.
	Manager ctrl.Manager
	// Logger is what a manager run in this process logs with.
	Logger logr.Logger
	// Check reads everything the manager logs.
	Check *LogCheck
	// Process is the binary's process, MetricsURL its /metrics (plain HTTP on loopback) and
	// LogFile the file its output goes to (AsBinary only).
	Process    *proc.Process
	MetricsURL string
	LogFile    string

	stop    func() error
	stopped atomic.Bool
}

// Stop stops the manager and waits for it to end, and returns why it did not stop cleanly
// together with the log check's error (Check.Err): a suite's teardown fails on a panic or
// a reconciler error that is not transient. Stopping a stopped manager returns the same.
func (m *Manager) Stop() error {
	m.stopped.Store(true)
	return m.stop()
}

// ManagerOption changes how Environment.StartManager starts a manager.
type ManagerOption func(*managerOptions)

type managerOptions struct {
	config          *rest.Config
	hosts           map[string]netip.Addr
	clusterProfiles workloadcluster.ClusterProfiles
	controllers     []func(*controllers.Options)
	manager         []func(*ctrl.Options)
	publisherOnly   bool
	log             []io.Writer
	jsonLog         bool
	allowed         []string
	binary          *binaryOptions
}

// WithConfig runs the manager as the user of cfg (by default the control plane's
// administrator): the chart's ServiceAccount, say, or a config whose requests a Requests
// records.
func WithConfig(cfg *rest.Config) ManagerOption { return func(o *managerOptions) { o.config = cfg } }

// WithHosts resolves the tests' host names for the observer (observer.Options.Hosts; a
// binary gets them as --observer-host flags).
func WithHosts(hosts map[string]netip.Addr) ManagerOption {
	return func(o *managerOptions) { o.hosts = hosts }
}

// WithClusterProfiles is where WorkloadClusters' ClusterProfiles are read from and the
// access providers they may name (none by default: no ClusterProfiles are read).
func WithClusterProfiles(p workloadcluster.ClusterProfiles) ManagerOption {
	return func(o *managerOptions) { o.clusterProfiles = p }
}

// WithControllers changes what the settings do not hold, after controllers.OptionsFor:
// shorter member timings, a field manager, how often the publisher looks for the Gateway
// API. In this process only.
func WithControllers(adjust func(*controllers.Options)) ManagerOption {
	return func(o *managerOptions) { o.controllers = append(o.controllers, adjust) }
}

// WithManager changes the controller-runtime manager's options (leader election, say)
// after the defaults: the suite scheme, no metrics or health listener, controller names
// that may repeat because a process starts several managers. In this process only.
func WithManager(adjust func(*ctrl.Options)) ManagerOption {
	return func(o *managerOptions) { o.manager = append(o.manager, adjust) }
}

// PublisherOnly sets up the publisher alone (controllers.SetupPublisher).
func PublisherOnly() ManagerOption { return func(o *managerOptions) { o.publisherOnly = true } }

// WithLog sends the manager's log to these writers too (GinkgoWriter, a buffer a spec
// reads, a file).
func WithLog(w ...io.Writer) ManagerOption {
	return func(o *managerOptions) { o.log = append(o.log, w...) }
}

// JSONLog logs JSON lines at the info level, as the binary does, instead of the readable
// debug log: less to write where the log is not read (the benches).
func JSONLog() ManagerOption { return func(o *managerOptions) { o.jsonLog = true } }

// AllowReconcilerErrors lets reconciler errors that hold one of these pass the log check
// (see DefectErrors): errors of a defect that a spec causes on purpose.
func AllowReconcilerErrors(substrings ...string) ManagerOption {
	return func(o *managerOptions) { o.allowed = append(o.allowed, substrings...) }
}

// startInProcess builds the manager and runs it until Stop.
func startInProcess(cfg *rest.Config, settings config.Config, o managerOptions, check *LogCheck) (*Manager, error) {
	out := io.MultiWriter(append([]io.Writer{check}, o.log...)...)
	logger := zap.New(zap.WriteTo(out), zap.UseDevMode(!o.jsonLog))
	oo := controllers.ObserverOptions(settings.Routing.Observer)
	oo.Hosts = o.hosts
	obs, err := observer.New(oo)
	if err != nil {
		return nil, err
	}
	opts := ctrl.Options{
		Scheme:                 envfleet.Scheme,
		Cache:                  controllers.CacheOptions(envfleet.SecretNamespace, o.clusterProfiles.Namespace),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		Logger:                 logger,
	}
	for _, adjust := range o.manager {
		adjust(&opts)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err == nil {
		c := controllers.OptionsFor(&settings, envfleet.SecretNamespace, obs)
		c.ClusterProfiles = o.clusterProfiles
		for _, adjust := range o.controllers {
			adjust(&c)
		}
		if o.publisherOnly {
			err = controllers.SetupPublisher(mgr, c)
		} else {
			err = controllers.Setup(mgr, c)
		}
	}
	if err != nil {
		obs.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	m := &Manager{Manager: mgr, Logger: logger, Check: check}
	m.stop = sync.OnceValue(func() error {
		cancel()
		err := <-done
		obs.Close()
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		if err != nil {
			err = fmt.Errorf("the manager: %w", err)
		}
		return errors.Join(err, check.Err())
	})
	return m, nil
}

func (m *Manager) isStopped() bool { return m.stopped.Load() }
