package placement

import "strings"

// fallbackCode condenses a home's capacity.fallbackReason into the short code the table
// shows (the JSON and YAML reports keep the whole reason). An empty reason means polling
// is off or produced a usable ceiling: nothing recorded.
func fallbackCode(reason string) string {
	switch {
	case reason == "":
		return NotRecorded
	case reason == "no capacity report yet":
		return "NoReport"
	case strings.HasPrefix(reason, "capacity target is invalid:"):
		return "InvalidTarget"
	case reason == "capacity clock is not configured":
		return "ClockUnavailable"
	case reason == "capacity observer executor is not configured",
		strings.HasPrefix(reason, "capacity observation could not be submitted:"):
		return "ObserverUnavailable"
	case strings.HasPrefix(reason, "capacity endpoint unreachable:"):
		return "Unreachable"
	case strings.HasPrefix(reason, "capacity endpoint returned HTTP "):
		return "HTTPError"
	case strings.HasPrefix(reason, "reading capacity response:"):
		return "ResponseReadError"
	case strings.HasPrefix(reason, "capacity request did not complete:"):
		return "RequestIncomplete"
	case strings.HasPrefix(reason, "capacity report is negative ("),
		reason == "capacity report timestamp is in the future":
		return "InvalidReport"
	case strings.HasPrefix(reason, "capacity report is stale ("):
		return "StaleReport"
	case strings.HasPrefix(reason, "capacity report awaiting quorum ("),
		strings.HasPrefix(reason, "capacity report awaiting quorum after stale samples expired ("):
		return "AwaitingQuorum"
	}
	return OtherReportedReason
}
