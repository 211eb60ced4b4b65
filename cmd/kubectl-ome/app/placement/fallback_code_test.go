package placement

import "testing"

func TestFallbackCode(t *testing.T) {
	cases := map[string]string{
		"":                       "NotRecorded",
		"no capacity report yet": "NoReport",
		`capacity target is invalid: endpoint "x" has no scheme or host`:                     "InvalidTarget",
		"capacity observation could not be submitted: full":                                  "ObserverUnavailable",
		"capacity endpoint unreachable: dial tcp: connection refused":                        "Unreachable",
		"capacity endpoint returned HTTP 404":                                                "HTTPError",
		"reading capacity response: response exceeds configured limit of 10 bytes":           "ResponseReadError",
		"capacity request did not complete: context deadline exceeded":                       "RequestIncomplete",
		"capacity report is negative (-1)":                                                   "InvalidReport",
		"capacity report timestamp is in the future":                                         "InvalidReport",
		"capacity report is stale (at least configured maximum age 40s)":                     "StaleReport",
		"capacity report awaiting quorum (1/3 accepted samples)":                             "AwaitingQuorum",
		"capacity report awaiting quorum after stale samples expired (1/2 accepted samples)": "AwaitingQuorum",
		"capacity response is not a valid report: unexpected EOF":                            "OtherReportedReason",
	}
	for reason, want := range cases {
		if got := fallbackCode(reason); got != want {
			t.Errorf("fallbackCode(%q) = %q, want %q", reason, got, want)
		}
	}
}
