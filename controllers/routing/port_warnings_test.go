package routing

import (
	"testing"

	"k8s.io/client-go/tools/events"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestAnnouncePortWarnings(t *testing.T) {
	isvc := &omev1beta1.InferenceService{}
	entry := func(cluster, warning string) omev1beta1.TrafficMapEntry {
		return omev1beta1.TrafficMapEntry{Cluster: cluster, Warning: warning}
	}
	mapOf := func(entries ...omev1beta1.TrafficMapEntry) *omev1beta1.TrafficMap {
		return &omev1beta1.TrafficMap{Spec: omev1beta1.TrafficMapSpec{Entries: entries}}
	}
	for _, tc := range []struct {
		name    string
		current *omev1beta1.TrafficMap
		entries []omev1beta1.TrafficMapEntry
		want    []string
	}{
		{"a new map with a warning", nil, []omev1beta1.TrafficMapEntry{entry("worker-a", "w1")},
			[]string{"Warning ProbePortMismatch Cluster worker-a: w1"}},
		{"a warning starts", mapOf(entry("worker-a", "")), []omev1beta1.TrafficMapEntry{entry("worker-a", "w1")},
			[]string{"Warning ProbePortMismatch Cluster worker-a: w1"}},
		// Every probe round writes the map again: the same warning is not news.
		{"the same warning", mapOf(entry("worker-a", "w1")), []omev1beta1.TrafficMapEntry{entry("worker-a", "w1")}, nil},
		{"the warning changes", mapOf(entry("worker-a", "w1")), []omev1beta1.TrafficMapEntry{entry("worker-a", "w2")},
			[]string{"Warning ProbePortMismatch Cluster worker-a: w2"}},
		{"the warning goes", mapOf(entry("worker-a", "w1")), []omev1beta1.TrafficMapEntry{entry("worker-a", "")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(10)
			r := &Reconciler{Recorder: rec}
			r.announcePortWarnings(isvc, tc.current, tc.entries)
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}
