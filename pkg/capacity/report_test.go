package capacity

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/pkg/observer"
)

func reportPolicy() Policy {
	return Policy{Path: "/capacity", Method: "GET", Format: FormatReport, Samples: 3, Quorum: 2,
		Period: 10 * time.Second, Timeout: 300 * time.Millisecond, MaxAge: 30 * time.Second}
}

func TestReportRequest(t *testing.T) {
	cases := []struct {
		endpoint, path string
		wantURL        string
		wantErr        string
	}{
		{endpoint: "http://qwen3-0-6b.qwen3-0-6b.worker-a.example.com", path: "/capacity",
			wantURL: "http://qwen3-0-6b.qwen3-0-6b.worker-a.example.com/capacity"},
		{endpoint: "http://llm.worker-a.example.com/qwen3-0-6b/qwen3-0-6b", path: "/capacity",
			wantURL: "http://llm.worker-a.example.com/qwen3-0-6b/qwen3-0-6b/capacity"},
		{endpoint: "http://qwen3-0-6b.qwen3-0-6b.worker-a.example.com:8080/", path: "/capacity",
			wantURL: "http://qwen3-0-6b.qwen3-0-6b.worker-a.example.com:8080/capacity"},
		{endpoint: "http://h:bad/", path: "/capacity",
			wantErr: `capacity target is invalid: parse "http://h:bad/": invalid port ":bad" after host`},
		{endpoint: "/qwen3-0-6b", path: "/capacity",
			wantErr: `capacity target is invalid: endpoint "/qwen3-0-6b" has no scheme or host`},
		{endpoint: "http://h", path: "/%zz",
			wantErr: `capacity request URL is invalid: invalid URL escape "%zz"`},
	}
	for _, tc := range cases {
		t.Run(tc.endpoint+tc.path, func(t *testing.T) {
			p := reportPolicy()
			p.Path = tc.path
			f, _ := Lookup(FormatReport)
			req, err := f.Request(tc.endpoint, p)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Request() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Request() error = %v", err)
			}
			if req.URL != tc.wantURL || req.Method != "GET" || req.Timeout != p.Timeout || !req.KeepBody {
				t.Errorf("Request() = %+v, want URL %s", req, tc.wantURL)
			}
		})
	}
	p := reportPolicy()
	p.Method = "BAD METHOD"
	f, _ := Lookup(FormatReport)
	if _, err := f.Request("http://h", p); err == nil || err.Error() != `capacity request could not be built: net/http: invalid method "BAD METHOD"` {
		t.Errorf("Request() with a bad method: error = %v", err)
	}
}

// maxBody is the observer's maxResponseBytes in these tests.
const maxBody = 256

// poll sends one Report poll through a real observer to a loopback server with handler,
// and interprets the answer at the time the answer came.
func poll(t *testing.T, p Policy, handler http.HandlerFunc) (Outcome, string) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return pollURL(t, p, srv.URL)
}

func pollURL(t *testing.T, p Policy, endpoint string) (Outcome, string) {
	t.Helper()
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 4, MaxResponseBytes: maxBody, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	f, _ := Lookup(p.Format)
	req, err := f.Request(endpoint, p)
	if err != nil {
		t.Fatal(err)
	}
	res := obs.Do(context.Background(), req)
	return f.Interpret(res, time.Now(), p), req.URL
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

func stamp(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339Nano) }

// Each fault of the capacity endpoint gives its exact fallback reason, against a real
// loopback server through the shared observer.
func TestReportFaults(t *testing.T) {
	p := reportPolicy()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    func(url string) string // the exact reason
	}{
		{"HTTP 404, as from a model server without a reporter route", answer(404, "not found"),
			func(string) string { return "capacity endpoint returned HTTP 404" }},
		{"HTTP 503", answer(503, `{"servable": 1}`),
			func(string) string { return "capacity endpoint returned HTTP 503" }},
		{"redirect, not followed", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) },
			func(string) string { return "capacity endpoint returned HTTP 302" }},
		{"invalid JSON", answer(200, `{"servable": 1,`),
			func(string) string { return "capacity response is not a valid report: unexpected end of JSON input" }},
		{"a number that is not an integer", answer(200, `{"servable": 1.5, "observedAt": "`+stamp(0)+`"}`),
			func(string) string {
				return "capacity response is not a valid report: servable: json: cannot unmarshal number 1.5 into Go value of type int64"
			}},
		// Keys match exactly: encoding/json alone would read these as servable.
		{"upper-case key", answer(200, `{"SERVABLE": 3, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return caseRefusal("SERVABLE", "servable") }},
		{"title-case key", answer(200, `{"Servable": 3, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return caseRefusal("Servable", "servable") }},
		{"long s key", answer(200, `{"ſervable": 7, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return caseRefusal("ſervable", "servable") }},
		{"case-folded observedAt", answer(200, `{"servable": 3, "observedat": "`+stamp(0)+`"}`),
			func(string) string { return caseRefusal("observedat", "observedAt") }},
		// Two spellings of one field would let the last win; a repeated key is refused.
		{"servable and Servable", answer(200, `{"servable": 1, "Servable": 9, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return caseRefusal("Servable", "servable") }},
		{"a longer key is an ordinary extra field", answer(200, `{"servable": 1, "servableReplicas": 9, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return "" }},
		{"servable twice", answer(200, `{"servable": 1, "servable": 9, "observedAt": "`+stamp(0)+`"}`),
			func(string) string {
				return `capacity response is not a valid report: key "servable" appears more than once`
			}},
		{"servable twice, once escaped", answer(200, `{"servable": 1, "\u0073ervable": 9, "observedAt": "`+stamp(0)+`"}`),
			func(string) string {
				return `capacity response is not a valid report: key "servable" appears more than once`
			}},
		{"an ignored key twice", answer(200, `{"servable": 1, "engine": "a", "engine": "b", "observedAt": "`+stamp(0)+`"}`),
			func(string) string {
				return `capacity response is not a valid report: key "engine" appears more than once`
			}},
		{"no servable", answer(200, `{"observedAt": "`+stamp(0)+`"}`),
			func(string) string { return "capacity report has no servable count" }},
		{"null servable", answer(200, `{"servable": null, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return "capacity report has no servable count" }},
		{"no observedAt", answer(200, `{"servable": 2}`),
			func(string) string { return "capacity report has no observedAt stamp" }},
		{"negative", answer(200, `{"servable": -1, "observedAt": "`+stamp(0)+`"}`),
			func(string) string { return "capacity report is negative (-1)" }},
		{"out of int32 range", answer(200, `{"servable": 2147483648, "observedAt": "`+stamp(0)+`"}`),
			func(string) string {
				return "capacity response is not a valid report: servable 2147483648 is larger than 2147483647"
			}},
		{"observedAt without a zone", answer(200, `{"servable": 1, "observedAt": "2026-11-30T09:00:00"}`),
			func(string) string {
				return `capacity response is not a valid report: observedAt: parsing time "2026-11-30T09:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"`
			}},
		{"future timestamp", answer(200, `{"servable": 1, "observedAt": "`+stamp(time.Hour)+`"}`),
			func(string) string { return "capacity report timestamp is in the future" }},
		{"stale on arrival", answer(200, `{"servable": 1, "observedAt": "`+stamp(-time.Minute)+`"}`),
			func(string) string { return "capacity report is stale (at least configured maximum age 30s)" }},
		{"body over the cap", answer(200, `{"servable": 1, "pad": "`+strings.Repeat("x", maxBody)+`"}`),
			func(string) string {
				return "reading capacity response: response exceeds configured limit of 256 bytes"
			}},
		{"hang until the timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			func(url string) string {
				return `capacity request did not complete: Get "` + url + `": context deadline exceeded`
			}},
		{"body cut short", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			fmt.Fprint(w, `{"servable": 1`)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}, func(url string) string {
			return `reading capacity response: Get "` + url + `": reading the response body: unexpected EOF`
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, url := poll(t, p, tc.handler)
			if tc.want(url) == "" {
				if out.Failure != "" || out.Reading == nil || out.Reading.Servable != 1 {
					t.Errorf("Interpret() = %+v, want an accepted reading of 1", out)
				}
				return
			}
			if !out.Counted || out.Reading != nil || out.Failure != tc.want(url) {
				t.Errorf("Interpret() = %+v (reading %v)\nwant failure %q", out, out.Reading, tc.want(url))
			}
		})
	}
}

func TestReportUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close()
	out, url := pollURL(t, reportPolicy(), endpoint)
	prefix := `capacity endpoint unreachable: Get "` + url + `": `
	if !strings.HasPrefix(out.Failure, prefix) || !strings.Contains(out.Failure, "connection refused") {
		t.Errorf("Failure = %q, want %q...connection refused", out.Failure, prefix)
	}
}

func TestReportAccepted(t *testing.T) {
	observed := time.Now().Add(-time.Second).UTC().Truncate(time.Second)
	var method, path string
	out, _ := poll(t, reportPolicy(), func(w http.ResponseWriter, r *http.Request) {
		method, path = r.Method, r.URL.Path
		answer(200, `{"servable": 3, "observedAt": "`+observed.Format(time.RFC3339)+`", "engine": "extra fields are ignored"}`)(w, r)
	})
	if out.Failure != "" || out.Reading == nil || out.Reading.Servable != 3 || !out.Reading.ObservedAt.Equal(observed) {
		t.Fatalf("Interpret() = %+v, want servable 3 observed at %v", out, observed)
	}
	if method != "GET" || path != "/capacity" {
		t.Errorf("request %s %s, want GET /capacity", method, path)
	}
	zero, _ := poll(t, reportPolicy(), answer(200, `{"servable": 0, "observedAt": "`+stamp(0)+`"}`))
	if zero.Reading == nil || zero.Reading.Servable != 0 {
		t.Errorf("servable 0: %+v, want an accepted reading of 0", zero)
	}
}

func TestReportHEADFallsBack(t *testing.T) {
	p := reportPolicy()
	p.Method = "HEAD"
	out, _ := poll(t, p, answer(200, `{"servable": 1, "observedAt": "`+stamp(0)+`"}`))
	if out.Failure != "capacity response is not a valid report: unexpected end of JSON input" {
		t.Errorf("HEAD poll: %+v, want an invalid report (no body)", out)
	}
}

func TestReportCancelledIsNotCounted(t *testing.T) {
	f, _ := Lookup(FormatReport)
	out := f.Interpret(observer.Result{Outcome: observer.OutcomeCancelled, Err: errors.New("gone")}, time.Now(), reportPolicy())
	if out.Counted {
		t.Errorf("a cancelled poll was counted: %+v", out)
	}
}

func TestRegistry(t *testing.T) {
	if got := Available(); len(got) != 1 || got[0] != "Report" {
		t.Errorf("Available() = %v", got)
	}
	if _, ok := Lookup("report"); ok {
		t.Errorf("Lookup is case-insensitive")
	}
}

// caseRefusal is the reason for a report key that spells a field in another case.
func caseRefusal(key, field string) string {
	return fmt.Sprintf("capacity response is not a valid report: key %q differs from %q only in case; report keys are matched exactly", key, field)
}
