package capacity

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ome-routing/operator/pkg/observer"
)

// FormatReport is the format whose answer is {"servable": n, "observedAt": "RFC 3339"}.
const FormatReport = "Report"

// reportFormat sends one request with the poll's method, no body and no credentials, to
// the entry's endpoint joined with the poll's path, and reads a JSON report.
type reportFormat struct{}

func (reportFormat) CheckOptions(options map[string]string) error {
	if len(options) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(options))
	return fmt.Errorf("format %q takes no options, got [%s]", FormatReport, strings.Join(keys, " "))
}

func (reportFormat) Request(endpoint string, p Policy) (observer.Request, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return observer.Request{}, errors.New(InvalidTarget(err))
	}
	if u.Scheme == "" || u.Host == "" {
		return observer.Request{}, errors.New(InvalidTarget(fmt.Errorf("endpoint %q has no scheme or host", endpoint)))
	}
	// JoinPath keeps the endpoint's own path (a shared gateway host routes by it) and
	// adds exactly one "/" between it and the poll's path.
	full, err := url.JoinPath(endpoint, p.Path)
	if err != nil {
		return observer.Request{}, errors.New(InvalidURL(err))
	}
	if _, err := http.NewRequest(p.Method, full, nil); err != nil {
		return observer.Request{}, errors.New(Unbuildable(err))
	}
	return observer.Request{Method: p.Method, URL: full, Timeout: p.Timeout, KeepBody: true}, nil
}

// report is the answer's JSON. Pointers tell a missing field from a zero one; servable is
// read wider than int32 so that an out-of-range count is named, not silently wrapped.
// Other fields are ignored, so a reporter may add its own.
type report struct {
	Servable   *int64  `json:"servable"`
	ObservedAt *string `json:"observedAt"`
}

func (reportFormat) Interpret(res observer.Result, now time.Time, p Policy) Outcome {
	fail := func(reason string) Outcome { return Outcome{Counted: true, Failure: reason} }
	switch res.Outcome {
	case observer.OutcomeCancelled:
		return Outcome{}
	case observer.OutcomeTransportError:
		if timedOut(res.Err) {
			return fail(Incomplete(res.Err))
		}
		return fail(Unreachable(res.Err))
	case observer.OutcomeBodyError:
		return fail(ReadFailed(res.Err))
	}
	if res.StatusCode != http.StatusOK {
		return fail(HTTPStatus(res.StatusCode))
	}
	if res.Truncated {
		return fail(TooLarge(res.BytesRead))
	}
	var r report
	if err := json.Unmarshal(res.Body, &r); err != nil {
		return fail(InvalidReport(err))
	}
	switch {
	case r.Servable == nil:
		return fail(ReasonNoServable)
	case r.ObservedAt == nil:
		return fail(ReasonNoObservedAt)
	case *r.Servable < 0:
		return fail(Negative(*r.Servable))
	case *r.Servable > math.MaxInt32:
		return fail(InvalidReport(fmt.Errorf("servable %d is larger than %d", *r.Servable, math.MaxInt32)))
	}
	// RFC 3339 requires a zone ("Z" or an offset), so a local time cannot be misread.
	at, err := time.Parse(time.RFC3339, *r.ObservedAt)
	if err != nil {
		return fail(InvalidReport(fmt.Errorf("observedAt: %w", err)))
	}
	if at.After(now) {
		return fail(ReasonFuture)
	}
	if now.Sub(at) >= p.MaxAge {
		return fail(Stale(p.MaxAge))
	}
	return Outcome{Counted: true, Reading: &Reading{Servable: int32(*r.Servable), ObservedAt: at}}
}

// timedOut tells a request that ran out of its timeout from one that could not connect.
func timedOut(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
