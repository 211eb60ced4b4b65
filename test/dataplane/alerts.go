package dataplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/promserver"
)

// ChartAlertRules are the chart's alerts as a Prometheus rule file: the spec of the
// PrometheusRule that `helm template` renders with monitoring.prometheusRule.enabled, in
// namespace ome (the alerts that name the release's namespace name it). HELM names helm.
func ChartAlertRules(ctx context.Context) ([]byte, error) {
	helm := os.Getenv("HELM")
	if helm == "" {
		return nil, errors.New("HELM is not set: the chart's alerts cannot be rendered")
	}
	//nolint:gosec // the test's own helm and chart
	out, err := exec.CommandContext(ctx, helm, "template", "ome", filepath.Join(envfleet.RepoRoot(), "charts", "ome-resources"),
		"--namespace", "ome", "--set", "monitoring.prometheusRule.enabled=true").Output()
	if err != nil {
		return nil, fmt.Errorf("helm template: %w", err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(string(out))))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the chart renders no PrometheusRule")
		}
		if err != nil {
			return nil, err
		}
		var obj struct {
			Kind string         `json:"kind"`
			Spec map[string]any `json:"spec"`
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, err
		}
		if obj.Kind == "PrometheusRule" {
			return yaml.Marshal(obj.Spec)
		}
	}
}

// StartAlerting starts a second Prometheus that scrapes the manager's own metrics and
// evaluates the chart's alerts on them, as a production Prometheus with the chart's
// PrometheusRule does. The caller stops it.
func (e *Env) StartAlerting(ctx context.Context) (*promserver.Server, error) {
	rules, err := ChartAlertRules(ctx)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(e.Manager.MetricsURL)
	if err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(e.opts.Dir, "prometheus-alerts.log"))
	if err != nil {
		return nil, err
	}
	p, err := promserver.Start(ctx, promserver.Options{Targets: []string{u.Host}, MetricsPath: u.Path,
		ScrapeInterval: e.signal().Scrape, Rules: rules, Log: log})
	if err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("start the alerting Prometheus: %w", err)
	}
	return p, nil
}
