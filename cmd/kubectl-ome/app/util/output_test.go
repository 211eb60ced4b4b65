package util

import (
	"bytes"
	"slices"
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
	if err := PrintFixedRows(&b, []Row{{Field: "TrafficMap Returned", Value: "1"}, {Field: "Empty"}, {Field: "Capacity provenance", Value: "ControlPlane"}}); err != nil {
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

func TestJoinDryRunValue(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"traffic", "drain", "chat", "--dry-run", "server", "--yes"}, []string{"traffic", "drain", "chat", "--dry-run=server", "--yes"}},
		{[]string{"traffic", "drain", "--dry-run", "chat"}, []string{"traffic", "drain", "--dry-run", "chat"}},
		{[]string{"traffic", "drain", "chat", "--dry-run"}, []string{"traffic", "drain", "chat", "--dry-run"}},
		{[]string{"traffic", "drain", "chat", "--dry-run", "all"}, []string{"traffic", "drain", "chat", "--dry-run", "all"}},
		{[]string{"traffic", "drain", "--", "--dry-run", "client"}, []string{"traffic", "drain", "--", "--dry-run", "client"}},
	}
	for _, tc := range cases {
		if got := JoinDryRunValue(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("JoinDryRunValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	msg := `transport error: Get "http://worker-b.demo.test:31234/v1/models": dial tcp 127.0.0.1:31234: connect: connection refused`
	lines := Wrap(msg, MaxCell)
	for _, l := range lines {
		if len([]rune(l)) > MaxCell {
			t.Errorf("line %q is over %d characters", l, MaxCell)
		}
	}
	if got := strings.Join(lines, " "); got != msg {
		t.Errorf("the lines joined give %q, want %q", got, msg)
	}
	long := strings.Repeat("x", 120)
	if got := Wrap(long, 56); !slices.Equal(got, []string{long[:56], long[56:112], long[112:]}) {
		t.Errorf("Wrap of a long word = %q", got)
	}
	if got := Wrap("", 56); !slices.Equal(got, []string{""}) {
		t.Errorf("Wrap(\"\") = %q", got)
	}
}

func TestPrintFixedRowsWrapsAndKeepsWhole(t *testing.T) {
	var b bytes.Buffer
	long := strings.Repeat("word ", 14) + "end"
	if err := PrintFixedRows(&b, []Row{{Field: "Wrapped", Value: long, Wrap: true}, {Field: "Whole", Value: long, Whole: true}}); err != nil {
		t.Fatal(err)
	}
	want := "FIELD                VALUE\n" +
		"Wrapped              " + strings.TrimSpace(strings.Repeat("word ", 11)) + "\n" +
		"                     word word word end\n" +
		"Whole                " + long + "\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
