package dataplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/internal/promserver"
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

// signalSettings is the routing.trafficSignal block for the manager: the fixture's
// Prometheus, SignalTiming and the shipped queries.
func signalSettings(promURL string) (string, error) {
	return samples.HAProxyTrafficSignal(promURL, SignalTiming.Interval, SignalTiming.Window, SignalTiming.Timeout)
}
