package trafficsignal

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The answers below are as Prometheus 2.42 gives them for /api/v1/query.
const (
	oneSample  = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000.5,"42"]}]}}`
	noSample   = `{"status":"success","data":{"resultType":"vector","result":[]}}`
	twoSeries  = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[1700000000,"1"]},{"metric":{"a":"2"},"value":[1700000000,"2"]}]}}`
	scalar     = `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"7"]}}`
	matrix     = `{"status":"success","data":{"resultType":"matrix","result":[]}}`
	badData    = `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error: unexpected \"}\""}`
	nanSample  = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"NaN"]}]}}`
	negative   = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"-3"]}]}}`
	past2to63  = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"9223372036854775808"]}]}}`
	atMaxCount = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"9007199254740992"]}]}}`
	pastMax    = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"9007199254740994"]}]}}`
	infSample  = `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"+Inf"]}}`
	staleValue = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1699999000,"5"]}]}}`
)

func TestParseAnswer(t *testing.T) {
	asked := time.Unix(1700000000, 0)
	window := 30 * time.Second
	cases := map[string]struct {
		a      Answer
		known  bool
		number float64
		reason string
	}{
		"one sample":   {Answer{Status: 200, Body: []byte(oneSample)}, true, 42, ""},
		"scalar":       {Answer{Status: 200, Body: []byte(scalar)}, true, 7, ""},
		"no sample":    {Answer{Status: 200, Body: []byte(noSample)}, false, 0, "the query gave no sample"},
		"two series":   {Answer{Status: 200, Body: []byte(twoSeries)}, false, 0, "the query gave 2 series; it must give one (wrap it in sum)"},
		"matrix":       {Answer{Status: 200, Body: []byte(matrix)}, false, 0, "the query gave a matrix; it must give one sample"},
		"bad query":    {Answer{Status: 400, Body: []byte(badData)}, false, 0, `the query failed (HTTP 400, bad_data): invalid parameter "query"`},
		"not json":     {Answer{Status: 502, Body: []byte("<html>bad gateway</html>")}, false, 0, "the query API answered HTTP 502"},
		"html 200":     {Answer{Status: 200, Body: []byte("<html>")}, false, 0, "the answer is not the query API's JSON"},
		"truncated":    {Answer{Status: 200, Body: []byte(oneSample[:20]), Truncated: true}, false, 0, "the answer is longer than routing.observer.maxResponseBytes"},
		"no answer":    {Answer{Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}, false, 0, "the query was not answered: dial tcp"},
		"NaN":          {Answer{Status: 200, Body: []byte(nanSample)}, false, 0, "the query gave NaN, which is not a count"},
		"negative":     {Answer{Status: 200, Body: []byte(negative)}, false, 0, "the query gave -3, which is not a count"},
		"2^63":         {Answer{Status: 200, Body: []byte(past2to63)}, false, 0, "the query gave 9.223372036854776e+18, more than 9007199254740992 (2^53)"},
		"2^53":         {Answer{Status: 200, Body: []byte(atMaxCount)}, true, MaxCount, ""},
		"past 2^53":    {Answer{Status: 200, Body: []byte(pastMax)}, false, 0, "the query gave 9.007199254740994e+15, more than"},
		"+Inf":         {Answer{Status: 200, Body: []byte(infSample)}, false, 0, "the query gave +Inf, which is not a count"},
		"too old":      {Answer{Status: 200, Body: []byte(staleValue)}, false, 0, "the sample is from 2023-11-14T21:56:40Z, older than the window (30s)"},
		"long message": {Answer{Err: errors.New(strings.Repeat("x", 1000))}, false, 0, "the query was not answered: xxx"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			v := ParseAnswer(c.a, asked, window)
			if v.Known != c.known || v.Number != c.number || !strings.HasPrefix(v.Reason, c.reason) {
				t.Fatalf("got %+v, want known %v number %v reason %q", v, c.known, c.number, c.reason)
			}
			if len(v.Reason) > MaxReasonBytes {
				t.Fatalf("reason of %d bytes", len(v.Reason))
			}
		})
	}
}

func TestQueryURL(t *testing.T) {
	u, err := url.Parse(QueryURL("http://p:9090", `sum(x{a="b"})`, time.UnixMilli(1700000000123)))
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/api/v1/query" || u.Query().Get("query") != `sum(x{a="b"})` || u.Query().Get("time") != "1700000000.123" {
		t.Fatalf("got %s", u)
	}
}

func TestReadingNeedsBothValues(t *testing.T) {
	known := Value{Known: true, Number: 10}
	if r := Reading(known, Value{Known: true, Number: 3}, time.Minute); !r.Known || r.Requests != 10 || r.Failures != 3 || r.Window != time.Minute {
		t.Fatalf("got %+v", r)
	}
	if r := Reading(Value{Reason: "down"}, known, time.Minute); r.Known || r.Reason != "requests: down" {
		t.Fatalf("got %+v", r)
	}
	if r := Reading(known, Value{Reason: "down"}, time.Minute); r.Known || r.Reason != "failures: down" {
		t.Fatalf("got %+v", r)
	}
}
