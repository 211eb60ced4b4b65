package probe

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
)

func TestClassify(t *testing.T) {
	dial := errors.New(`Get "http://llm.worker-b.example.com/v1/models": dial tcp 10.0.0.7:80: connect: connection refused`)
	tests := []struct {
		name        string
		in          observer.Result
		wantResult  v1beta1.ProbeResult
		wantMessage string
		wantCounted bool
	}{
		{name: "accepted status", in: observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 200},
			wantResult: v1beta1.ProbePassing, wantMessage: "HTTP 200", wantCounted: true},
		{name: "accepted status, body cut at the cap", in: observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 200, Truncated: true},
			wantResult: v1beta1.ProbePassing, wantMessage: "HTTP 200", wantCounted: true},
		{name: "gate status", in: observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 503},
			wantResult: v1beta1.ProbeFailing, wantMessage: "HTTP 503", wantCounted: true},
		{name: "redirect", in: observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 301},
			wantResult: v1beta1.ProbeUnknown, wantMessage: "HTTP 301 (not in accept or gate list)", wantCounted: true},
		{name: "busy", in: observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 429},
			wantResult: v1beta1.ProbeUnknown, wantMessage: "HTTP 429 (not in accept or gate list)", wantCounted: true},
		{name: "transport error", in: observer.Result{Outcome: observer.OutcomeTransportError, Err: dial},
			wantResult: v1beta1.ProbeFailing, wantMessage: "transport error: " + dial.Error(), wantCounted: true},
		{name: "not sent: the operator's own trouble is Unknown", in: observer.Result{Outcome: observer.OutcomeTransportError,
			Err: fmt.Errorf(`Get "ftp://probe:s3cret@llm.example.com/v1/models": %w`, &observer.NotSentError{Reason: `scheme "ftp" refused: the observer only sends http and https`})},
			wantResult: v1beta1.ProbeUnknown, wantMessage: `probe not sent: scheme "ftp" refused: the observer only sends http and https`, wantCounted: true},
		{name: "transport error without an error", in: observer.Result{Outcome: observer.OutcomeTransportError},
			wantResult: v1beta1.ProbeFailing, wantMessage: "transport error: unknown error", wantCounted: true},
		{name: "body error after an accepted status", in: observer.Result{Outcome: observer.OutcomeBodyError, StatusCode: 200, Err: errors.New("unexpected EOF")},
			wantResult: v1beta1.ProbeFailing, wantMessage: "response body error: unexpected EOF", wantCounted: true},
		{name: "cancelled", in: observer.Result{Outcome: observer.OutcomeCancelled, Err: errors.New("context canceled")}},
		{name: "cancelled after a status", in: observer.Result{Outcome: observer.OutcomeCancelled, StatusCode: 503}},
		{name: "unrecognized outcome", in: observer.Result{Outcome: "Teleported", StatusCode: 503},
			wantResult: v1beta1.ProbeUnknown, wantMessage: `unrecognized observer outcome "Teleported"`, wantCounted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result, message, counted := Classify(tt.in, step1Policy())
			if result != tt.wantResult || message != tt.wantMessage || counted != tt.wantCounted {
				t.Fatalf("Classify = (%q, %q, %v), want (%q, %q, %v)",
					result, message, counted, tt.wantResult, tt.wantMessage, tt.wantCounted)
			}
		})
	}
}

func TestClassifyCapsMessage(t *testing.T) {
	tests := []struct {
		name    string
		err     string
		wantLen int
	}{
		{name: "short", err: "refused", wantLen: len("transport error: refused")},
		{name: "exactly the cap", err: strings.Repeat("a", MaxMessageBytes-len("transport error: ")), wantLen: MaxMessageBytes},
		{name: "ASCII over the cap", err: strings.Repeat("a", 2000), wantLen: MaxMessageBytes},
		// "transport error: " is 17 bytes; after it, 3-byte runes end at 1022 and 1025,
		// so the cut falls back to 1022 rather than split the rune at 1024.
		{name: "multi-byte over the cap", err: strings.Repeat("€", 700), wantLen: 1022},
		{name: "invalid UTF-8", err: "bad \xff\xfe byte", wantLen: len("transport error: bad \uFFFD byte")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, message, _ := Classify(observer.Result{Outcome: observer.OutcomeTransportError, Err: errors.New(tt.err)}, step1Policy())
			if len(message) != tt.wantLen {
				t.Errorf("len(message) = %d, want %d", len(message), tt.wantLen)
			}
			if !utf8.ValidString(message) {
				t.Errorf("message is not valid UTF-8: %q", message)
			}
			if !strings.HasPrefix(message, "transport error: ") {
				t.Errorf("message %q lost its prefix", message)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	notSent := NotSentPrefix + "destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)"
	cases := []struct {
		record *v1beta1.TrafficMapProbe
		want   bool
	}{
		{nil, false},
		{&v1beta1.TrafficMapProbe{Result: v1beta1.ProbeUnknown, Message: notSent}, true},
		{&v1beta1.TrafficMapProbe{Result: v1beta1.ProbeUnknown, Message: "HTTP 301 (not in accept or gate list)"}, false},
		{&v1beta1.TrafficMapProbe{Result: v1beta1.ProbeUnknown, Message: "HTTP 101 (not in accept or gate list)"}, false},
		{&v1beta1.TrafficMapProbe{Result: v1beta1.ProbeFailing, Message: notSent}, false},
		{&v1beta1.TrafficMapProbe{Result: v1beta1.ProbePassing, Message: "HTTP 200"}, false},
	}
	for _, tc := range cases {
		reason, ok := Refusal(tc.record)
		if ok != tc.want || (ok && reason != tc.record.Message) {
			t.Errorf("Refusal(%+v) = %q, %v; want %v", tc.record, reason, ok, tc.want)
		}
	}
}
