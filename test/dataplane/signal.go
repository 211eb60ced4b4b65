package dataplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// SignalTiming is the fixture's traffic signal: read every second over a 5-second window,
// from a Prometheus that scrapes haproxy's exporter every second.
var SignalTiming = struct{ Interval, Timeout, Window, Scrape time.Duration }{
	Interval: time.Second, Timeout: 500 * time.Millisecond, Window: 5 * time.Second, Scrape: time.Second,
}

// startPrometheus starts a Prometheus scraping haproxy's exporter, for the manager's
// traffic signal.
func (e *Env) startPrometheus(ctx context.Context) error {
	log, err := os.Create(filepath.Join(e.opts.Dir, "prometheus.log"))
	if err != nil {
		return err
	}
	e.onStop(log.Close)
	p, err := promserver.Start(ctx, promserver.Options{Targets: []string{e.Gateway.MetricsAddr}, ScrapeInterval: SignalTiming.Scrape, Log: log})
	if err != nil {
		return fmt.Errorf("start Prometheus: %w", err)
	}
	e.Prometheus = p
	e.onStop(p.Stop)
	return nil
}

// signalSettings is the manager's traffic signal: the fixture's Prometheus, SignalTiming
// and the shipped queries.
func signalSettings(promURL string) (*trafficsignal.Settings, error) {
	requests, failures, err := samples.HAProxySignalQueries()
	if err != nil {
		return nil, err
	}
	// No minPeriod here: the manager checks the interval against its observer's.
	s, errs := trafficsignal.Validate(trafficsignal.Spec{URL: &promURL, Timeout: new(SignalTiming.Timeout),
		Interval: new(SignalTiming.Interval), Window: new(SignalTiming.Window), Requests: &requests, Failures: &failures},
		trafficsignal.Path, 0)
	return s, errors.Join(errs...)
}
