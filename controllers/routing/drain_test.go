package routing

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestDrainAnnotationChanged(t *testing.T) {
	with := func(annotations map[string]string) *omev1beta1.InferenceService {
		return &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}
	}
	const key = "ome.io/traffic-drain"
	tests := []struct {
		name     string
		old, new map[string]string
		want     bool
	}{
		{"added", nil, map[string]string{key: "{}"}, true},
		{"removed", map[string]string{key: "{}"}, map[string]string{"x": "y"}, true},
		{"changed", map[string]string{key: "{}"}, map[string]string{key: "{ }"}, true},
		{"empty value added", map[string]string{}, map[string]string{key: ""}, true},
		{"unchanged", map[string]string{key: "{}", "x": "1"}, map[string]string{key: "{}", "x": "2"}, false},
		{"absent both times", nil, map[string]string{"x": "y"}, false},
	}
	p := drainAnnotationChanged()
	for _, tt := range tests {
		if got := p.Update(event.UpdateEvent{ObjectOld: with(tt.old), ObjectNew: with(tt.new)}); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseDrainsPrefix(t *testing.T) {
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"ome.io/traffic-drain": "[]"}}}
	_, err := parseDrains(isvc)
	if err == nil || err.Error() != "parse ome.io/traffic-drain: top-level value must be a JSON object keyed by override ID" {
		t.Errorf("got %v", err)
	}
}
