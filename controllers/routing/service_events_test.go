package routing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/related"
)

// regardingRecorder keeps, for each event, what it regards and its note.
type regardingRecorder struct {
	events.EventRecorder
	got []string
}

func (r *regardingRecorder) Eventf(regarding, _ runtime.Object, _, reason, _, note string, args ...any) {
	name := "?"
	switch o := regarding.(type) {
	case *omev1beta1.InferenceService:
		name = "InferenceService/" + o.Name + "/" + string(o.UID)
	case *omev1beta1.TrafficMap:
		name = "TrafficMap/" + o.Name + "/" + string(o.UID)
	}
	r.got = append(r.got, name+" "+reason+" "+fmt.Sprintf(note, args...))
}

// A service's events go on its map once the map is bound, and into the log; a map bound
// for another service of the same name (deleted and created again) gets none.
func TestServiceEvents(t *testing.T) {
	inner := &regardingRecorder{}
	var logged []string
	log := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{})
	rec := newServiceEvents(inner, log)
	r := &Reconciler{Recorder: rec}
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "chat", UID: "svc-1"}}
	tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "chat", UID: "map-1"}}

	r.Recorder.Eventf(isvc, related.WorkloadCluster("worker-b"), "Warning", EventHomeGated, actionProbe, "Cluster %s gated", "worker-b")
	r.bindMap(isvc, tm)
	r.Recorder.Eventf(isvc, related.WorkloadCluster("worker-b"), "Normal", EventHomeUngated, actionProbe, "Cluster %s gate lifted: %s", "worker-b", "100%")
	again := isvc.DeepCopy()
	again.UID = "svc-2"
	r.Recorder.Eventf(again, nil, "Warning", EventRoutingPolicyRefused, actionResolvePolicy, "%s", "refused")
	r.Recorder.Eventf(tm, nil, "Warning", "Other", "Publish", "%s", "about the map")
	r.forgetMap(types.NamespacedName{Namespace: "ns", Name: "chat"})
	r.Recorder.Eventf(isvc, nil, "Normal", EventHomeDrained, actionRoute, "%s", "after forget")

	want := []string{
		"InferenceService/chat/svc-1 HomeGated Cluster worker-b gated",
		"InferenceService/chat/svc-1 HomeUngated Cluster worker-b gate lifted: 100%",
		"TrafficMap/chat/map-1 HomeUngated Cluster worker-b gate lifted: 100%",
		"InferenceService/chat/svc-2 RoutingPolicyRefused refused",
		"TrafficMap/chat/map-1 Other about the map",
		"InferenceService/chat/svc-1 HomeDrained after forget",
	}
	if strings.Join(inner.got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("recorded\n%s\nwant\n%s", strings.Join(inner.got, "\n"), strings.Join(want, "\n"))
	}
	if len(logged) != 4 {
		t.Fatalf("logged %d events, want the 4 about services: %v", len(logged), logged)
	}
	if !strings.Contains(logged[1], `"reason"="HomeUngated"`) || !strings.Contains(logged[1], `"note"="Cluster worker-b gate lifted: 100%"`) ||
		!strings.Contains(logged[1], `"WorkloadCluster"="worker-b"`) {
		t.Fatalf("log line %s", logged[1])
	}
}

// A reconciler whose recorder cannot bind maps records on the service alone.
func TestBindMapWithoutServiceEvents(t *testing.T) {
	inner := &regardingRecorder{}
	r := &Reconciler{Recorder: inner}
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "chat", UID: "svc-1"}}
	r.bindMap(isvc, &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{UID: "map-1"}})
	r.forgetMap(types.NamespacedName{})
	r.Recorder.Eventf(isvc, nil, "Normal", EventHomeDrained, actionRoute, "%s", "x")
	if len(inner.got) != 1 {
		t.Fatalf("recorded %v", inner.got)
	}
}
