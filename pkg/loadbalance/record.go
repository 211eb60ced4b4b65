package loadbalance

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxMessageBytes is load.message's maxLength.
const MaxMessageBytes = 256

// FromRecord is the decision's view of a map's load record. A share out of the CRD's
// bounds (a hand edit) counts as none, so the cluster keeps all of its weight.
func FromRecord(rec *v1beta1.TrafficMapLoad) State {
	if rec == nil || rec.SharePercent < 1 || rec.SharePercent > 100 {
		return State{}
	}
	st := State{SharePercent: rec.SharePercent, ChangePressure: ptr.Deref(rec.ChangePressurePercent, 0)}
	if rec.LastChangeTime != nil {
		st.LastChange = rec.LastChangeTime.Time
	}
	return st
}

// Record is what the map records of decision d, taken on reading r under mode. The last
// Known quantities stay while a reading is Unknown. Every value is within the CRD's bounds.
func Record(d Decision, r Reading, mode v1beta1.LoadBalancingMode, prev *v1beta1.TrafficMapLoad) *v1beta1.TrafficMapLoad {
	rec := &v1beta1.TrafficMapLoad{Mode: mode, Signal: v1beta1.TrafficSignalUnknown, SharePercent: d.State.Share(),
		Message: text.Cap(d.Message, MaxMessageBytes), LastChangeTime: metaTime(d.State.LastChange)}
	if d.State.ChangePressure > 0 {
		rec.ChangePressurePercent = ptr.To(min(d.State.ChangePressure, MaxPressurePercent))
	}
	switch {
	case d.Known:
		rec.Signal = v1beta1.TrafficSignalKnown
		rec.PressurePercent = ptr.To(d.Pressure)
		if r.Waiting != nil {
			rec.WaitingMilli = ptr.To(milli(*r.Waiting))
		}
		if r.CacheUse != nil {
			rec.CacheUsePercent = ptr.To(int32(math.Round(min(max(*r.CacheUse, 0), 1) * 100)))
		}
	case prev != nil:
		rec.PressurePercent, rec.WaitingMilli, rec.CacheUsePercent = prev.PressurePercent, prev.WaitingMilli, prev.CacheUsePercent
	}
	return rec
}

// maxMilli keeps a recorded count of waiting requests exact in a float64.
const maxMilli = 1 << 53

// milli is a count in thousandths, from 0 to 2^53.
func milli(v float64) int64 {
	if !(v > 0) {
		return 0
	}
	return int64(math.Round(min(v*1000, maxMilli)))
}

// metaTime is t as the API writes it, second precision as lastProbeTime is; nil for the
// zero time.
func metaTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return ptr.To(metav1.NewTime(t.Truncate(time.Second)))
}
