package loadbalance

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
)

func TestFromSpecFillsDefaultsAndNamesEveryBrokenField(t *testing.T) {
	p, err := FromSpec(&v1beta1.RoutingLoadBalancing{Mode: "Shadow", CacheUsePercent: ptr.To[int32](80)}, "spec.routing.loadBalancing", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{Mode: "Shadow", CacheUsePercent: 80, MinInterval: DefaultMinInterval, MaxStepPercent: DefaultMaxStepPercent,
		HysteresisPercent: DefaultHysteresisPercent, FloorPercent: DefaultFloorPercent}
	if *p != want {
		t.Fatalf("got %+v, want %+v", *p, want)
	}
	if p, err := FromSpec(&v1beta1.RoutingLoadBalancing{Disabled: true}, "x", 0); p != nil || err != nil {
		t.Fatalf("disabled: got %v %v, want no policy and no error", p, err)
	}
	cases := []struct {
		spec     v1beta1.RoutingLoadBalancing
		interval time.Duration
		want     []string
	}{
		{v1beta1.RoutingLoadBalancing{}, time.Second, []string{
			"spec.routing.loadBalancing.mode is required: Shadow or Enforce",
			"spec.routing.loadBalancing must set waitingPerReplica, cacheUsePercent, or both"}},
		{v1beta1.RoutingLoadBalancing{Mode: "Enforce", WaitingPerReplica: ptr.To[int32](0), FloorPercent: ptr.To[int32](101)}, time.Second, []string{
			"spec.routing.loadBalancing.waitingPerReplica must be from 1 to 10000, got 0",
			"spec.routing.loadBalancing.floorPercent must be from 1 to 100, got 101"}},
		{v1beta1.RoutingLoadBalancing{Mode: "Enforce", CacheUsePercent: ptr.To[int32](80), MinInterval: &metav1.Duration{Duration: time.Second}}, 5 * time.Second, []string{
			"spec.routing.loadBalancing.minInterval (1s) must be at least routing.trafficSignal.interval (5s): a share may not move faster than the signal that moves it"}},
		{v1beta1.RoutingLoadBalancing{Mode: "Enforce", CacheUsePercent: ptr.To[int32](80)}, 0, []string{
			"spec.routing.loadBalancing needs the installation's routing.trafficSignal, which reads the model servers' load: it is not set"}},
		{v1beta1.RoutingLoadBalancing{Disabled: true, Mode: "Enforce"}, time.Second, []string{
			"spec.routing.loadBalancing: disabled must not be combined with load balancing fields"}},
	}
	for _, c := range cases {
		_, err := FromSpec(&c.spec, "spec.routing.loadBalancing", c.interval)
		if err == nil {
			t.Errorf("%+v: accepted, want %q", c.spec, c.want)
			continue
		}
		got := strings.Split(err.Error(), "\n")
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%+v:\n got %q\nwant %q", c.spec, got, c.want)
		}
	}
}

func TestRecordKeepsTheLastKnownPressureWhileUnknown(t *testing.T) {
	known := Decision{Known: true, Pressure: 125, Moved: true, Message: "m",
		State: State{SharePercent: 75, LastChange: t0.Add(1500 * time.Millisecond), ChangePressure: 125}}
	rec := Record(known, "Enforce", nil)
	if rec.Signal != "Known" || rec.SharePercent != 75 || *rec.PressurePercent != 125 || *rec.ChangePressurePercent != 125 ||
		!rec.LastChangeTime.Time.Equal(t0.Add(time.Second)) {
		t.Fatalf("known record %+v", rec)
	}
	if st := FromRecord(rec); st.SharePercent != 75 || st.ChangePressure != 125 || !st.LastChange.Equal(t0.Add(time.Second)) {
		t.Fatalf("state back from the record %+v", st)
	}
	unknown := Record(Decision{State: FromRecord(rec), Message: "the query was not answered"}, "Enforce", rec)
	if unknown.Signal != "Unknown" || *unknown.PressurePercent != 125 || unknown.SharePercent != 75 {
		t.Fatalf("unknown record %+v", unknown)
	}
	if st := FromRecord(&v1beta1.TrafficMapLoad{SharePercent: 400}); st.Share() != 100 {
		t.Fatalf("a share out of bounds counts as none, got %d", st.Share())
	}
}

// A steady reading keeps the record as it was, so that it costs no write; a change of
// band, share or signal does not.
func TestKeepHoldsTheRecordWhileNothingItSaysChanges(t *testing.T) {
	p := cachePolicy()
	prev := Record(Decision{Known: true, Pressure: 100, Message: "within target (cache 80% of 80%: 100%): holds at 75%",
		State: State{SharePercent: 75, LastChange: t0}}, "Enforce", nil)
	same := Record(Decision{Known: true, Pressure: 104, Message: "within target (cache 83% of 80%: 104%): holds at 75%",
		State: State{SharePercent: 75, LastChange: t0}}, "Enforce", prev)
	if Keep(p, same, prev) != prev {
		t.Error("a pressure within the same band wrote a new record")
	}
	for name, rec := range map[string]*v1beta1.TrafficMapLoad{
		"saturated": Record(Decision{Known: true, Pressure: 130, State: State{SharePercent: 75, LastChange: t0}}, "Enforce", prev),
		"moved":     Record(Decision{Known: true, Pressure: 100, State: State{SharePercent: 50, LastChange: t0.Add(time.Minute)}}, "Enforce", prev),
		"unknown":   Record(Decision{State: State{SharePercent: 75, LastChange: t0}, Message: "x"}, "Enforce", prev),
		"shadow":    Record(Decision{Known: true, Pressure: 100, State: State{SharePercent: 75, LastChange: t0}}, "Shadow", prev),
	} {
		if Keep(p, rec, prev) != rec {
			t.Errorf("%s: the record was kept as it was", name)
		}
	}
}
