package samples

import (
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/probe"
)

// GuideProbe is the routing guide's Step 1 probe (GET /v1/models, 200 passes, 404 and
// 5xx gate, three failures gate and two passes lift) with the given period, timeout and
// all-failed policy: the probe the demo, every suite and the bench start from.
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

// ReportPoll is the capacity poll the demo and the data-plane suite run on the model
// servers: GET /capacity in the Report format, three samples with a quorum of two, on the
// probe's period and timeout, each reading good for three periods.
func ReportPoll(period, timeout time.Duration) *omev1beta1.RoutingCapacitySpec {
	return &omev1beta1.RoutingCapacitySpec{
		Path: "/capacity", Method: omev1beta1.ProbeMethodGet, Format: capacity.FormatReport,
		Samples: ptr.To[int32](3), Quorum: ptr.To[int32](2),
		Period: &metav1.Duration{Duration: period}, Timeout: &metav1.Duration{Duration: timeout},
		MaxAge: &metav1.Duration{Duration: 3 * period},
	}
}

// InstallationPolicies validates probeSpec and ReportPoll(period, timeout) as an
// installation's routing.probe and routing.capacity, for a settings file the demo or a
// suite writes: either refusal, or both, is the error.
func InstallationPolicies(probeSpec *omev1beta1.RoutingProbe, period, timeout time.Duration) (probe.Policy, capacity.Policy, error) {
	probePolicy, errs := probe.Validate(probe.SpecFromAPI(probeSpec), probe.InstallationPath)
	poll, pollErrs := capacity.Validate(capacity.SpecFromAPI(ReportPoll(period, timeout)), capacity.InstallationPath)
	return probePolicy, poll, errors.Join(append(errs, pollErrs...)...)
}
