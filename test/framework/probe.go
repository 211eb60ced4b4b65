package framework

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// GuideProbe is the routing guide's Step 1 probe (GET /v1/models, 200 passes, 404 and
// 5xx gate, three failures gate and two passes lift) with the given period, timeout and
// all-failed policy: the probe every suite and the bench start from.
func GuideProbe(period, timeout time.Duration, policy omev1beta1.AllFailedPolicy) *omev1beta1.RoutingProbe {
	return &omev1beta1.RoutingProbe{
		Path:             "/v1/models",
		Method:           omev1beta1.ProbeMethodGet,
		AcceptStatuses:   []omev1beta1.HTTPStatus{200},
		GateStatuses:     []omev1beta1.HTTPStatus{404, 500, 502, 503, 504},
		Period:           &metav1.Duration{Duration: period},
		Timeout:          &metav1.Duration{Duration: timeout},
		FailureThreshold: ptr.To[int32](3),
		SuccessThreshold: ptr.To[int32](2),
		AllFailedPolicy:  policy,
	}
}
