package framework

import (
	"io"
	"strings"
	"testing"
)

func TestLogCheckFailsOnPanicsAndOnReconcilerErrorsOfADefect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		log     string
		allowed []string
		want    string // "" for a clean log
		all     int
	}{
		{name: "quiet", log: "INFO\tStarting workers\nINFO\tgated worker-b\n"},
		{name: "played on purpose", log: `ERROR	Reconciler error	{"error": "Put \"https://127.0.0.1:1/x\": dial tcp: connect: connection refused"}` + "\n", all: 1},
		{name: "forbidden", all: 2,
			log: `{"msg":"Reconciler error","error":"httproutes.gateway.networking.k8s.io is forbidden: User cannot patch"}` + "\n" +
				`{"msg":"Reconciler error","error":"validate routing policy: spec.routing.probe.period must be at most 1m"}` + "\n",
			want: "0 panic lines and 1 reconciler errors of a defect"},
		{name: "invalid", all: 1,
			log:  `{"msg":"Reconciler error","error":"TrafficMap.ome.io \"chat\" is invalid: spec.entries: Too many"}` + "\n",
			want: "1 reconciler errors"},
		{name: "allowed by the suite", allowed: []string{"is forbidden"}, all: 1,
			log: `{"msg":"Reconciler error","error":"httproutes is forbidden"}` + "\n"},
		{name: "recovered panic", all: 1,
			log:  "INFO\tObserved a panic in reconciler: boom\nERROR\tReconciler error\t{\"error\": \"panic: boom [recovered]\"}\n",
			want: "2 panic lines and 0 reconciler errors"},
		{name: "crash without a newline at the end", log: "panic: runtime error: invalid memory address",
			want: "1 panic lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLogCheck(tc.allowed...)
			// One byte at a time: a line split across writes is read once, whole.
			for i := range len(tc.log) {
				if _, err := io.WriteString(c, tc.log[i:i+1]); err != nil {
					t.Fatal(err)
				}
			}
			err := c.Err()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Err = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Err = %v, want it to say %q", err, tc.want)
			}
			if got := c.ReconcilerErrors(); got != tc.all {
				t.Errorf("ReconcilerErrors = %d, want %d", got, tc.all)
			}
		})
	}
}
