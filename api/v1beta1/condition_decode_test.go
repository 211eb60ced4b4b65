package v1beta1

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A status whose condition time the API server accepts but metav1.Time refuses decodes,
// with every other field intact.
func TestStatusConditionsDecodeWhatTheAPIServerAccepts(t *testing.T) {
	want := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tt := range []struct {
		name, time string
		want       metav1.Time
	}{
		{"upper case", "2026-01-01T00:00:00Z", want},
		{"lower case t and z", "2026-01-01t00:00:00z", want},
		{"garbage reads as zero", "not a time", metav1.Time{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"url":"http://a.example.com/","conditions":[{"type":"IngressReady","status":"True","lastTransitionTime":"` +
				tt.time + `","reason":"R","message":"m","observedGeneration":3}],"components":{"predictor":{"readyReplicas":2}}}`
			var s InferenceServiceStatus
			if err := json.Unmarshal([]byte(doc), &s); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if s.URL != "http://a.example.com/" || len(s.Conditions) != 1 || s.Components == nil {
				t.Fatalf("decoded %+v, want the url, one condition and the components", s)
			}
			c := s.Conditions[0]
			if c.Type != "IngressReady" || c.Status != metav1.ConditionTrue || c.Reason != "R" || c.Message != "m" ||
				c.ObservedGeneration != 3 || !c.LastTransitionTime.Equal(&tt.want) {
				t.Errorf("condition = %+v, want IngressReady True R m at generation 3 and %v", c, tt.want)
			}
			var wc WorkloadClusterStatus
			if err := json.Unmarshal([]byte(`{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"`+tt.time+`","reason":"R","message":""}],"observedGeneration":4}`), &wc); err != nil || len(wc.Conditions) != 1 || wc.ObservedGeneration != 4 {
				t.Errorf("WorkloadClusterStatus = %+v, %v", wc, err)
			}
			var tm TrafficMapStatus
			if err := json.Unmarshal([]byte(`{"conditions":[{"type":"Routable","status":"True","lastTransitionTime":"`+tt.time+`","reason":"R","message":""}],"published":true}`), &tm); err != nil || len(tm.Conditions) != 1 || !tm.Published {
				t.Errorf("TrafficMapStatus = %+v, %v", tm, err)
			}
		})
	}
}
