package routing

import (
	"errors"
	"fmt"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/retry"
)

// checkRetry refuses a service's retry or timeouts that break a rule; the publisher writes
// them, but a bad one freezes the service's map here, as every refused routing setting
// does, so that the route keeps what it had. The CRD's CEL rules refuse them first; a
// setting stored under an older schema reaches this check.
func checkRetry(isvc *omev1beta1.InferenceService) error {
	r, t := retry.Service(isvc)
	errs := retry.Validate(r, t, retry.ServicePath)
	for i, e := range errs {
		errs[i] = fmt.Errorf("validate routing policy: %w", e)
	}
	return errors.Join(errs...)
}
