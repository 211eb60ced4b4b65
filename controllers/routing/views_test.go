package routing

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
)

// The view fields are written as the API server gives them back: a value that read back
// otherwise would be applied again on every reconcile.
func TestViewFieldsReadBackAsWritten(t *testing.T) {
	probed := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 7, 0, time.UTC))
	entries := []omev1beta1.TrafficMapEntry{
		{Cluster: "a", Weight: 1, Probe: &omev1beta1.TrafficMapProbe{WouldGate: true, LastProbeTime: &probed}},
		{Cluster: "b", Weight: 1, Probe: &omev1beta1.TrafficMapProbe{RampPercent: 30}, Warning: "probe port 8080 is not backendPort 80"},
		{Cluster: "c", Weight: 0, Probe: &omev1beta1.TrafficMapProbe{RampPercent: 30, Gated: true}},
	}
	view := mapView{policy: probe.Resolution{Mode: probe.ModePolicy, Policy: probe.Policy{Period: 1500 * time.Millisecond}},
		recordInterval: time.Minute, routeGeneration: 12, lastProbeTime: &probed}
	fields := withViews(map[string]any{}, entries, view)
	want := map[string]any{"wouldGateHomes": int64(1), "rampingHomes": int64(1), "warnedHomes": int64(1), "lastProbeTime": "2026-12-01T10:00:07Z",
		"probePeriod": "1.5s", "probeRecordInterval": "1m0s", "routeGeneration": int64(12)}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("fields %v, want %v", fields, want)
	}

	raw, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	var status omev1beta1.TrafficMapStatus
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatal(err)
	}
	back, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if !reflect.DeepEqual(back[k], v) {
			t.Errorf("%s reads back as %#v, written as %#v", k, back[k], v)
		}
	}

	none := withViews(map[string]any{}, nil, mapView{policy: probe.Resolution{Mode: probe.ModeNone}})
	for _, k := range []string{"lastProbeTime", "probePeriod", "probeRecordInterval", "routeGeneration"} {
		if v, ok := none[k]; !ok || v != nil {
			t.Errorf("without a probe or a generation, %s = %#v, want it dropped (nil)", k, v)
		}
	}
}
