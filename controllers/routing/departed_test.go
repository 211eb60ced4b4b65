package routing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
)

func TestDepartedAnnotation(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	gated := &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbeFailing,
		Message: "HTTP 503", Gated: true, ConsecutiveFailures: 4}
	entry := func(cluster, endpoint string, p *omev1beta1.TrafficMapProbe) omev1beta1.TrafficMapEntry {
		return omev1beta1.TrafficMapEntry{Cluster: cluster, Endpoint: endpoint, Probe: p}
	}
	mapOf := func(annotation string, entries ...omev1beta1.TrafficMapEntry) *omev1beta1.TrafficMap {
		tm := &omev1beta1.TrafficMap{Spec: omev1beta1.TrafficMapSpec{Entries: entries}}
		if annotation != "" {
			tm.Annotations = map[string]string{DepartedProbesAnnotation: annotation}
		}
		return tm
	}
	a, b := entry("worker-a", "http://a.test", nil), entry("worker-b", "http://b.test", gated)
	left := departedAnnotation(mapOf("", a, b), []omev1beta1.TrafficMapEntry{a}, now)
	for _, tc := range []struct {
		name    string
		current *omev1beta1.TrafficMap
		entries []omev1beta1.TrafficMapEntry
		at      time.Time
		want    map[string]bool // clusters kept
	}{
		{"nobody leaves", mapOf("", a, b), []omev1beta1.TrafficMapEntry{a, b}, now, nil},
		{"a home with a record leaves", mapOf("", a, b), []omev1beta1.TrafficMapEntry{a}, now, map[string]bool{"worker-b": true}},
		{"a home without a record leaves: nothing to keep", mapOf("", a, b), []omev1beta1.TrafficMapEntry{b}, now, nil},
		{"still away", mapOf(left, a), []omev1beta1.TrafficMapEntry{a}, now.Add(time.Minute), map[string]bool{"worker-b": true}},
		{"back", mapOf(left, a), []omev1beta1.TrafficMapEntry{a, b}, now.Add(time.Minute), nil},
		{"away past the memory", mapOf(left, a), []omev1beta1.TrafficMapEntry{a}, now.Add(probing.DepartedHomeMemory), nil},
		{"an annotation that does not parse is dropped", mapOf("{not json", a), []omev1beta1.TrafficMapEntry{a}, now, nil},
		{"no map yet", nil, []omev1beta1.TrafficMapEntry{a}, now, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := departedAnnotation(tc.current, tc.entries, tc.at)
			kept := departedRecords(mapOf(got), tc.at)
			if len(kept) != len(tc.want) {
				t.Fatalf("kept %v (annotation %q), want %v", kept, got, tc.want)
			}
			for cluster := range tc.want {
				d, ok := kept[cluster]
				if !ok || d.Probe == nil || !d.Probe.Gated || d.Endpoint != "http://b.test" {
					t.Errorf("record of %s = %+v, want worker-b's gated record at its endpoint", cluster, d)
				}
			}
			if len(tc.want) == 0 && got != "" {
				t.Errorf("annotation %q, want none", got)
			}
		})
	}
	// The record keeps its first until: being away longer does not extend it.
	again := departedAnnotation(mapOf(left, a), []omev1beta1.TrafficMapEntry{a}, now.Add(time.Minute))
	if departedRecords(mapOf(again), now)["worker-b"].Until != departedRecords(mapOf(left), now)["worker-b"].Until {
		t.Error("a record's until moved while the home stayed away")
	}
	tm := mapOf(left)
	withDepartedAnnotation(tm, "")
	if tm.Annotations != nil {
		t.Errorf("annotations after removal = %v, want none", tm.Annotations)
	}
}

// A hundred homes with the longest endpoints and messages leaving at once: the map's
// annotations stay within what the API server accepts, and the newest departures keep
// their records.
func TestDepartedAnnotationStaysWritable(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	current := &omev1beta1.TrafficMap{}
	long := func(n int, c string) string { return strings.Repeat(c, n) }
	for i := range 100 {
		current.Spec.Entries = append(current.Spec.Entries, omev1beta1.TrafficMapEntry{
			Cluster:  fmt.Sprintf("worker-%03d", i),
			Endpoint: "http://" + long(2048-len("http://"), "<"),
			Probe:    &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbeFailing, Gated: true, Message: long(1024, "&")},
		})
	}
	// The first fifty left a minute ago; the rest leave now.
	old := departedAnnotation(current, current.Spec.Entries[50:], now.Add(-time.Minute))
	current.Annotations = map[string]string{DepartedProbesAnnotation: old}
	current.Spec.Entries = current.Spec.Entries[50:]
	value := departedAnnotation(current, nil, now)
	if len(value) > MaxDepartedProbesBytes {
		t.Fatalf("annotation of %d bytes, over the cap of %d", len(value), MaxDepartedProbesBytes)
	}
	tm := &omev1beta1.TrafficMap{}
	withDepartedAnnotation(tm, value)
	if errs := apivalidation.ValidateAnnotations(tm.Annotations, field.NewPath("metadata", "annotations")); len(errs) > 0 {
		t.Fatalf("the API server would refuse the map: %v", errs)
	}
	kept := departedRecords(tm, now)
	if len(kept) == 0 {
		t.Fatal("no record kept")
	}
	for c := range kept {
		if c < "worker-050" {
			t.Errorf("kept %s, which left a minute before the newest departures that were dropped", c)
		}
	}
}
