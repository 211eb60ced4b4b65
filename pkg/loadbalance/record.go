package loadbalance

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxMessageBytes is load.message's maxLength.
const MaxMessageBytes = 160

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
	if v := ptr.Deref(rec.SaturatedSharePercent, 0); v >= 1 && v <= 100 && rec.SaturatedShareTime != nil {
		st.SaturatedShare, st.SaturatedAt = v, rec.SaturatedShareTime.Time
	}
	if v := ptr.Deref(rec.HeadroomSharePercent, 0); v >= 1 && v <= 100 {
		st.HeadroomShare = v
	}
	return st
}

// Record is what the map records of decision d under mode; the message gives the reading.
// The last Known pressure stays while a reading is Unknown. Every value is within the
// CRD's bounds.
func Record(d Decision, mode v1beta1.LoadBalancingMode, prev *v1beta1.TrafficMapLoad) *v1beta1.TrafficMapLoad {
	rec := &v1beta1.TrafficMapLoad{Mode: mode, Signal: v1beta1.TrafficSignalUnknown, SharePercent: d.State.Share(),
		Message: text.Cap(d.Message, MaxMessageBytes), LastChangeTime: metaTime(d.State.LastChange)}
	if d.State.ChangePressure > 0 {
		rec.ChangePressurePercent = ptr.To(min(d.State.ChangePressure, MaxPressurePercent))
	}
	if s := d.State.SaturatedShare; s >= 1 && s <= 100 && !d.State.SaturatedAt.IsZero() {
		rec.SaturatedSharePercent, rec.SaturatedShareTime = ptr.To(s), metaTime(d.State.SaturatedAt)
	}
	if s := d.State.HeadroomShare; s >= 1 && s <= 100 {
		rec.HeadroomSharePercent = ptr.To(s)
	}
	switch {
	case d.Known:
		rec.Signal = v1beta1.TrafficSignalKnown
		rec.PressurePercent = ptr.To(d.Pressure)
	case prev != nil:
		rec.PressurePercent = prev.PressurePercent
	}
	return rec
}

// Keep returns prev when rec records nothing a reader acts on that prev does not: the
// same mode, signal, share, last change and remembered shares, and a pressure in the same band (saturated,
// within the target, or with headroom) or the same reason for an Unknown reading. A steady
// load then costs no write of the map each time the signal is read; the record's reading
// is the one of its last change of band.
func Keep(p Policy, rec, prev *v1beta1.TrafficMapLoad) *v1beta1.TrafficMapLoad {
	if prev == nil || rec.Mode != prev.Mode || rec.Signal != prev.Signal || rec.SharePercent != prev.SharePercent ||
		!sameTime(rec.LastChangeTime, prev.LastChangeTime) || ptr.Deref(rec.ChangePressurePercent, 0) != ptr.Deref(prev.ChangePressurePercent, 0) ||
		!sameMemory(rec, prev) {
		return rec
	}
	if rec.Signal != v1beta1.TrafficSignalKnown {
		if rec.Message == prev.Message {
			return prev
		}
		return rec
	}
	if prev.PressurePercent == nil || band(p, *rec.PressurePercent) != band(p, *prev.PressurePercent) {
		return rec
	}
	return prev
}

// band is where a pressure stands against the target: 1 saturated, -1 with headroom, 0
// within the band.
func band(p Policy, pressure int32) int {
	switch {
	case pressure > 100+p.HysteresisPercent:
		return 1
	case pressure < 100-p.HysteresisPercent:
		return -1
	}
	return 0
}

// sameMemory says whether two records remember the same saturated and headroom shares.
func sameMemory(a, b *v1beta1.TrafficMapLoad) bool {
	return ptr.Deref(a.SaturatedSharePercent, 0) == ptr.Deref(b.SaturatedSharePercent, 0) &&
		sameTime(a.SaturatedShareTime, b.SaturatedShareTime) &&
		ptr.Deref(a.HeadroomSharePercent, 0) == ptr.Deref(b.HeadroomSharePercent, 0)
}

func sameTime(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// metaTime is t as the API writes it, second precision as lastProbeTime is; nil for the
// zero time.
func metaTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return ptr.To(metav1.NewTime(t.Truncate(time.Second)))
}
