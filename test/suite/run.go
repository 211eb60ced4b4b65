// Package suite runs the project's Ginkgo suites so that a failed run ends by saying why.
//
// Ginkgo's closing summary names the failed specs and their places only; their messages are
// further up, among everything the suite printed. `go test` over many packages prints each
// package's output whole, and a CI log is often read from its end: Run logs each failure's
// place and the head of its message after the summary, where that end is.
package suite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// messageLines is how many lines of a failure's message the closing log keeps.
const messageLines = 6

// Run runs the suite's specs with Gomega failing through Ginkgo, and on failure logs every
// failed spec's name, place and the first lines of its message.
func Run(t *testing.T, description string) {
	t.Helper()
	var failures []string
	ginkgo.ReportAfterSuite("failures at the end of the log", func(r ginkgo.Report) {
		failures = Failures(r)
	})
	gomega.RegisterFailHandler(ginkgo.Fail)
	if !ginkgo.RunSpecs(t, description) {
		for _, f := range failures {
			t.Log(f)
		}
	}
}

// Failures describes each failed spec of a report in a few lines: its name, where it
// failed and the head of the message.
func Failures(r ginkgo.Report) []string {
	var out []string
	for _, s := range r.SpecReports {
		if !s.Failed() {
			continue
		}
		msg := strings.Split(strings.TrimSpace(s.Failure.Message), "\n")
		if len(msg) > messageLines {
			msg = append(msg[:messageLines], "...")
		}
		name := s.FullText()
		if name == "" {
			name = s.LeafNodeType.String()
		}
		out = append(out, fmt.Sprintf("FAILED %s [%s] at %s:\n    %s", name, s.State, s.Failure.Location, strings.Join(msg, "\n    ")))
	}
	return out
}
