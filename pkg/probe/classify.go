package probe

import (
	"fmt"
	"strings"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxMessageBytes is the longest message Classify returns: the CRD's maxLength for the
// probe record's message. The CRD counts characters, so a byte cap is always within it.
const MaxMessageBytes = 1024

// NotSentPrefix starts the message of a probe the observer refused to send.
const NotSentPrefix = "probe not sent: "

// Classify turns one attempt's outcome into a result and the message recorded with it.
// counted is false for a cancelled attempt (shutdown, lost leadership, a home removed):
// it says nothing about the home, so it must not be recorded or counted as a failure.
//
// A response's status decides, accept list first; a status in neither list is Unknown,
// which moves neither the counts nor the gate. A request or body error is Failing: the
// client did not get a full answer within the timeout.
func Classify(r observer.Result, p Policy) (result v1beta1.ProbeResult, message string, counted bool) {
	switch r.Outcome {
	case observer.OutcomeCancelled:
		return "", "", false
	case observer.OutcomeTransportError:
		if reason, notSent := observer.NotSent(r.Err); notSent {
			// The operator's own trouble (an endpoint it cannot use, or an address its
			// network guard refuses) is not the cluster's failure: Unknown, never a step
			// towards a gate. The reason quotes no URL, so no credential is recorded.
			return v1beta1.ProbeUnknown, text.Cap(NotSentPrefix+reason, MaxMessageBytes), true
		}
		return v1beta1.ProbeFailing, text.Cap("transport error: "+errText(r.Err), MaxMessageBytes), true
	case observer.OutcomeBodyError:
		return v1beta1.ProbeFailing, text.Cap("response body error: "+errText(r.Err), MaxMessageBytes), true
	case observer.OutcomeResponse:
		switch {
		case p.Accepts(r.StatusCode):
			return v1beta1.ProbePassing, fmt.Sprintf("HTTP %d", r.StatusCode), true
		case p.Gates(r.StatusCode):
			return v1beta1.ProbeFailing, fmt.Sprintf("HTTP %d", r.StatusCode), true
		default:
			return v1beta1.ProbeUnknown, fmt.Sprintf("HTTP %d (not in accept or gate list)", r.StatusCode), true
		}
	default:
		// An outcome this package does not know cannot justify moving traffic: record it
		// as Unknown, which leaves the counts and the gate alone, and say what it was.
		return v1beta1.ProbeUnknown, text.Cap(fmt.Sprintf("unrecognized observer outcome %q", r.Outcome), MaxMessageBytes), true
	}
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// Refusal says whether a home's probe record is a refusal of the operator's own (a probe
// Classify recorded as not sent: the observer's network guard refused every address, or
// the URL or scheme is unusable), and returns the record's message, which gives the
// cause and names the setting to change. Such a home takes no traffic: the operator
// cannot vouch for it, and the probe target is one it has decided is not to be reached.
// The record is the operator's own, restored from the map after a restart, so the
// refusal outlives one too.
func Refusal(record *v1beta1.TrafficMapProbe) (string, bool) {
	if record == nil || record.Result != v1beta1.ProbeUnknown || !strings.HasPrefix(record.Message, NotSentPrefix) {
		return "", false
	}
	return record.Message, true
}
