package recorder

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/eventseries"
)

// The routing suite runs the recorder against an API server (recorder_test.go there);
// these are the parts that need none.

func testScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := omev1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// An event names its objects as client-go's does, in the regarded object's namespace
// (default for a cluster-scoped one), with its note cut to the API's limit.
func TestMakeEvent(t *testing.T) {
	r := New(nil, testScheme(t), "ome-routing", eventseries.DefaultLimits, logr.Discard())
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "chat", UID: "u1"}}
	wc := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: "worker-b"}}
	ev, err := r.makeEvent(isvc, wc, corev1.EventTypeWarning, "HomeGated", "Probe", strings.Repeat("é", 600))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Namespace != "ns" || !strings.HasPrefix(ev.Name, "chat.") || ev.Regarding.Kind != "InferenceService" || ev.Regarding.UID != "u1" ||
		ev.Related == nil || ev.Related.Kind != "WorkloadCluster" || ev.Related.Name != "worker-b" {
		t.Fatalf("event %+v", ev)
	}
	if len(ev.Note) > maxNoteBytes || !utf8.ValidString(ev.Note) {
		t.Fatalf("note of %d bytes", len(ev.Note))
	}
	if ev.ReportingController != "ome-routing" || !strings.HasPrefix(ev.ReportingInstance, "ome-routing-") || ev.EventTime.IsZero() {
		t.Fatalf("event %+v", ev)
	}
	cluster, err := r.makeEvent(wc, nil, corev1.EventTypeNormal, "R", "A", "n")
	if err != nil || cluster.Namespace != metav1.NamespaceDefault || cluster.Related != nil {
		t.Fatalf("cluster-scoped: %+v, %v", cluster, err)
	}
	if _, err := r.makeEvent(&corev1.Pod{}, nil, corev1.EventTypeNormal, "R", "A", "n"); err == nil ||
		!strings.HasPrefix(err.Error(), "reference the object regarded: ") {
		t.Fatalf("an object outside the scheme: %v, want an error naming the object regarded", err)
	}
	if _, err := r.makeEvent(isvc, &corev1.Pod{}, corev1.EventTypeNormal, "R", "A", "n"); err == nil ||
		!strings.HasPrefix(err.Error(), "reference the related object: ") {
		t.Fatalf("a related object outside the scheme: %v, want an error naming the related object", err)
	}
}

func TestEventNameFits(t *testing.T) {
	name := eventName(strings.Repeat("a", 253), time.Now())
	if len(name) > 253 || !strings.Contains(name, ".") {
		t.Fatalf("name %q of %d characters", name, len(name))
	}
}

func TestRetryable(t *testing.T) {
	gr := schema.GroupResource{Group: "events.k8s.io", Resource: "events"}
	cases := []struct {
		err  error
		want bool
	}{
		{errors.New("connection refused"), true},
		{apierrors.NewServiceUnavailable("later"), true},
		{apierrors.NewTooManyRequests("busy", 1), true},
		{apierrors.NewInternalError(errors.New("etcd")), true},
		{apierrors.NewForbidden(gr, "e", errors.New("no")), false},
		{apierrors.NewInvalid(schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}, "e", nil), false},
	}
	for _, tc := range cases {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
