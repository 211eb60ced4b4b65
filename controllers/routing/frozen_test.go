package routing

import (
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/pkg/text"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// A frozen map re-applies the routing share's fields as they stand (mapstatus.Kept), so the
// fields a normal reconcile writes must be exactly the ones named there: one missing would
// be dropped from the frozen map by the apply.
func TestRoutingStatusFieldsAreTheKeptOnes(t *testing.T) {
	fields := routingStatusFields(&omev1beta1.InferenceService{}, trafficmap.Result{}, nil, mapView{})
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(mapstatus.RoutingFields))
	if !slices.Equal(names, want) {
		t.Fatalf("routing status fields %v, mapstatus.RoutingFields %v", names, want)
	}
}

func TestSettingsAccepted(t *testing.T) {
	tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Generation: 7}}
	ok := settingsAccepted(tm, nil)
	if ok.Status != metav1.ConditionTrue || ok.Reason != string(omev1beta1.TrafficMapReasonSettingsAccepted) || ok.Message != "" || ok.ObservedGeneration != 7 {
		t.Fatalf("accepted = %+v", ok)
	}
	const msg = "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"
	refused := settingsAccepted(tm, errors.New(msg))
	if refused.Status != metav1.ConditionFalse || refused.Reason != string(omev1beta1.TrafficMapReasonRoutingPolicyRefused) || refused.Message != msg {
		t.Fatalf("refused = %+v", refused)
	}
}

// A refusal quoting more than a condition holds (every problem of a long setting) is cut
// to the condition's maxLength: the frozen map's status write is never refused for it.
func TestSettingsAcceptedCutsALongRefusal(t *testing.T) {
	tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Generation: 7}}
	refused := settingsAccepted(tm, errors.New(strings.Repeat("é", text.MaxConditionMessageBytes)))
	if len(refused.Message) > text.MaxConditionMessageBytes || len(refused.Message) < text.MaxConditionMessageBytes-1 {
		t.Fatalf("a refusal of %d bytes gives a message of %d bytes", 2*text.MaxConditionMessageBytes, len(refused.Message))
	}
}
