package framework

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
)

// Environment is what a suite (or a bench) starts once and stops at its end: a fleet of
// envtest API servers, a control plane with workload clusters registered on it, and the
// managers started on it. A fleet started otherwise (the fleet bench's fifty members)
// makes one too: &Environment{Fleet: f}.
type Environment struct {
	Fleet *envfleet.Fleet

	mu       sync.Mutex
	managers []*Manager
}

// StartEnvironment starts a control plane and one API server per worker name
// (envfleet.StartFleet). Call Stop.
func StartEnvironment(ctx context.Context, workers ...string) (*Environment, error) {
	f, err := envfleet.StartFleet(ctx, workers...)
	if err != nil {
		return nil, err
	}
	return &Environment{Fleet: f}, nil
}

// StartManager starts a manager against the control plane with the installation's
// settings, as the chart's ConfigMap gives them (start the observer's from
// ObserverSettings), changed by opts. It runs until StopManager, Stop or its own Stop.
func (e *Environment) StartManager(settings config.Config, opts ...ManagerOption) (*Manager, error) {
	var o managerOptions
	for _, opt := range opts {
		opt(&o)
	}
	check := NewLogCheck(o.allowed...)
	var m *Manager
	var err error
	if o.binary != nil {
		m, err = startBinary(e.Fleet.ControlPlane, settings, o, check)
	} else {
		cfg := o.config
		if cfg == nil {
			cfg = e.Fleet.ControlPlane.Config
		}
		m, err = startInProcess(cfg, settings, o, check)
	}
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.managers = append(slices.DeleteFunc(e.managers, (*Manager).isStopped), m)
	return m, nil
}

// StopManager stops every manager StartManager started that still runs, newest first, and
// returns their errors: why one did not stop cleanly, and what its log check found. A
// manager stopped by its own Stop returned its errors then.
func (e *Environment) StopManager() error {
	e.mu.Lock()
	managers := slices.DeleteFunc(e.managers, (*Manager).isStopped)
	e.managers = nil
	e.mu.Unlock()
	var errs []error
	for i := len(managers) - 1; i >= 0; i-- {
		errs = append(errs, managers[i].Stop())
	}
	return errors.Join(errs...)
}

// Stop stops the managers, then the API servers they watch.
func (e *Environment) Stop() error {
	err := e.StopManager()
	if e.Fleet == nil {
		return err
	}
	return errors.Join(err, e.Fleet.Stop())
}
