package modelserver

import (
	"fmt"
	"net/http"
	"time"
)

// ReportPath is the path on which an Endpoint answers capacity polls once told to, as an
// operator's own reporter route would.
const ReportPath = "/capacity"

// report is how an Endpoint answers on ReportPath: not at all (the request falls through
// to the model server's answer) until SetServable or BreakReport is called.
type report struct {
	on       bool
	servable int32
	status   int
}

// answer writes the capacity report and says whether it did.
func (rep report) answer(w http.ResponseWriter, r *http.Request) bool {
	if !rep.on || r.URL.Path != ReportPath {
		return false
	}
	if rep.status != 0 {
		http.Error(w, "capacity reporter failing", rep.status)
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"servable": %d, "observedAt": %q}`, rep.servable, time.Now().UTC().Format(time.RFC3339Nano))
	return true
}

// SetServable makes the endpoint report n servable replicas, observed now, on ReportPath.
func (e *Endpoint) SetServable(n int32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.report = report{on: true, servable: n}
}

// BreakReport makes the endpoint answer capacity polls with status.
func (e *Endpoint) BreakReport(status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.report = report{on: true, status: status}
}
