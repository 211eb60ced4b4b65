package probing

import (
	"net/http"
	"testing"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
)

// A switch from Shadow to Enforce keeps the states the Shadow probe counted, and the
// prober counts on under the new mode.
func TestProberKeepsStatesAcrossAModeSwitch(t *testing.T) {
	srv := newCountingServer(t)
	srv.status.Store(http.StatusServiceUnavailable)
	f := startFakeProber(t, 4)
	shadow := testPolicy(10*time.Second, time.Second)
	shadow.Mode = omev1beta1.ProbeModeShadow
	shadow.RampUp = time.Minute
	digest := probe.Digest(shadow)
	targets := []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	f.Sync(testKey, testUID, shadow, digest, targets)
	for i := range 2 {
		f.stepTo(f.nextDue())
		eventually(t, "a probe is answered", func() bool { return srv.total.Load() == int32(i+1) })
		eventually(t, "the probe is recorded", f.idle)
	}
	st, _ := f.state(testKey, "worker-a")
	if r := st.RecordFor(shadow); !st.Gated || !r.WouldGate || r.Gated {
		t.Fatalf("after two failures in Shadow: state %+v record %+v, want a would-be gate", st, r)
	}

	enforce := shadow
	enforce.Mode = omev1beta1.ProbeModeEnforce
	if probe.Digest(enforce) != digest {
		t.Fatal("the mode changed the digest")
	}
	states := f.Sync(testKey, testUID, enforce, digest, targets)
	if got := states["worker-a"]; !got.Gated || got.ConsecutiveFailures != 2 || !got.RecordFor(enforce).Gated {
		t.Fatalf("after the switch: %+v, want the same gate and count, now enforced", got)
	}
	// The prober counts under the new mode: the lift starts a ramp, which Shadow does not.
	srv.status.Store(http.StatusOK)
	f.stepTo(f.nextDue())
	eventually(t, "the lifting probe is answered", func() bool { return srv.total.Load() == 3 })
	eventually(t, "the lift is recorded", func() bool { st, _ := f.state(testKey, "worker-a"); return !st.Gated })
	if st, _ := f.state(testKey, "worker-a"); st.RampPercent != 14 {
		t.Fatalf("after the lift under Enforce: %+v, want a ramp at 14%%", st)
	}
}
