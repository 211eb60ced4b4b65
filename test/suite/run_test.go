package suite

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

func TestFailuresKeepTheHeadOfEachFailedSpec(t *testing.T) {
	long := strings.Repeat("line\n", 20) + "the end"
	r := ginkgo.Report{SpecReports: types.SpecReports{
		{LeafNodeText: "passes", State: types.SpecStatePassed},
		{LeafNodeText: "splits", ContainerHierarchyTexts: []string{"Requests"}, State: types.SpecStateFailed,
			Failure: types.Failure{Message: "short\nmessage", Location: types.CodeLocation{FileName: "a_test.go", LineNumber: 30}}},
		{LeafNodeText: "ramps", State: types.SpecStateTimedout,
			Failure: types.Failure{Message: long, Location: types.CodeLocation{FileName: "b_test.go", LineNumber: 44}}},
	}}
	got := Failures(r)
	if len(got) != 2 {
		t.Fatalf("want the two failed specs, got %d: %q", len(got), got)
	}
	if want := "FAILED Requests splits [failed] at a_test.go:30:\n    short\n    message"; got[0] != want {
		t.Errorf("first failure:\n%s\nwant:\n%s", got[0], want)
	}
	if n := strings.Count(got[1], "\n    line"); n != messageLines {
		t.Errorf("a long message keeps %d lines, want %d:\n%s", n, messageLines, got[1])
	}
	if strings.Contains(got[1], "the end") || !strings.HasSuffix(got[1], "...") {
		t.Errorf("a long message is cut and says so:\n%s", got[1])
	}
	if !strings.Contains(got[1], "[timedout] at b_test.go:44") {
		t.Errorf("a timed-out spec names its state and place:\n%s", got[1])
	}
}
