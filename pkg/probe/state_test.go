package probe

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

const (
	P = v1beta1.ProbePassing
	F = v1beta1.ProbeFailing
	U = v1beta1.ProbeUnknown
)

// step is one observation and what it should leave behind.
type step struct {
	result    v1beta1.ProbeResult
	want      Transition
	gated     bool
	failures  int32
	successes int32
}

func TestObserve(t *testing.T) {
	tests := []struct {
		name             string
		failureThreshold int32
		successThreshold int32
		seedGated        bool
		steps            []step
	}{
		{name: "gated at exactly failureThreshold", failureThreshold: 3, successThreshold: 2, steps: []step{
			{F, NoChange, false, 1, 0},
			{F, NoChange, false, 2, 0},
			{F, Gated, true, 3, 0},
			{F, NoChange, true, 4, 0},
		}},
		{name: "Unknown in the middle changes nothing", failureThreshold: 3, successThreshold: 2, steps: []step{
			{F, NoChange, false, 1, 0},
			{F, NoChange, false, 2, 0},
			{U, NoChange, false, 2, 0},
			{F, Gated, true, 3, 0},
			{U, NoChange, true, 3, 0},
		}},
		{name: "Unknown before any result", failureThreshold: 1, successThreshold: 1, steps: []step{
			{U, NoChange, false, 0, 0},
			{U, NoChange, false, 0, 0},
		}},
		{name: "Passing resets failures", failureThreshold: 3, successThreshold: 2, steps: []step{
			{F, NoChange, false, 1, 0},
			{F, NoChange, false, 2, 0},
			{P, NoChange, false, 0, 1},
			{F, NoChange, false, 1, 0},
			{F, NoChange, false, 2, 0},
			{F, Gated, true, 3, 0},
		}},
		{name: "lifted at exactly successThreshold", failureThreshold: 3, successThreshold: 2, steps: []step{
			{F, NoChange, false, 1, 0},
			{F, NoChange, false, 2, 0},
			{F, Gated, true, 3, 0},
			{P, NoChange, true, 0, 1},
			{P, Ungated, false, 0, 2},
			{P, NoChange, false, 0, 3},
		}},
		{name: "Failing resets successes", failureThreshold: 3, successThreshold: 2, seedGated: true, steps: []step{
			{P, NoChange, true, 0, 1},
			{F, NoChange, true, 1, 0},
			{P, NoChange, true, 0, 1},
			{U, NoChange, true, 0, 1},
			{P, Ungated, false, 0, 2},
		}},
		{name: "thresholds of 1", failureThreshold: 1, successThreshold: 1, steps: []step{
			{F, Gated, true, 1, 0},
			{P, Ungated, false, 0, 1},
			{F, Gated, true, 1, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := step1Policy()
			p.FailureThreshold, p.SuccessThreshold = tt.failureThreshold, tt.successThreshold
			s := State{PolicyDigest: Digest(p), Gated: tt.seedGated}
			at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			for i, st := range tt.steps {
				at = at.Add(p.Period)
				msg := "message " + string(st.result)
				if got := s.Observe(st.result, msg, at, p, Digest(p)); got != st.want {
					t.Errorf("step %d (%s): transition %v, want %v", i, st.result, got, st.want)
				}
				if s.Gated != st.gated || s.ConsecutiveFailures != st.failures || s.ConsecutiveSuccesses != st.successes {
					t.Errorf("step %d (%s): gated=%v failures=%d successes=%d, want gated=%v failures=%d successes=%d",
						i, st.result, s.Gated, s.ConsecutiveFailures, s.ConsecutiveSuccesses, st.gated, st.failures, st.successes)
				}
				if s.Result != st.result || s.Message != msg || !s.LastProbeTime.Equal(at) || !s.Probed {
					t.Errorf("step %d (%s): recorded %q %q at %v probed=%v", i, st.result, s.Result, s.Message, s.LastProbeTime, s.Probed)
				}
			}
		})
	}
}

func TestObserveStartsOverUnderAnotherPolicy(t *testing.T) {
	old, changed := step1Policy(), step1Policy()
	changed.Path = "/healthz"
	at := time.Unix(1_700_000_000, 0)

	s := State{PolicyDigest: Digest(old), Gated: true, ConsecutiveFailures: 5}
	if got := s.Observe(F, "HTTP 503", at, changed, Digest(changed)); got != Ungated {
		t.Fatalf("transition %v, want Ungated", got)
	}
	if s.Gated || s.ConsecutiveFailures != 1 || s.PolicyDigest != Digest(changed) {
		t.Fatalf("state %+v, want ungated with 1 failure under the new digest", s)
	}

	changed.FailureThreshold = 1
	s = State{PolicyDigest: Digest(old), Gated: true, ConsecutiveFailures: 5}
	if got := s.Observe(F, "HTTP 503", at, changed, Digest(changed)); got != NoChange || !s.Gated || s.ConsecutiveFailures != 1 {
		t.Fatalf("transition %v, state %+v: want gated again at once with 1 failure", got, s)
	}
}

func TestSeed(t *testing.T) {
	p := step1Policy()
	digest := Digest(p)
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	persisted := &v1beta1.TrafficMapProbe{
		PolicyDigest: digest, Result: F, Message: "HTTP 503",
		Gated: true, ConsecutiveFailures: 4, LastProbeTime: &at,
	}
	fresh := State{PolicyDigest: digest}

	tests := []struct {
		name      string
		persisted *v1beta1.TrafficMapProbe
		want      State
	}{
		{name: "same digest", persisted: persisted, want: State{
			Result: F, Message: "HTTP 503", Gated: true, ConsecutiveFailures: 4,
			LastProbeTime: at.Time, PolicyDigest: digest, Probed: true,
		}},
		{name: "another digest", persisted: func() *v1beta1.TrafficMapProbe {
			changed := step1Policy()
			changed.Timeout = 4 * time.Second
			other := persisted.DeepCopy()
			other.PolicyDigest = Digest(changed)
			return other
		}(), want: fresh},
		{name: "nothing persisted", want: fresh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Seed(tt.persisted, digest); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Seed:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	t.Run("a restored gate needs successThreshold fresh passes", func(t *testing.T) {
		s := Seed(persisted, digest)
		if got := s.Observe(P, "HTTP 200", at.Add(p.Period), p, Digest(p)); got != NoChange || !s.Gated {
			t.Fatalf("first pass: transition %v gated %v, want NoChange and still gated", got, s.Gated)
		}
		if got := s.Observe(P, "HTTP 200", at.Add(2*p.Period), p, Digest(p)); got != Ungated || s.Gated {
			t.Fatalf("second pass: transition %v gated %v, want Ungated", got, s.Gated)
		}
	})

	t.Run("a restored count carries on", func(t *testing.T) {
		counting := persisted.DeepCopy()
		counting.Gated, counting.ConsecutiveFailures = false, 2
		s := Seed(counting, digest)
		if got := s.Observe(F, "HTTP 503", at.Add(p.Period), p, Digest(p)); got != Gated {
			t.Fatalf("transition %v, want Gated at the third failure in a row", got)
		}
	})

	t.Run("record round trip", func(t *testing.T) {
		if got := Seed(persisted, digest).Record(); !reflect.DeepEqual(got, persisted) {
			t.Fatalf("Record after Seed:\n got %+v\nwant %+v", got, persisted)
		}
	})
}

func TestRecord(t *testing.T) {
	p := step1Policy()
	if r := (State{PolicyDigest: Digest(p)}).Record(); r != nil {
		t.Fatalf("Record before any probe = %+v, want nil", r)
	}

	local := time.FixedZone("UTC+2", 2*60*60)
	at := time.Date(2026, 1, 2, 5, 4, 5, 987654321, local)
	s := State{PolicyDigest: Digest(p)}
	s.Observe(P, "HTTP 200", at, p, Digest(p))

	want := &v1beta1.TrafficMapProbe{
		PolicyDigest:  Digest(p),
		Result:        P,
		Message:       "HTTP 200",
		LastProbeTime: &metav1.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	}
	got := s.Record()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Record:\n got %+v\nwant %+v", got, want)
	}
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"policyDigest":"` + Digest(p) + `","result":"Passing","message":"HTTP 200","lastProbeTime":"2026-01-02T03:04:05Z"}`
	if string(raw) != wantJSON {
		t.Fatalf("JSON:\n got %s\nwant %s", raw, wantJSON)
	}

	s.Observe(F, "HTTP 503", at, p, Digest(p))
	s.Observe(F, "HTTP 503", at, p, Digest(p))
	s.Observe(F, "HTTP 503", at, p, Digest(p))
	if got := s.Record(); !got.Gated || got.ConsecutiveFailures != 3 || got.Result != F {
		t.Fatalf("Record after three failures = %+v, want gated with 3 failures", got)
	}
}
