package chart

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// monitoringOn turns every monitoring object on, with labels a Prometheus would select on.
var monitoringOn = []string{
	"--set", "monitoring.serviceMonitor.enabled=true",
	"--set", "monitoring.serviceMonitor.labels.release=prometheus",
	"--set", "monitoring.prometheusRule.enabled=true",
	"--set", "monitoring.prometheusRule.labels.release=prometheus",
	"--set", "monitoring.dashboard.enabled=true",
}

// The PromQL itself is checked against a running manager in test/integration/monitoring.
func TestMonitoringOffByDefault(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	out := render(t, step1Values)
	for _, k := range []string{
		key("ServiceMonitor", managerName), key("PrometheusRule", managerName),
		key("Service", managerName+"-metrics"), key("ConfigMap", managerName+"-dashboard"),
	} {
		if _, ok := out[k]; ok {
			t.Errorf("the chart renders %s by default; the Prometheus Operator's kinds may not exist", k)
		}
	}
}

func TestMonitoringOn(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	out := render(t, step1Values, append(monitoringOn,
		"--set", "ome.multicluster.config.routing.observer.maxConcurrentRequests=64")...)

	// The metrics Service selects the manager's pods and their metrics port.
	var svc corev1.Service
	out.object(t, "Service", managerName+"-metrics", &svc)
	d := out.deployment(t)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("metrics Service selector %v does not select the manager's pods %v", svc.Spec.Selector, d.Spec.Template.Labels)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "metrics" || svc.Spec.Ports[0].Name != "metrics" {
		t.Errorf("metrics Service ports %+v, want one named metrics to the container's metrics port", svc.Spec.Ports)
	}

	for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
		doc := string(out[key(kind, managerName)])
		if doc == "" {
			t.Fatalf("no %s rendered; the chart renders %v", kind, out.names())
		}
		if !strings.Contains(doc, "release: prometheus") {
			t.Errorf("%s lacks the labels from the values:\n%s", kind, doc)
		}
	}
	// The saturation alert compares with the installation's own cap.
	if rule := string(out[key("PrometheusRule", managerName)]); !strings.Contains(rule,
		"avg_over_time(ome_routing_observer_requests_in_flight[5m]) >= 0.9 * 64") {
		t.Errorf("OMERoutingObserverSaturated does not use maxConcurrentRequests 64:\n%s", rule)
	}

	var dash corev1.ConfigMap
	out.object(t, "ConfigMap", managerName+"-dashboard", &dash)
	if dash.Labels["grafana_dashboard"] != "1" {
		t.Errorf("dashboard ConfigMap labels %v lack grafana_dashboard=1, which Grafana's sidecar looks for", dash.Labels)
	}
	if !strings.Contains(dash.Data["ome-routing.json"], `"uid": "ome-routing"`) {
		t.Errorf("dashboard ConfigMap does not hold the dashboard: %v", dash.Data)
	}
}

func TestLintMonitoringOn(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	args := append([]string{"lint", chartDir(t), "--strict", "--namespace", releaseNamespace,
		"--values", valuesFile(t, step1Values)}, monitoringOn...)
	stdout, stderr, err := runHelm(t, args...)
	if err != nil {
		t.Fatalf("helm lint: %v\n%s%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "0 chart(s) failed") {
		t.Errorf("helm lint output lacks %q:\n%s", "0 chart(s) failed", stdout)
	}
}
