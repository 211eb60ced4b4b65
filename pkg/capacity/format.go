package capacity

import (
	"slices"
	"time"

	"github.com/ome-routing/operator/pkg/observer"
)

// Format is one way of asking a home for its capacity and reading the answer. Formats
// are registered by name; a poll's format setting picks one.
type Format interface {
	// CheckOptions refuses options the format does not understand.
	CheckOptions(options map[string]string) error
	// Request builds the poll of one home, whose TrafficMap endpoint is endpoint. An error
	// is a fallback reason.
	Request(endpoint string, p Policy) (observer.Request, error)
	// Interpret reads what the observer got, at now, under p.
	Interpret(res observer.Result, now time.Time, p Policy) Outcome
}

// Outcome is what one poll says about a home.
type Outcome struct {
	// Counted is false when the poll says nothing about the home (the caller went away
	// while it ran); the window is left as it is.
	Counted bool
	// Reading is the accepted report; nil with Failure set when the poll failed.
	Reading *Reading
	// Failure is the fallback reason of a failed poll.
	Failure string
}

// Reading is one accepted report.
type Reading struct {
	Servable   int32
	ObservedAt time.Time
}

// registry holds the formats this build knows. It is written only at package
// initialization, so reading it needs no lock.
var registry = map[string]Format{
	FormatReport: reportFormat{},
}

// Lookup returns the registered format called name.
func Lookup(name string) (Format, bool) {
	f, ok := registry[name]
	return f, ok
}

// Available lists the registered format names in order, as messages print them.
func Available() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
