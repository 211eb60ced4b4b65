package verdict

import (
	"fmt"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxHomeStatesBytes is the longest status.homeStates: the CRD's maxLength.
const MaxHomeStatesBytes = 1024

// maxNamed is how many homes status.homeStates names one by one.
const maxNamed = 8

// separator separates the homes in status.homeStates, as in status.noTraffic.
const separator = " | "

// moreRoom is the room kept for "and <n> more: ...".
const moreRoom = 64

// Summary is the map-level summary of its entries' serving states.
type Summary struct {
	// Serving counts the homes whose state takes traffic.
	Serving int
	// HomeStates names each home whose state is not Serving (status.homeStates).
	HomeStates string
}

// Summarize sums up the entries' written states and reasons. leftOut is the reason the
// route leaves each home out, by cluster.
func Summarize(entries []omev1beta1.TrafficMapEntry, leftOut map[string]omev1beta1.LeftOutReason) Summary {
	var s Summary
	var named []string
	others, used := 0, 0
	for _, e := range entries {
		if TakesTraffic(e.Serving) {
			s.Serving++
		}
		if e.Serving == omev1beta1.ServingStateServing {
			continue
		}
		line := e.Cluster + " " + Seen(e.Serving, "")
		if r := Reason(e.Serving, e.WeightReason, leftOut[e.Cluster]); r != "" {
			line += " " + r
		}
		// Room is kept for the count of the homes not named, so that it is never cut.
		if len(named) == maxNamed || used+len(line)+len(separator)+moreRoom > MaxHomeStatesBytes {
			others++
			continue
		}
		named = append(named, line)
		used += len(line) + len(separator)
	}
	if others > 0 {
		named = append(named, fmt.Sprintf("and %d more: see spec.entries[].serving", others))
	}
	s.HomeStates = text.Cap(strings.Join(named, separator), MaxHomeStatesBytes)
	return s
}
