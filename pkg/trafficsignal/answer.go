package trafficsignal

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/prometheus/common/model"

	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxReasonBytes bounds why a reading is Unknown: the reason ends up in the TrafficMap
// entry's passiveGate.message, whose CRD allows 256 characters.
const MaxReasonBytes = 256

// MaxCount is the largest number a Known reading holds: 2^53, the last whole number a
// float64 keeps exact. A window's requests never come near it (it is a billion requests
// a second for over a hundred days), so a larger answer comes from a broken source or a
// query without bound, not from traffic: it reads Unknown rather than being recorded, and
// every count the map records (passiveGate.requests and failures, int64 and at least 0)
// stays within its schema.
const MaxCount = passivegate.MaxRecordedCount

// QueryURL is the instant query for promql at time at, against the API whose base is base.
func QueryURL(base, promql string, at time.Time) string {
	v := url.Values{}
	v.Set("query", promql)
	v.Set("time", strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64))
	return base + "/api/v1/query?" + v.Encode()
}

// Answer is what came back for one query, as the observer read it.
type Answer struct {
	// Err is set when no answer arrived (refused, unreachable, timed out).
	Err error
	// Status is the HTTP status.
	Status int
	// Body is what was read of the body; Truncated says it stopped at the byte cap.
	Body      []byte
	Truncated bool
}

// Value is one query's number, or why there is none.
type Value struct {
	Known  bool
	Reason string
	Number float64
}

func unknown(format string, args ...any) Value {
	return Value{Reason: text.Cap(fmt.Sprintf(format, args...), MaxReasonBytes)}
}

// apiAnswer is the envelope of every /api/v1/query answer.
type apiAnswer struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// ParseAnswer reads one answer for a query asked at asked over window. The value is
// Known only when the answer holds exactly one sample, a finite count from 0 to MaxCount,
// taken no earlier than one window before asked.
func ParseAnswer(a Answer, asked time.Time, window time.Duration) Value {
	switch {
	case a.Err != nil:
		return unknown("the query was not answered: %v", a.Err)
	case a.Truncated:
		return unknown("the answer is longer than routing.observer.maxResponseBytes")
	}
	var env apiAnswer
	if err := json.Unmarshal(a.Body, &env); err != nil {
		if a.Status != 200 {
			return unknown("the query API answered HTTP %d", a.Status)
		}
		return unknown("the answer is not the query API's JSON: %v", err)
	}
	if env.Status != "success" {
		return unknown("the query failed (HTTP %d, %s): %s", a.Status, env.ErrorType, env.Error)
	}
	var ts model.Time
	var v model.SampleValue
	switch env.Data.ResultType {
	case "vector":
		var vec model.Vector
		if err := json.Unmarshal(env.Data.Result, &vec); err != nil {
			return unknown("the answer's vector cannot be read: %v", err)
		}
		switch len(vec) {
		case 0:
			return unknown("the query gave no sample: no series matched, or none has samples over the window")
		case 1:
			ts, v = vec[0].Timestamp, vec[0].Value
		default:
			return unknown("the query gave %d series; it must give one (wrap it in sum)", len(vec))
		}
	case "scalar":
		var s model.Scalar
		if err := json.Unmarshal(env.Data.Result, &s); err != nil {
			return unknown("the answer's scalar cannot be read: %v", err)
		}
		ts, v = s.Timestamp, s.Value
	default:
		return unknown("the query gave a %s; it must give one sample", env.Data.ResultType)
	}
	n := float64(v)
	switch {
	case math.IsNaN(n) || math.IsInf(n, 0) || n < 0:
		return unknown("the query gave %v, which is not a count", n)
	case n > MaxCount:
		return unknown("the query gave %v, more than %d (2^53), which no window's requests reach: the source or the query is broken", n, int64(MaxCount))
	case ts.Time().Before(asked.Add(-window)):
		return unknown("the sample is from %s, older than the window (%s)", ts.Time().UTC().Format(time.RFC3339), window)
	}
	return Value{Known: true, Number: n}
}
