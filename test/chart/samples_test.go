package chart

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/pkg/config"
)

// The quickstart's example values (config/samples/values.yaml) pass the chart's schema and
// rules, and render a configuration the manager starts with (config.Parse validates too): routing and the probe on, the
// publisher pointed at a gateway, the image where the values put it.
func TestSampleValues(t *testing.T) {
	values, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "samples", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := render(t, string(values))
	data := r.multiclusterJSON(t)
	got, err := config.Parse([]byte(data))
	if err != nil {
		t.Fatalf("config.Parse of the rendered %s key: %v\n%s", configKey, err, data)
	}
	if !got.Routing.Enabled || got.Routing.Probe == nil || got.Endpoint.GlobalGateway != "gateway-system/global" || got.Endpoint.BackendPort != 80 {
		t.Errorf("the sample values render %+v", *got)
	}
	var d appsv1.Deployment
	r.object(t, "Deployment", managerName, &d)
	if image := d.Spec.Template.Spec.Containers[0].Image; image != "registry.example.com/ome-manager:v1.3.0" {
		t.Errorf("image %q", image)
	}
}

// The getting-started guide's traffic signal: values.yaml, the shipped HAProxy queries and
// config/samples/trafficsignal/prometheus-values.yaml, given to helm together, render a
// configuration the manager accepts with the signal the guide describes. Without the
// queries file the manager refuses it, naming the missing query.
func TestSampleSignalValues(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	samples := filepath.Join(repoRoot(t), "config", "samples")
	values, err := os.ReadFile(filepath.Join(samples, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	queries := filepath.Join(samples, "trafficsignal", "haproxy-values.yaml")
	prometheus := filepath.Join(samples, "trafficsignal", "prometheus-values.yaml")

	r := render(t, string(values), "-f", queries, "-f", prometheus)
	cfg, err := config.Parse([]byte(r.multiclusterJSON(t)))
	if err != nil {
		t.Fatalf("the manager refuses the guide's traffic signal: %v", err)
	}
	s := cfg.Routing.TrafficSignal
	if s == nil || s.URL != "http://prometheus.monitoring:9090" || s.Interval != 5*time.Second || s.Window != 30*time.Second || s.Timeout != 2*time.Second {
		t.Fatalf("traffic signal %+v", s)
	}
	if cfg.Routing.Probe == nil {
		t.Error("the guide's probe is gone once the signal's values are added")
	}

	// Without the gateway's queries the chart itself refuses the values, naming what is
	// missing, before the manager ever reads them.
	if msg := renderError(t, string(values), "-f", prometheus); !strings.Contains(msg, "routing/trafficSignal") || !strings.Contains(msg, "queries") {
		t.Errorf("without the queries: %q, want the missing queries named", msg)
	}
}

// The getting-started guide's ClusterProfiles: values.yaml and
// config/samples/clusterprofiles-values.yaml render a provider file the manager accepts, the
// flags that point it there, and keep the routing configuration the manager loads.
func TestSampleClusterProfileValues(t *testing.T) {
	helmBin(t)
	samples := filepath.Join(repoRoot(t), "config", "samples")
	values, err := os.ReadFile(filepath.Join(samples, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := render(t, string(values), "-f", filepath.Join(samples, "clusterprofiles-values.yaml"))
	var cm corev1.ConfigMap
	r.object(t, "ConfigMap", configMapName, &cm)
	providers, err := workloadcluster.ParseProviders([]byte(cm.Data["clusterprofile-providers"]))
	if err != nil {
		t.Fatalf("the manager refuses the rendered provider file: %v\n%s", err, cm.Data["clusterprofile-providers"])
	}
	profiles := workloadcluster.ClusterProfiles{Namespace: "ome-fleet", Providers: providers}
	if err := profiles.Validate(); err != nil || len(providers) != 1 || providers[0].Name != "open-cluster-management" {
		t.Fatalf("providers %+v: %v", providers, err)
	}
	if args := r.deployment(t).Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--clusterprofile-namespace=ome-fleet") {
		t.Errorf("manager args %q lack the ClusterProfile namespace", args)
	}
	if _, err := config.Parse([]byte(r.multiclusterJSON(t))); err != nil {
		t.Errorf("the manager refuses the configuration next to the profiles: %v", err)
	}
}
