package framework

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

// DefectErrors mark the reconciler errors that are a defect whatever a spec does to the
// clusters: the API server refusing the manager a right (the chart's RBAC lacks a rule) or
// refusing an object the manager wrote (the operator wrote what the schema forbids). Other
// reconciler errors are part of what the suites play on purpose (a member that cannot be
// reached, an API server restarted, a service whose settings are refused, another writer
// first) and are retried; a LogCheck counts them (ReconcilerErrors) without failing on them.
var DefectErrors = []string{"is forbidden", "is invalid"}

// playedRefusals are refusals a spec makes the API server give on purpose: an admission
// policy it installed to refuse the manager's write. They are not a defect of the manager.
var playedRefusals = []string{"ValidatingAdmissionPolicy"}

// panicMarks are what a panic leaves in a manager's log: controller-runtime's recovered
// panic (logged, then returned as the reconcile's error), apimachinery's handler of a
// panic in a goroutine, and the Go runtime's own crash.
var panicMarks = []string{"Observed a panic", "panic: ", "[recovered]"}

// samplesKept is how many problem lines a LogCheck keeps for its error.
const samplesKept = 5

// LogCheck reads a manager's log as it is written (it is an io.Writer) and keeps what a
// healthy manager never logs: a panic, recovered or not, and a "Reconciler error" that
// holds one of DefectErrors and none of the check's allowances. A Manager has one; its
// Stop returns the check's error, so that a suite fails at teardown on what the soak
// reports.
type LogCheck struct {
	allowed []string

	mu      sync.Mutex
	partial []byte
	panics  int
	errors  int
	all     int
	first   string
	samples []string
}

// NewLogCheck is a check that lets a reconciler error holding one of allowed pass.
func NewLogCheck(allowed ...string) *LogCheck {
	return &LogCheck{allowed: allowed}
}

// Write reads p line by line; a line split across writes is read once whole.
func (c *LogCheck) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data := append(c.partial, p...) //nolint:gocritic // c.partial is replaced by the rest below
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		c.line(string(data[:i]))
		data = data[i+1:]
	}
	c.partial = append([]byte(nil), data...)
	return len(p), nil
}

func (c *LogCheck) line(l string) {
	reconcilerError := strings.Contains(l, "Reconciler error")
	if reconcilerError {
		c.all++
		if c.first == "" {
			c.first = l
		}
	}
	switch {
	case containsAny(l, panicMarks):
		c.panics++
	case reconcilerError && containsAny(l, DefectErrors) && !containsAny(l, c.allowed) && !containsAny(l, playedRefusals):
		c.errors++
	default:
		return
	}
	c.keep(l)
}

func (c *LogCheck) keep(l string) {
	if len(c.samples) < samplesKept {
		if len(l) > 1200 {
			l = l[:1200] + "..."
		}
		c.samples = append(c.samples, l)
	}
}

// ReconcilerErrors is how many "Reconciler error" lines the log held so far, transient
// ones included: a figure of the benches.
func (c *LogCheck) ReconcilerErrors() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all
}

// First is the first "Reconciler error" line, "" while there was none.
func (c *LogCheck) First() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first
}

// Err says what the log held that a healthy manager never logs, with the first lines of
// it; nil when there was nothing.
func (c *LogCheck) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.partial) > 0 {
		c.line(string(c.partial))
		c.partial = nil
	}
	if c.panics == 0 && c.errors == 0 {
		return nil
	}
	return fmt.Errorf("the manager's log has %d panic lines and %d reconciler errors of a defect (%s); the first:\n%s",
		c.panics, c.errors, strings.Join(DefectErrors, ", "), strings.Join(c.samples, "\n"))
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
