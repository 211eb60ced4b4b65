package routing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/pkg/probe"
)

// recordedEvent is one event a test recorder was given.
type recordedEvent struct {
	eventtype, reason, note string
}

type eventLog struct {
	events.EventRecorder
	got []recordedEvent
}

func (l *eventLog) Eventf(_, _ runtime.Object, eventtype, reason, _, note string, args ...any) {
	l.got = append(l.got, recordedEvent{eventtype, reason, fmtNote(note, args)})
}

func fmtNote(note string, args []any) string {
	return fmt.Sprintf(note, args...)
}

func TestAnnounceGateTransitions(t *testing.T) {
	entry := func(p *omev1beta1.TrafficMapProbe) omev1beta1.TrafficMapEntry {
		return omev1beta1.TrafficMapEntry{Cluster: "worker-b", Probe: p}
	}
	failing := func(gated, would bool) *omev1beta1.TrafficMapProbe {
		return &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbeFailing, Message: "HTTP 503", ConsecutiveFailures: 3, Gated: gated, WouldGate: would}
	}
	passing := &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbePassing, Message: "HTTP 200"}
	tests := []struct {
		name     string
		was, now gateState
		probe    *omev1beta1.TrafficMapProbe
		want     []recordedEvent
	}{
		{name: "a Shadow probe would gate", now: gateState{would: true}, probe: failing(false, true),
			want: []recordedEvent{{"Normal", EventHomeWouldGate,
				"Cluster worker-b would be gated after 3 probe failures in a row: HTTP 503 (Shadow mode: its weight is unchanged)"}}},
		{name: "a Shadow probe would lift", was: gateState{would: true}, probe: passing,
			want: []recordedEvent{{"Normal", EventHomeWouldUngate, "Cluster worker-b would have its gate lifted: it passed successThreshold probes in a row; last probe Passing: HTTP 200 (Shadow mode)"}}},
		{name: "a Shadow probe is turned off", was: gateState{would: true},
			want: []recordedEvent{{"Normal", EventHomeWouldUngate, "Cluster worker-b would have its gate lifted: the probe was turned off (Shadow mode)"}}},
		{name: "Shadow to Enforce with a would-be gate", was: gateState{would: true}, now: gateState{gated: true}, probe: failing(true, false),
			want: []recordedEvent{{"Warning", EventHomeGated, "Cluster worker-b gated after 3 probe failures in a row: HTTP 503"}}},
		{name: "Enforce to Shadow with a gate", was: gateState{gated: true}, now: gateState{would: true}, probe: failing(false, true),
			want: []recordedEvent{{"Normal", EventHomeUngated,
				"Cluster worker-b gate lifted: the probe is in Shadow mode, which records its gates without moving traffic"}}},
		{name: "a would-be gate that stays", was: gateState{would: true}, now: gateState{would: true}, probe: failing(false, true)},
		{name: "an Enforce gate, as before", now: gateState{gated: true}, probe: failing(true, false),
			want: []recordedEvent{{"Warning", EventHomeGated, "Cluster worker-b gated after 3 probe failures in a row: HTTP 503"}}},
		{name: "an Enforce lift, as before", was: gateState{gated: true}, probe: passing,
			want: []recordedEvent{{"Normal", EventHomeUngated, "Cluster worker-b gate lifted: it passed successThreshold probes in a row; last probe Passing: HTTP 200"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &eventLog{}
			r := &Reconciler{Recorder: log}
			r.announceGate(nil, entry(failing(tt.was.gated, tt.was.would)), entry(tt.probe), tt.was, tt.now, tt.probe != nil)
			if len(log.got) != len(tt.want) {
				t.Fatalf("events %+v, want %+v", log.got, tt.want)
			}
			for i := range tt.want {
				if log.got[i] != tt.want[i] {
					t.Fatalf("event %+v, want %+v", log.got[i], tt.want[i])
				}
			}
		})
	}
}

func TestShadowGatedHomesGauge(t *testing.T) {
	key := types.NamespacedName{Namespace: "qwen3-0-6b", Name: "qwen3-0-6b"}
	enforced := types.NamespacedName{Namespace: "qwen3-0-6b", Name: "enforced"}
	setShadowGatedHomes(key, true, 2)
	setShadowGatedHomes(enforced, false, 0)
	const header = `# HELP ome_routing_shadow_gated_homes Homes of a service whose Shadow probe would gate them now; only while the probe is in Shadow mode.
# TYPE ome_routing_shadow_gated_homes gauge
`
	want := header + `ome_routing_shadow_gated_homes{name="qwen3-0-6b",namespace="qwen3-0-6b"} 2
`
	if err := testutil.CollectAndCompare(shadowGatedHomes, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	// A switch to Enforce takes the series away; so does forgetting the map.
	setShadowGatedHomes(key, false, 0)
	if n := testutil.CollectAndCount(shadowGatedHomes); n != 0 {
		t.Errorf("%d series after the switch to Enforce, want none", n)
	}
	setShadowGatedHomes(key, true, 1)
	forgetMapGauges(key)
	if n := testutil.CollectAndCount(shadowGatedHomes); n != 0 {
		t.Errorf("%d series after forgetMapGauges, want none", n)
	}
}

// TestProberLeavesTheMapGaugesToTheReconciler: a map the prober stops probing (a refused
// setting freezes it, gates and all) keeps its gated and would-gate series, so that
// OMERoutingHomeGated does not resolve while traffic is still held off the cluster; only
// the reconciler, when the service is gone or no longer routed, deletes them.
func TestProberLeavesTheMapGaugesToTheReconciler(t *testing.T) {
	key := types.NamespacedName{Namespace: "frozen", Name: "frozen"}
	setGatedHomes(key, 1)
	setShadowGatedHomes(key, true, 1)
	setRefusedHomes(key, 1)
	setUnobservedHomes(key, 0)
	setSettingsRefused(key, true)
	t.Cleanup(func() { forgetMapGauges(key) })
	prober := probing.NewProber(nil, 1) // never started: Sync and Forget alone send nothing
	policy := probe.Policy{Period: 10 * time.Second, Timeout: time.Second, FailureThreshold: 2, SuccessThreshold: 1}
	prober.Sync(key, "uid", policy, probe.Digest(policy), []probing.ProbeTarget{{Cluster: "worker-a", Endpoint: "http://127.0.0.1:1/"}})
	prober.Forget(key)
	for name, c := range map[string]prometheus.Collector{"gated": gatedHomes, "shadow": shadowGatedHomes, "refused": refusedHomes, "unobserved": unobservedHomes, "settings refused": settingsRefused} {
		if got := series(t, c, key); got != 1 {
			t.Errorf("%s: %d series for the frozen map after the prober forgot it, want 1", name, got)
		}
	}
	forgetMapGauges(key)
	for name, c := range map[string]prometheus.Collector{"gated": gatedHomes, "shadow": shadowGatedHomes, "refused": refusedHomes, "unobserved": unobservedHomes, "settings refused": settingsRefused} {
		if got := series(t, c, key); got != 0 {
			t.Errorf("%s: %d series after forgetMapGauges, want none", name, got)
		}
	}
}

// series counts c's series labelled with key's namespace and name.
func series(t *testing.T, c prometheus.Collector, key types.NamespacedName) int {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["namespace"] == key.Namespace && labels["name"] == key.Name {
				n++
			}
		}
	}
	return n
}
