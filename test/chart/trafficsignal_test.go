package chart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// The shipped HAProxy values file renders into a configuration the manager accepts, and a
// bearerTokenSecret is mounted where the manager reads the token; without one nothing is.
func TestTrafficSignalValues(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	shipped := filepath.Join(repoRoot(t), "config", "samples", "trafficsignal", "haproxy-values.yaml")
	if _, err := os.Stat(shipped); err != nil {
		t.Fatal(err)
	}
	routing := []string{"--set", "ome.multicluster.enabled=true", "--set", "ome.multicluster.role=control-plane",
		"--set", "ome.multicluster.config.routing.enabled=true",
		"--set", "ome.multicluster.config.routing.trafficSignal.prometheus.url=http://prometheus.monitoring:9090"}

	plain := render(t, "", append(routing, "-f", shipped)...)
	cfg, err := config.Parse([]byte(plain.multiclusterJSON(t)))
	if err != nil {
		t.Fatalf("the manager refuses the shipped queries: %v", err)
	}
	s := cfg.Routing.TrafficSignal
	if s == nil || s.URL != "http://prometheus.monitoring:9090" || s.Window != trafficsignal.DefaultWindow || s.TokenFile != "" {
		t.Fatalf("traffic signal %+v", s)
	}
	if vols := plain.deployment(t).Spec.Template.Spec.Volumes; len(vols) != 1 {
		t.Errorf("without a token Secret the pod mounts only its config: %+v", vols)
	}

	withToken := render(t, "", append(routing, "-f", shipped,
		"--set", "ome.multicluster.config.routing.trafficSignal.prometheus.bearerTokenSecret.name=prom-reader",
		"--set", "ome.multicluster.config.routing.trafficSignal.prometheus.bearerTokenSecret.key=token",
		"--set", "ome.multicluster.config.routing.trafficSignal.interval=10s")...)
	cfg, err = config.Parse([]byte(withToken.multiclusterJSON(t)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Routing.TrafficSignal.TokenFile != trafficsignal.TokenMountPath || cfg.Routing.TrafficSignal.Interval != 10*time.Second {
		t.Fatalf("traffic signal %+v", cfg.Routing.TrafficSignal)
	}
	pod := withToken.deployment(t).Spec.Template.Spec
	var secret string
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secret = v.Secret.SecretName
			if len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != "token" || v.Secret.Items[0].Path != filepath.Base(trafficsignal.TokenMountPath) {
				t.Errorf("secret items %+v", v.Secret.Items)
			}
		}
	}
	if secret != "prom-reader" {
		t.Errorf("volumes %+v: want the Secret prom-reader", pod.Volumes)
	}
	mounted := false
	for _, m := range manager(t, withToken.deployment(t)).VolumeMounts {
		mounted = mounted || (m.MountPath == filepath.Dir(trafficsignal.TokenMountPath) && m.ReadOnly)
	}
	if !mounted {
		t.Errorf("the manager does not mount the token at %s", filepath.Dir(trafficsignal.TokenMountPath))
	}
	if strings.Contains(withToken.multiclusterJSON(t), "bearerTokenFile") {
		t.Error("the chart writes the Secret, not a file path, into the settings")
	}
}
