package dataplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/test/framework"
)

// ShippedSignalValues is the chart values file with the HAProxy traffic-signal queries
// that the project ships; the fixture runs the manager with these very queries.
var ShippedSignalValues = filepath.Join(framework.RepoRoot(), "config", "samples", "trafficsignal", "haproxy-values.yaml")

// SignalTiming is the fixture's traffic signal: read every second over a 5-second window,
// from a Prometheus that scrapes haproxy's exporter every second.
var SignalTiming = struct{ Interval, Timeout, Window, Scrape time.Duration }{
	Interval: time.Second, Timeout: 500 * time.Millisecond, Window: 5 * time.Second, Scrape: time.Second,
}

// ShippedSignalQueries reads the requests and failures templates from ShippedSignalValues.
func ShippedSignalQueries() (requests, failures string, err error) {
	raw, err := os.ReadFile(ShippedSignalValues)
	if err != nil {
		return "", "", err
	}
	var v struct {
		Ome struct {
			Multicluster struct {
				Config struct {
					Routing struct {
						TrafficSignal struct {
							Queries struct{ Requests, Failures string }
						} `json:"trafficSignal"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(raw, &v); err != nil {
		return "", "", err
	}
	q := v.Ome.Multicluster.Config.Routing.TrafficSignal.Queries
	if q.Requests == "" || q.Failures == "" {
		return "", "", fmt.Errorf("%s holds no requests and failures queries", ShippedSignalValues)
	}
	return q.Requests, q.Failures, nil
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
	requests, failures, err := ShippedSignalQueries()
	if err != nil {
		return "", err
	}
	block := map[string]any{
		"prometheus": map[string]any{"url": promURL, "timeout": SignalTiming.Timeout.String()},
		"interval":   SignalTiming.Interval.String(),
		"window":     SignalTiming.Window.String(),
		"queries":    map[string]string{"requests": requests, "failures": failures},
	}
	out, err := json.Marshal(block)
	return string(out), err
}
