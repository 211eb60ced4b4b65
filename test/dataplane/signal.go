package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// Signal is the timing of a traffic signal: how often the manager reads it, its queries'
// timeout and window, and how often Prometheus scrapes haproxy and the model servers.
type Signal struct{ Interval, Timeout, Window, Scrape time.Duration }

// SignalTiming is the fixture's traffic signal unless Options.Signal says otherwise: read
// every second over a 5-second window, from a Prometheus that scrapes every second.
var SignalTiming = Signal{
	Interval: time.Second, Timeout: 500 * time.Millisecond, Window: 5 * time.Second, Scrape: time.Second,
}

// signal is the traffic signal's timing this fixture runs with.
func (e *Env) signal() Signal {
	if e.opts.Signal != nil {
		return *e.opts.Signal
	}
	return SignalTiming
}

// startPrometheus starts a Prometheus scraping haproxy's exporter and each cluster's model
// server (its /metrics in vLLM's names, labelled as the shipped vLLM load queries expect:
// the cluster, the service's namespace and name), for the manager's traffic signal.
func (e *Env) startPrometheus(ctx context.Context) error {
	log, err := os.Create(filepath.Join(e.opts.Dir, "prometheus.log"))
	if err != nil {
		return err
	}
	e.onStop(log.Close)
	targets := []string{e.Gateway.MetricsAddr}
	labels := map[string]map[string]string{}
	for _, w := range e.opts.Workers {
		addr := net.JoinHostPort(e.Servers.Addrs[w].String(), strconv.Itoa(e.Servers.Port))
		targets = append(targets, addr)
		labels[addr] = map[string]string{"cluster": w, "namespace": e.opts.Service.Namespace, "ome_io_inferenceservice": e.opts.Service.Name}
	}
	p, err := promserver.Start(ctx, promserver.Options{Targets: targets, Labels: labels, ScrapeInterval: e.signal().Scrape, Log: log})
	if err != nil {
		return fmt.Errorf("start Prometheus: %w", err)
	}
	e.Prometheus = p
	e.onStop(p.Stop)
	return nil
}

// signalSettings is the manager's traffic signal: the fixture's Prometheus, the timing t
// and the shipped queries, the HAProxy ones and the vLLM load ones.
func signalSettings(promURL string, t Signal) (*trafficsignal.Settings, error) {
	requests, failures, err := samples.HAProxySignalQueries()
	if err != nil {
		return nil, err
	}
	waiting, cacheUse, err := samples.VLLMLoadQueries()
	if err != nil {
		return nil, err
	}
	// No minPeriod here: the manager checks the interval against its observer's.
	s, errs := trafficsignal.Validate(trafficsignal.Spec{URL: &promURL, Timeout: new(t.Timeout),
		Interval: new(t.Interval), Window: new(t.Window), Requests: &requests, Failures: &failures,
		Waiting: &waiting, CacheUse: &cacheUse},
		trafficsignal.Path, 0)
	return s, errors.Join(errs...)
}
