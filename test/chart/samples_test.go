package chart

import (
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

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
