package probe

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

func ptr[T any](v T) *T { return &v }

// step1API is the user guide's Step 1 probe, as a service would write it.
func step1API() *v1beta1.RoutingProbe {
	return &v1beta1.RoutingProbe{
		Path:             "/v1/models",
		Method:           v1beta1.ProbeMethodGet,
		AcceptStatuses:   []v1beta1.HTTPStatus{200},
		GateStatuses:     []v1beta1.HTTPStatus{404, 500, 502, 503, 504},
		Period:           &metav1.Duration{Duration: 10 * time.Second},
		Timeout:          &metav1.Duration{Duration: 3 * time.Second},
		FailureThreshold: ptr[int32](3),
		SuccessThreshold: ptr[int32](2),
		AllFailedPolicy:  v1beta1.AllFailedPreserveTraffic,
	}
}

// step1Spec is the Step 1 probe as a Spec, modified by each change in turn.
func step1Spec(changes ...func(*Spec)) Spec {
	s := SpecFromAPI(step1API())
	for _, change := range changes {
		change(&s)
	}
	return s
}

// step1Policy is the Step 1 probe after validation.
func step1Policy() Policy {
	return Policy{
		Path:             "/v1/models",
		Method:           "GET",
		AcceptStatuses:   []int32{200},
		GateStatuses:     []int32{404, 500, 502, 503, 504},
		Period:           10 * time.Second,
		Timeout:          3 * time.Second,
		FailureThreshold: 3,
		SuccessThreshold: 2,
		AllFailedPolicy:  v1beta1.AllFailedPreserveTraffic,
	}
}

func errorStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}
