package capacity

import (
	"fmt"
	"time"
)

// Fallback reasons: why a home whose service is polled has no ceiling. They are written to
// the entry's capacity.fallbackReason, where scripts match them, so they are exact.
const (
	ReasonNoReport       = "no capacity report yet"
	ReasonFuture         = "capacity report timestamp is in the future"
	ReasonNoServable     = "capacity report has no servable count"
	ReasonNoObservedAt   = "capacity report has no observedAt stamp"
	reasonUnreachable    = "capacity endpoint unreachable: "
	reasonHTTP           = "capacity endpoint returned HTTP "
	reasonInvalidReport  = "capacity response is not a valid report: "
	reasonReading        = "reading capacity response: "
	reasonIncomplete     = "capacity request did not complete: "
	reasonInvalidTarget  = "capacity target is invalid: "
	reasonInvalidURL     = "capacity request URL is invalid: "
	reasonUnbuildable    = "capacity request could not be built: "
	reasonNegativeFormat = "capacity report is negative (%d)"
)

// AwaitingQuorum is the reason while fewer than quorum readings are held.
func AwaitingQuorum(n int, quorum int32) string {
	return fmt.Sprintf("capacity report awaiting quorum (%d/%d accepted samples)", n, quorum)
}

// AwaitingQuorumAfterExpiry is the reason when readings expired and fewer than quorum
// remain.
func AwaitingQuorumAfterExpiry(n int, quorum int32) string {
	return fmt.Sprintf("capacity report awaiting quorum after stale samples expired (%d/%d accepted samples)", n, quorum)
}

// Stale is the reason when every reading is too old, or a report arrived too old.
func Stale(maxAge time.Duration) string {
	return fmt.Sprintf("capacity report is stale (at least configured maximum age %s)", maxAge)
}

// Negative is the reason for a report with a negative servable count.
func Negative(n int64) string { return fmt.Sprintf(reasonNegativeFormat, n) }

// HTTPStatus is the reason for an answer other than 200.
func HTTPStatus(code int) string { return fmt.Sprintf("%s%d", reasonHTTP, code) }

// TooLarge is the reason for a body longer than routing.observer.maxResponseBytes.
func TooLarge(limit int64) string {
	return fmt.Sprintf("%sresponse exceeds configured limit of %d bytes", reasonReading, limit)
}

// Unreachable is the reason for a poll whose connection failed.
func Unreachable(err error) string { return reasonUnreachable + err.Error() }

// InvalidReport is the reason for a body that is not a valid report.
func InvalidReport(err error) string { return reasonInvalidReport + err.Error() }

// ReadFailed is the reason for a body that could not be read.
func ReadFailed(err error) string { return reasonReading + err.Error() }

// Incomplete is the reason for a request that did not complete, such as one that ran out
// of its timeout.
func Incomplete(err error) string { return reasonIncomplete + err.Error() }

// InvalidTarget is the reason for an endpoint that cannot be polled.
func InvalidTarget(err error) string { return reasonInvalidTarget + err.Error() }

// InvalidURL is the reason for a poll URL that does not parse.
func InvalidURL(err error) string { return reasonInvalidURL + err.Error() }

// Unbuildable is the reason for a request that could not be built.
func Unbuildable(err error) string { return reasonUnbuildable + err.Error() }
