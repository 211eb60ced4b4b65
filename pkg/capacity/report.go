package capacity

import (
	"bytes"
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
	Servable   *int64
	ObservedAt *string
}

// decodeReport reads a report with its keys matched exactly. encoding/json would match
// "SERVABLE", "Servable" and even "ſervable" (its case folding is Unicode's) to the
// servable field, and let the last of several win, so two reporters, or one reporter and
// whatever sits between it and the control plane, could read one answer differently.
// A key that appears twice, or a report field spelled in another case, is refused.
func decodeReport(body []byte) (report, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return report{}, err
	}
	if err := refuseDuplicateKeys(body); err != nil {
		return report{}, err
	}
	var r report
	if raw, ok := fields["servable"]; ok {
		if err := json.Unmarshal(raw, &r.Servable); err != nil {
			return report{}, fmt.Errorf("servable: %w", err)
		}
	}
	if raw, ok := fields["observedAt"]; ok {
		if err := json.Unmarshal(raw, &r.ObservedAt); err != nil {
			return report{}, fmt.Errorf("observedAt: %w", err)
		}
	}
	return r, nil
}

// reportFields are the keys a report is read by.
var reportFields = []string{"servable", "observedAt"}

// refuseDuplicateKeys walks the top-level object of body, which json.Unmarshal has
// already found valid, and names the first key that appears a second time, or that
// spells a report field in another case (which a case-insensitive reader would take for
// it). Keys are compared once unescaped, so "\u0073ervable" repeats "servable".
func refuseDuplicateKeys(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return nil // null: no keys
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("key %q appears more than once", key)
		}
		for _, field := range reportFields {
			if key != field && strings.EqualFold(key, field) {
				return fmt.Errorf("key %q differs from %q only in case; report keys are matched exactly", key, field)
			}
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
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
	r, err := decodeReport(res.Body)
	if err != nil {
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
