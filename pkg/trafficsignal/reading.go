package trafficsignal

import (
	"time"

	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/text"
)

// Reading joins the two queries' values into one cluster's reading over window: Known only
// when both are.
func Reading(requests, failures Value, window time.Duration) passivegate.Reading {
	r := passivegate.Reading{Window: window}
	switch {
	case !requests.Known:
		r.Reason = text.Cap("requests: "+requests.Reason, MaxReasonBytes)
	case !failures.Known:
		r.Reason = text.Cap("failures: "+failures.Reason, MaxReasonBytes)
	default:
		r.Known, r.Requests, r.Failures = true, requests.Number, failures.Number
	}
	return r
}
