package drain

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

func entry(cluster string, weight int32, healthy bool, refs ...string) omev1beta1.TrafficMapEntry {
	return omev1beta1.TrafficMapEntry{Cluster: cluster, Endpoint: "https://" + cluster + ".example.com", Weight: weight, Healthy: healthy, DrainRefs: refs}
}

func cond(status metav1.ConditionStatus, reason omev1beta1.TrafficMapConditionReason, message string) trafficmap.Condition {
	return trafficmap.Condition{Status: status, Reason: reason, Message: message}
}

func TestApply(t *testing.T) {
	routable3 := cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "3 of 3 home(s) take traffic")
	tests := []struct {
		name      string
		entries   []omev1beta1.TrafficMapEntry
		before    trafficmap.Condition
		overrides []Override
		want      []omev1beta1.TrafficMapEntry
		routable  trafficmap.Condition
	}{
		{
			name:     "no drains changes nothing",
			entries:  []omev1beta1.TrafficMapEntry{entry("a", 2, true), entry("b", 1, true), entry("c", 3, true)},
			before:   routable3,
			want:     []omev1beta1.TrafficMapEntry{entry("a", 2, true), entry("b", 1, true), entry("c", 3, true)},
			routable: routable3,
		},
		{
			name:      "a drained entry goes to 0 and the others keep their weights",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 2, true), entry("b", 4, true), entry("c", 6, true)},
			before:    routable3,
			overrides: []Override{{"maintenance-a", "a", "planned maintenance"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, true, "maintenance-a"), entry("b", 4, true), entry("c", 6, true)},
			routable:  cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "2 of 3 home(s) take traffic"),
		},
		{
			name:      "several drains on one cluster are sorted; healthy false stays false",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 1, false), entry("b", 1, true)},
			before:    cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "2 of 2 home(s) take traffic"),
			overrides: []Override{{"zz", "a", "r"}, {"aa", "a", "r"}, {"mm", "a", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, false, "aa", "mm", "zz"), entry("b", 1, true)},
			routable:  cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 2 home(s) take traffic"),
		},
		{
			name:      "a drain naming no entry holds nothing",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 1, true)},
			before:    cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"),
			overrides: []Override{{"typo", "worker-aa", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 1, true)},
			routable:  cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"),
		},
		{
			name:      "cluster names match exactly",
			entries:   []omev1beta1.TrafficMapEntry{entry("worker-a", 1, true)},
			before:    cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"),
			overrides: []Override{{"x", "Worker-A", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("worker-a", 1, true)},
			routable:  cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"),
		},
		{
			name:      "drains that zero a table with traffic give TrafficDrain",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 1, true), entry("b", 0, false)},
			before:    cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 2 home(s) take traffic"),
			overrides: []Override{{"x", "a", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, true, "x"), entry("b", 0, false)},
			routable:  cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonTrafficDrain, "manual traffic-drain overrides set all 2 route arm(s) to zero"),
		},
		{
			name:      "TrafficDrain also replaces a preserving AllHomesProbeFailed",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 2, false), entry("b", 1, false)},
			before:    cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonAllHomesProbeFailed, "2 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity"),
			overrides: []Override{{"x", "a", "r"}, {"y", "b", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, false, "x"), entry("b", 0, false, "y")},
			routable:  cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonTrafficDrain, "manual traffic-drain overrides set all 2 route arm(s) to zero"),
		},
		{
			name:      "a preserving AllHomesProbeFailed with traffic left keeps its message",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 2, false), entry("b", 1, false)},
			before:    cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonAllHomesProbeFailed, "2 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity"),
			overrides: []Override{{"x", "a", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, false, "x"), entry("b", 1, false)},
			routable:  cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonAllHomesProbeFailed, "2 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity"),
		},
		{
			name:      "a table empty before the drains keeps its reason",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 0, false), entry("b", 0, false)},
			before:    cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesUnready, "none of 2 home(s) has a ready replica"),
			overrides: []Override{{"x", "a", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, false, "x"), entry("b", 0, false)},
			routable:  cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesUnready, "none of 2 home(s) has a ready replica"),
		},
		{
			name:      "a table gated under Drain keeps AllHomesProbeFailed",
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 0, false), entry("b", 0, false)},
			before:    cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesProbeFailed, "2 home(s) have conclusive probe failures; all route weights are zero"),
			overrides: []Override{{"x", "a", "r"}, {"y", "b", "r"}},
			want:      []omev1beta1.TrafficMapEntry{entry("a", 0, false, "x"), entry("b", 0, false, "y")},
			routable:  cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesProbeFailed, "2 home(s) have conclusive probe failures; all route weights are zero"),
		},
		{
			name:      "no entries: NotPlaced stands",
			before:    cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonNotPlaced, "no workload cluster matches the placement"),
			overrides: []Override{{"x", "a", "r"}},
			routable:  cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonNotPlaced, "no workload cluster matches the placement"),
		},
		{
			name:     "stale drainRefs on the input are cleared",
			entries:  []omev1beta1.TrafficMapEntry{entry("a", 1, true, "old")},
			before:   cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"),
			want:     []omev1beta1.TrafficMapEntry{entry("a", 1, true)},
			routable: cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := trafficmap.Result{Entries: tt.entries, Routable: tt.before}
			inCopy := make([]omev1beta1.TrafficMapEntry, len(tt.entries))
			for i := range tt.entries {
				tt.entries[i].DeepCopyInto(&inCopy[i])
			}
			got := Apply(in, tt.overrides)
			if !equality.Semantic.DeepEqual(got.Entries, tt.want) {
				t.Errorf("entries:\n got %+v\nwant %+v", got.Entries, tt.want)
			}
			if got.Routable != tt.routable {
				t.Errorf("routable = %+v, want %+v", got.Routable, tt.routable)
			}
			if !equality.Semantic.DeepEqual(in.Entries, inCopy) {
				t.Errorf("Apply modified its input: %+v", in.Entries)
			}
		})
	}
}

// A drained home's Shadow load record says it would get no weight either, and the input's
// record is not modified.
func TestApplyHoldsADrainedShadowWeightAtZero(t *testing.T) {
	shadow := func(cluster string, weight, shadowWeight int32) omev1beta1.TrafficMapEntry {
		e := entry(cluster, weight, true)
		e.Load = &omev1beta1.TrafficMapLoad{Mode: omev1beta1.LoadBalancingShadow, SharePercent: 50, ShadowWeight: ptr.To(shadowWeight)}
		return e
	}
	in := trafficmap.Result{Entries: []omev1beta1.TrafficMapEntry{shadow("a", 2, 1), shadow("b", 2, 2)}}
	out := Apply(in, []Override{{"x", "a", "r"}})
	if got := *out.Entries[0].Load.ShadowWeight; got != 0 {
		t.Errorf("drained a: shadowWeight %d, want 0", got)
	}
	if got := *out.Entries[1].Load.ShadowWeight; got != 2 {
		t.Errorf("b: shadowWeight %d, want 2 as it was", got)
	}
	if got := *in.Entries[0].Load.ShadowWeight; got != 1 {
		t.Errorf("the input's record changed: shadowWeight %d, want 1", got)
	}
}

func TestOverrideActive(t *testing.T) {
	tests := []struct {
		name      string
		overrides []Override
		entries   []omev1beta1.TrafficMapEntry
		want      trafficmap.Condition
	}{
		{
			name:    "no overrides",
			entries: []omev1beta1.TrafficMapEntry{entry("a", 1, true)},
			want:    cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonNoOverrides, "no traffic-drain annotation override is configured"),
		},
		{
			name:      "pending: no entry matches",
			overrides: []Override{{"x", "worker-z", "r"}, {"y", "worker-y", "r"}},
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 1, true)},
			want:      cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonOverridesPending, "2 traffic-drain annotation override(s) pending; no matching routable arm"),
		},
		{
			name:      "pending with no entries at all",
			overrides: []Override{{"x", "a", "r"}},
			want:      cond(metav1.ConditionFalse, omev1beta1.TrafficMapReasonOverridesPending, "1 traffic-drain annotation override(s) pending; no matching routable arm"),
		},
		{
			name:      "applied",
			overrides: []Override{{"maintenance-a", "a", "r"}},
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 0, true, "maintenance-a"), entry("b", 1, true)},
			want: cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonOverridesApplied,
				"1 of 1 traffic-drain annotation override(s) active across 1 route arm(s); inspect spec.entries[].drainRefs"),
		},
		{
			name:      "partly applied counts only the matching overrides",
			overrides: []Override{{"x", "a", "r"}, {"y", "a", "r"}, {"z", "b", "r"}, {"typo", "q", "r"}},
			entries:   []omev1beta1.TrafficMapEntry{entry("a", 0, true, "x", "y"), entry("b", 0, true, "z"), entry("c", 1, true)},
			want: cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonOverridesApplied,
				"3 of 4 traffic-drain annotation override(s) active across 2 route arm(s); inspect spec.entries[].drainRefs"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OverrideActive(tt.overrides, tt.entries); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestApplyThenOverrideActive runs the two the way the controller does, from the
// annotation's text.
func TestApplyThenOverrideActive(t *testing.T) {
	overrides, err := Parse(`{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`, true)
	if err != nil {
		t.Fatal(err)
	}
	got := Apply(trafficmap.Result{
		Entries:  []omev1beta1.TrafficMapEntry{entry("worker-a", 1, true), entry("worker-b", 1, true)},
		Routable: cond(metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "2 of 2 home(s) take traffic"),
	}, overrides)
	c := OverrideActive(overrides, got.Entries)
	if c.Reason != omev1beta1.TrafficMapReasonOverridesApplied || got.Entries[0].Weight != 0 || got.Entries[1].Weight != 1 {
		t.Errorf("entries %+v, OverrideActive %+v", got.Entries, c)
	}
}
