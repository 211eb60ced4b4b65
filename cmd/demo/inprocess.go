package main

import (
	"context"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
)

// startInProcess runs the controllers in this process, from the same settings file the
// binary would read. It is the fallback behind --in-process, for when the manager binary
// cannot be built or does not set up the controllers; the binary is what the demo is about.
func (d *Demo) startInProcess(settings, logPath string) (<-chan error, error) {
	cfg, err := config.Load(settings)
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	oo := controllers.ObserverOptions(cfg.Routing.Observer)
	oo.Hosts = d.servers.Hosts()
	obs, err := observer.New(oo)
	if err != nil {
		logFile.Close()
		return nil, err
	}
	mgr, err := ctrl.NewManager(d.fleet.ControlPlane.Config, ctrl.Options{
		Scheme:                 envfleet.Scheme,
		Cache:                  controllers.CacheOptions(envfleet.SecretNamespace, ""),
		Logger:                 zap.New(zap.WriteTo(logFile)),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		logFile.Close()
		obs.Close()
		return nil, err
	}
	if err := controllers.Setup(mgr, controllers.OptionsFor(cfg, envfleet.SecretNamespace, obs)); err != nil {
		logFile.Close()
		obs.Close()
		return nil, err
	}
	d.out.Event("manager running in this process (--in-process), from %s", rel(settings))

	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		err := mgr.Start(ctx)
		obs.Close()
		logFile.Close()
		if err == nil {
			err = fmt.Errorf("the manager stopped")
		}
		exited <- err
		close(done)
	}()
	d.onClose("the in-process manager", func() error {
		cancel()
		<-done
		return nil
	})
	return exited, nil
}
