package chart

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
)

// optionalValues is Step 1's values with the probe's optional fields as values.yaml's
// comment shows them.
func optionalValues(t *testing.T) string {
	return edit(t, step1Values, "allFailedPolicy: PreserveTraffic\n",
		"allFailedPolicy: PreserveTraffic\n          mode: Shadow\n          flapDamping: {window: 10m, maxFactor: 8}\n          rampUp: 1m\n")
}

// The optional fields render into the ConfigMap and mean to the manager what they say.
func TestRenderedProbeExtensionsLoad(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	data := render(t, optionalValues(t)).multiclusterJSON(t)
	got, err := config.Parse([]byte(data))
	if err != nil {
		t.Fatalf("config.Parse of the rendered %s key: %v\n%s", configKey, err, data)
	}
	want := step1Probe.DeepCopy()
	want.Mode = v1beta1.ProbeModeShadow
	want.FlapDamping = &probe.FlapDamping{Window: 10 * time.Minute, MaxFactor: 8}
	want.RampUp = time.Minute
	if !reflect.DeepEqual(got.Routing.Probe, &want) {
		t.Fatalf("probe:\n got %+v\nwant %+v\nJSON: %s", got.Routing.Probe, want, data)
	}
}

// The rules between the optional fields and the period refuse with the manager's words.
func TestChartRefusesWhatTheManagerRefusesOfTheOptionalFields(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for _, tc := range []struct{ name, values, want string }{{
		name:   "rampUp under the period",
		values: edit(t, optionalValues(t), "rampUp: 1m", "rampUp: 5s"),
		want:   "routing.probe.rampUp (5s) must be at least routing.probe.period (10s)",
	}, {
		name:   "rampUp under the period, in milliseconds",
		values: edit(t, optionalValues(t), "rampUp: 1m", "rampUp: 9999ms"),
		want:   "routing.probe.rampUp (9.999s) must be at least routing.probe.period (10s)",
	}, {
		name:   "flapDamping window under the period",
		values: edit(t, optionalValues(t), "window: 10m", "window: 2s"),
		want:   "routing.probe.flapDamping.window (2s) must be at least routing.probe.period (10s)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			manager := managerRefusal(t, tc.values)
			if !strings.Contains(manager, "invalid multi-cluster configuration: "+tc.want+"\n") {
				t.Fatalf("the manager does not refuse these values with %q; it says:\n%s", tc.want, manager)
			}
			stderr := renderError(t, tc.values)
			if !strings.Contains(stderr, refusalHeader+manager) {
				t.Errorf("helm's error does not carry the manager's lines\n%s\nit printed:\n%s", manager, stderr)
			}
		})
	}
	for name, values := range map[string]string{
		"rampUp and window equal to the period": edit(t, edit(t, optionalValues(t), "rampUp: 1m", "rampUp: 10000ms"), "window: 10m", "window: 10s"),
		"mode Enforce alone":                    edit(t, step1Values, "allFailedPolicy: PreserveTraffic\n", "allFailedPolicy: PreserveTraffic\n          mode: Enforce\n"),
	} {
		t.Run(name, func(t *testing.T) {
			data := render(t, values).multiclusterJSON(t)
			if _, err := config.Parse([]byte(data)); err != nil {
				t.Errorf("the manager refuses what the chart rendered: %v\n%s", err, data)
			}
		})
	}
}

func TestSchemaRejectsBadOptionalFields(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	const probe = "/ome/multicluster/config/routing/probe"
	for _, tc := range []struct{ name, values, want string }{{
		name:   "mode in lower case",
		values: edit(t, optionalValues(t), "mode: Shadow", "mode: shadow"),
		want:   "- at '" + probe + "/mode': value must be one of 'Enforce', 'Shadow'",
	}, {
		name:   "maxFactor over 64",
		values: edit(t, optionalValues(t), "maxFactor: 8", "maxFactor: 65"),
		want:   "- at '" + probe + "/flapDamping/maxFactor': maximum: got 65, want 64",
	}, {
		name:   "flapDamping without a window",
		values: edit(t, optionalValues(t), "window: 10m, ", ""),
		want:   "- at '" + probe + "/flapDamping': missing property 'window'",
	}, {
		name:   "flapDamping with another key",
		values: edit(t, optionalValues(t), "maxFactor: 8", "maxFactor: 8, base: 2"),
		want:   "- at '" + probe + "/flapDamping': additional properties 'base' not allowed",
	}, {
		name:   "rampUp of zero",
		values: edit(t, optionalValues(t), "rampUp: 1m", "rampUp: 0s"),
		want:   "- at '" + probe + "/rampUp': '0s' does not match pattern '[1-9]'",
	}} {
		t.Run(tc.name, func(t *testing.T) { expectSchemaRefusal(t, tc.values, tc.want) })
	}
}
