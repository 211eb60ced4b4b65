package applied

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

var (
	t0     = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	signal = Signal{Configured: true, Interval: 5 * time.Second}
	window = 5 * time.Second
)

// reading is a Known reading of requests over the window that ends at at.
func reading(at time.Time, requests float64) passivegate.Reading {
	return passivegate.Reading{Known: true, Requests: requests, Window: window, At: at}
}

// written is a withdrawal decided at t0 whose route was written 40 ms later.
func written(cluster string) Withdrawal {
	return Withdrawal{Cluster: cluster, Decided: t0, RouteGeneration: 3, Written: t0.Add(40 * time.Millisecond)}
}

func TestJudge(t *testing.T) {
	w := written("worker-b")
	cases := []struct {
		name     string
		ws       []Withdrawal
		readings map[string]passivegate.Reading
		signal   Signal
		status   metav1.ConditionStatus
		reason   omev1beta1.TrafficMapConditionReason
		message  string
		served   []string
		// confirmed are the clusters whose withdrawal the counters confirm.
		confirmed []string
		next      time.Time
	}{
		{name: "no signal source", ws: []Withdrawal{w}, signal: Signal{}, status: metav1.ConditionUnknown,
			reason:  omev1beta1.TrafficMapReasonNotObserved,
			message: "routing.trafficSignal is not set: nothing shows whether the gateway follows the route"},
		{name: "nothing at weight 0", signal: signal, status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonNoClusterAtZero,
			message: "The route holds no cluster at weight 0 and weighs fewer than two clusters: there is no withdrawal or split to see"},
		{name: "the route does not carry it yet", ws: []Withdrawal{{Cluster: "worker-b", Decided: t0, RouteGeneration: 3}},
			readings: map[string]passivegate.Reading{"worker-b": reading(t0.Add(time.Second), 40)}, signal: signal,
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonAwaitingEvidence,
			message: "No evidence yet that the gateway stopped sending to 1 cluster(s) at weight 0: worker-b: the route does not carry its weight 0 yet"},
		{name: "no reading yet", ws: []Withdrawal{w}, signal: signal, status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonAwaitingEvidence,
			message: "No evidence yet that the gateway stopped sending to 1 cluster(s) at weight 0: worker-b: weight 0 in the route for 2s; no reading of its traffic yet"},
		{name: "the last window started before the route carried it", ws: []Withdrawal{w},
			readings: map[string]passivegate.Reading{"worker-b": reading(t0.Add(2*time.Second), 0)}, signal: signal,
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonAwaitingEvidence,
			message: "No evidence yet that the gateway stopped sending to 1 cluster(s) at weight 0: worker-b: weight 0 in the route for 2s; waiting for a 5s window that starts after it",
			next:    w.Written.Add(window + signal.Interval)},
		{name: "requests within the interval the gateway has to load the route", ws: []Withdrawal{w},
			readings: map[string]passivegate.Reading{"worker-b": reading(t0.Add(8*time.Second), 3)}, signal: signal,
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonAwaitingEvidence,
			message: "No evidence yet that the gateway stopped sending to 1 cluster(s) at weight 0: worker-b: weight 0 in the route for 2s; " +
				"3 request(s) in the window that started 3s after it, within the interval the gateway has to load the route",
			next: w.Written.Add(signal.Interval + window + signal.Interval)},
		{name: "an empty window after the route carried it", ws: []Withdrawal{w},
			readings: map[string]passivegate.Reading{"worker-b": reading(t0.Add(7*time.Second), 0.2)}, signal: signal,
			status: metav1.ConditionTrue, reason: omev1beta1.TrafficMapReasonTrafficMoved, confirmed: []string{"worker-b"},
			message: "The gateway sends no request to the 1 cluster(s) the route holds at weight 0: worker-b: weight 0 in the route after 40ms, no requests after 2s"},
		{name: "requests an interval after the route carried it", ws: []Withdrawal{w},
			readings: map[string]passivegate.Reading{"worker-b": reading(t0.Add(12*time.Second), 17)}, signal: signal,
			status: metav1.ConditionFalse, reason: omev1beta1.TrafficMapReasonStillServed, served: []string{"worker-b"},
			message: "The gateway still sends requests to 1 cluster(s) the route holds at weight 0, so it may not follow the route (a lost update): " +
				"worker-b: 17 request(s) in the 5s window from 2026-12-04T10:00:07Z, 7s after the route carried its weight 0"},
		{name: "a signal that cannot be read", ws: []Withdrawal{w},
			readings: map[string]passivegate.Reading{"worker-b": {Reason: "requests: the query gave no sample", Window: window, At: t0.Add(9 * time.Second)}},
			signal:   signal, status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonSignalUnknown,
			message: "The traffic signal of 1 cluster(s) at weight 0 cannot be read: worker-b: requests: the query gave no sample"},
		{name: "one served outweighs one unknown and one moved", ws: []Withdrawal{written("a"), written("b"), written("c")},
			readings: map[string]passivegate.Reading{"a": reading(t0.Add(12*time.Second), 0), "b": {Reason: "x", At: t0.Add(12 * time.Second)},
				"c": reading(t0.Add(12*time.Second), 5)},
			signal: signal, status: metav1.ConditionFalse, reason: omev1beta1.TrafficMapReasonStillServed, served: []string{"c"}, confirmed: []string{"a"},
			message: "The gateway still sends requests to 1 cluster(s) the route holds at weight 0, so it may not follow the route (a lost update): " +
				"c: 5 request(s) in the 5s window from 2026-12-04T10:00:07Z, 7s after the route carried its weight 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _ := Judge(c.ws, nil, c.readings, c.signal, t0.Add(2*time.Second))
			got := fmt.Sprintf("%s %s: %s", v.Status, v.Reason, v.Message)
			if want := fmt.Sprintf("%s %s: %s", c.status, c.reason, c.message); got != want {
				t.Errorf("got\n  %s\nwant\n  %s", got, want)
			}
			if fmt.Sprint(v.Served) != fmt.Sprint(c.served) {
				t.Errorf("served %v, want %v", v.Served, c.served)
			}
			if fmt.Sprint(v.Confirmed) != fmt.Sprint(c.confirmed) {
				t.Errorf("confirmed %v, want %v", v.Confirmed, c.confirmed)
			}
			if !v.Next.Equal(c.next) {
				t.Errorf("next %s, want %s", v.Next, c.next)
			}
		})
	}
}

// Traffic moves once: the first empty window's start is recorded, and a later judgement
// keeps it and reports nothing new. Requests at weight 0 afterwards turn it False.
func TestJudgeRecordsTheMoveOnce(t *testing.T) {
	ws := []Withdrawal{written("worker-b")}
	v, ws := Judge(ws, nil, map[string]passivegate.Reading{"worker-b": reading(t0.Add(7*time.Second), 0)}, signal, t0.Add(7*time.Second))
	if len(v.Moved) != 1 || !v.Moved[0].Moved.Equal(t0.Add(2*time.Second)) || !ws[0].Moved.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("the first empty window starts at 10:00:02: moved %+v, kept %+v", v.Moved, ws)
	}
	v, ws = Judge(ws, nil, map[string]passivegate.Reading{"worker-b": reading(t0.Add(12*time.Second), 0)}, signal, t0.Add(12*time.Second))
	if len(v.Moved) != 0 || !ws[0].Moved.Equal(t0.Add(2*time.Second)) || v.Status != metav1.ConditionTrue {
		t.Fatalf("a second empty window is no new move: %+v, kept %+v", v, ws)
	}
	v, _ = Judge(ws, nil, map[string]passivegate.Reading{"worker-b": reading(t0.Add(17*time.Second), 4)}, signal, t0.Add(17*time.Second))
	if v.Status != metav1.ConditionFalse || v.Reason != omev1beta1.TrafficMapReasonStillServed {
		t.Fatalf("requests at weight 0 after the move: %s %s", v.Status, v.Reason)
	}
}

// The message names eight clusters and counts the rest, so that it stays readable.
func TestJudgeNamesEightClusters(t *testing.T) {
	var ws []Withdrawal
	readings := map[string]passivegate.Reading{}
	for i := range 11 {
		c := fmt.Sprintf("worker-%02d", i)
		ws = append(ws, written(c))
		readings[c] = reading(t0.Add(7*time.Second), 0)
	}
	v, _ := Judge(ws, nil, readings, signal, t0.Add(7*time.Second))
	if !strings.HasSuffix(v.Message, " | and 3 more") || strings.Count(v.Message, " | ") != 8 || !strings.Contains(v.Message, "worker-07:") ||
		strings.Contains(v.Message, "worker-08:") {
		t.Fatalf("got %s", v.Message)
	}
}

// A count past 2^63 at weight 0 (a broken source, a query without bound) once read as "no
// requests": its int64 wrapped negative, and TrafficApplied said TrafficMoved. The signal
// reads such an answer Unknown, so the condition says the signal cannot be read; a Known
// reading that large (none comes from the signal) still counts as requests.
func TestAHugeCountAtWeightZeroIsNotNoRequests(t *testing.T) {
	w := written("worker-b")
	at := t0.Add(12 * time.Second)
	body := fmt.Sprintf(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[%d,"9223372036854775808"]}]}}`, at.Unix())
	huge := trafficsignal.ParseAnswer(trafficsignal.Answer{Status: 200, Body: []byte(body)}, at, window)
	r := trafficsignal.Reading(huge, trafficsignal.Value{Known: true}, window)
	r.At = at
	v, _ := Judge([]Withdrawal{w}, nil, map[string]passivegate.Reading{"worker-b": r}, signal, at)
	if v.Reason != omev1beta1.TrafficMapReasonSignalUnknown || !strings.Contains(v.Message, "more than 9007199254740992 (2^53)") {
		t.Fatalf("a count of 2^63 at weight 0: %s %q", v.Reason, v.Message)
	}
	v, _ = Judge([]Withdrawal{w}, nil, map[string]passivegate.Reading{"worker-b": reading(at, math.Ldexp(1, 63))}, signal, at)
	if v.Reason != omev1beta1.TrafficMapReasonStillServed {
		t.Fatalf("a Known 2^63 at weight 0: %s %q", v.Reason, v.Message)
	}
}
