package routing

import (
	"slices"
	"testing"

	"k8s.io/client-go/tools/events"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestAnnounceLoadShifts(t *testing.T) {
	isvc := &omev1beta1.InferenceService{}
	entry := func(cluster string, mode omev1beta1.LoadBalancingMode, share int32, message string) omev1beta1.TrafficMapEntry {
		e := omev1beta1.TrafficMapEntry{Cluster: cluster}
		if mode != "" {
			e.Load = &omev1beta1.TrafficMapLoad{Mode: mode, SharePercent: share, Message: message}
		}
		return e
	}
	mapOf := func(entries ...omev1beta1.TrafficMapEntry) *omev1beta1.TrafficMap {
		return &omev1beta1.TrafficMap{Spec: omev1beta1.TrafficMapSpec{Entries: entries}}
	}
	const fell = "saturated (cache 100% of 80%: 125%): share 100% -> 75%"
	for _, tc := range []struct {
		name    string
		current *omev1beta1.TrafficMap
		entries []omev1beta1.TrafficMapEntry
		want    []string
	}{
		{"a first record at the whole share is not news", nil,
			[]omev1beta1.TrafficMapEntry{entry("worker-a", omev1beta1.LoadBalancingEnforce, 100, "within target")}, nil},
		{"a first record below the whole share", nil,
			[]omev1beta1.TrafficMapEntry{entry("worker-a", omev1beta1.LoadBalancingEnforce, 75, fell)},
			[]string{"Normal LoadShifted Cluster worker-a: " + fell}},
		{"a share falls under Enforce", mapOf(entry("worker-a", omev1beta1.LoadBalancingEnforce, 100, "within target")),
			[]omev1beta1.TrafficMapEntry{entry("worker-a", omev1beta1.LoadBalancingEnforce, 75, fell)},
			[]string{"Normal LoadShifted Cluster worker-a: " + fell}},
		{"a share falls under Shadow: the weight is unchanged", mapOf(entry("worker-a", omev1beta1.LoadBalancingShadow, 100, "within target")),
			[]omev1beta1.TrafficMapEntry{entry("worker-a", omev1beta1.LoadBalancingShadow, 75, fell)},
			[]string{"Normal LoadShifted Cluster worker-a: " + fell + " (Shadow mode: its weight is unchanged)"}},
		// The record is rewritten when the reading changes band: the same share is not news.
		{"the same share", mapOf(entry("worker-a", omev1beta1.LoadBalancingEnforce, 75, fell)),
			[]omev1beta1.TrafficMapEntry{entry("worker-a", omev1beta1.LoadBalancingEnforce, 75, "within target (cache 70% of 80%: 88%): holds at 75%")}, nil},
		{"load balancing turned off", mapOf(entry("worker-a", omev1beta1.LoadBalancingEnforce, 75, fell)),
			[]omev1beta1.TrafficMapEntry{entry("worker-a", "", 0, "")}, nil},
		{"only the home whose share moved", mapOf(entry("worker-a", omev1beta1.LoadBalancingEnforce, 100, "x"), entry("worker-b", omev1beta1.LoadBalancingEnforce, 100, "y")),
			[]omev1beta1.TrafficMapEntry{entry("worker-a", omev1beta1.LoadBalancingEnforce, 100, "x"), entry("worker-b", omev1beta1.LoadBalancingEnforce, 75, fell)},
			[]string{"Normal LoadShifted Cluster worker-b: " + fell}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(10)
			r := &Reconciler{Recorder: rec}
			r.announceLoadShifts(isvc, tc.current, tc.entries)
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
