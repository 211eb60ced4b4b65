package soak

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fieldManagerPrefix names each replica incarnation's writes: "soak-manager-a1",
// "soak-manager-b1", "soak-manager-b2" after b was killed and started again.
const fieldManagerPrefix = "soak-manager-"

// writersOf names the field managers whose managedFields record is new, or has a new
// time or new fields, in now against before: who wrote this version. A record that only
// lost fields was not written by its manager (another took the fields over).
func writersOf(before, now []metav1.ManagedFieldsEntry) []string {
	key := func(m metav1.ManagedFieldsEntry) string {
		return m.Manager + "/" + string(m.Operation) + "/" + m.Subresource
	}
	was := map[string]metav1.ManagedFieldsEntry{}
	for _, m := range before {
		was[key(m)] = m
	}
	var who []string
	for _, m := range now {
		b, ok := was[key(m)]
		if !ok || !timeEqual(b.Time, m.Time) || len(m.FieldsV1.GetRawBytes()) > len(b.FieldsV1.GetRawBytes()) {
			who = append(who, m.Manager)
		}
	}
	return who
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// replicaOf is the replica incarnation ("a1", "b2") a routing field manager belongs to,
// or "".
func replicaOf(manager string) string {
	r, ok := strings.CutPrefix(manager, fieldManagerPrefix)
	if !ok {
		return ""
	}
	return r
}

// kill is a SIGKILL the run sent.
type kill struct {
	replica string
	at      time.Time
}

// writerLog checks that the maps never have two writers at once: the replica writing a
// map changes only when the one that wrote it last was killed in between. A write by the
// other replica while the last writer lives is a second writer.
type writerLog struct {
	// lag is how long after its kill a replica's write may still be seen: what was on the
	// wire when it died.
	lag   time.Duration
	kills []kill
	last  map[string]write
	// doubles are versions written by both replicas at once; violations are writes by a
	// replica while the other still led.
	doubles    int
	violations []string
	// others are routing writes by a field manager that is neither replica's.
	others map[string]int
}

type write struct {
	replica string
	at      time.Time
}

func newWriterLog(lag time.Duration) *writerLog {
	return &writerLog{lag: lag, last: map[string]write{}, others: map[string]int{}}
}

func (w *writerLog) killed(replica string, at time.Time) {
	w.kills = append(w.kills, kill{replica: replica, at: at})
}

// observe takes the writers of one version of service's map, seen at at.
func (w *writerLog) observe(service string, writers []string, at time.Time) {
	var replicas []string
	for _, m := range writers {
		switch r := replicaOf(m); {
		case r != "":
			replicas = append(replicas, r)
		case isOperatorManager(m):
			w.others[m]++
		}
	}
	if len(replicas) > 1 {
		w.doubles++
		w.violations = append(w.violations, fmt.Sprintf("%s: one version written by %v at %s", service, replicas, at.Format(time.RFC3339Nano)))
	}
	if len(replicas) == 0 {
		return
	}
	r := replicas[len(replicas)-1]
	prev, ok := w.last[service]
	w.last[service] = write{replica: r, at: at}
	if !ok || prev.replica == r || w.killedBetween(prev, at) {
		return
	}
	w.violations = append(w.violations, fmt.Sprintf("%s: written by %s at %s while %s, which wrote it at %s, was not killed in between",
		service, r, at.Format(time.RFC3339Nano), prev.replica, prev.at.Format(time.RFC3339Nano)))
}

func (w *writerLog) killedBetween(prev write, at time.Time) bool {
	for _, k := range w.kills {
		if k.replica == prev.replica && !prev.at.After(k.at.Add(w.lag)) && !k.at.After(at) {
			return true
		}
	}
	return false
}

// isOperatorManager says whether a field manager is one of the operator's routing writers
// under its own names (which the replicas must not use when --field-manager is set).
func isOperatorManager(m string) bool {
	return m == "ome-routing" || m == "ome-trafficmap-routing"
}
