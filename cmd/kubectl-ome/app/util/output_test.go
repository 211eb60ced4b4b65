package util

import (
	"bytes"
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	long := strings.Repeat("x", 57)
	if got := Cut(long, MaxCell); got != strings.Repeat("x", 53)+"..." {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut(long[:56], MaxCell); got != long[:56] {
		t.Errorf("a 56-character value must stay whole: %q", got)
	}
}

func TestPrintFixedRowsCutsLongFieldNames(t *testing.T) {
	var b bytes.Buffer
	if err := PrintFixedRows(&b, []Row{{"TrafficMap Returned", "1"}, {"Empty", ""}, {"Capacity provenance", "ControlPlane"}}); err != nil {
		t.Fatal(err)
	}
	want := "FIELD                VALUE\nTrafficMap Retu...   1\nEmpty\nCapacity proven...   ControlPlane\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}

func TestChecks(t *testing.T) {
	for _, o := range []string{"table", "wide", "json", "yaml"} {
		if CheckOutput(o) != nil {
			t.Errorf("output %s refused", o)
		}
	}
	if err := CheckOutput("name"); err == nil || err.Error() != "output must be table, wide, json or yaml" {
		t.Errorf("CheckOutput(name) = %v", err)
	}
	for _, d := range []string{"none", "client", "server"} {
		if CheckDryRun(d) != nil {
			t.Errorf("dry-run %s refused", d)
		}
	}
	if err := CheckDryRun("all"); err == nil || err.Error() != "dry-run must be none, client or server" {
		t.Errorf("CheckDryRun(all) = %v", err)
	}
}
