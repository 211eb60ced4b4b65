package routing

import (
	"strings"
	"testing"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/ome-routing/operator/pkg/text"
)

func TestCapNote(t *testing.T) {
	cases := []struct {
		name string
		note string
		want string
	}{
		{"short", "Cluster a gated", "Cluster a gated"},
		{"exactly the limit", strings.Repeat("a", 1024), strings.Repeat("a", 1024)},
		{"one byte over", strings.Repeat("a", 1025), strings.Repeat("a", 1024)},
		// "é" is two bytes: 1023 ASCII bytes then "é" would end at 1025, so it goes whole.
		{"two-byte character across the limit", strings.Repeat("a", 1023) + "é", strings.Repeat("a", 1023)},
		{"four-byte character across the limit", strings.Repeat("a", 1022) + "😀b", strings.Repeat("a", 1022)},
		{"character ending at the limit", strings.Repeat("a", 1022) + "é" + "tail", strings.Repeat("a", 1022) + "é"},
		{"invalid UTF-8", "bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := text.Cap(tc.note, maxNoteBytes)
			if got != tc.want {
				t.Fatalf("capNote() = %q (%d bytes), want %q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
			if len(got) > maxNoteBytes || !utf8.ValidString(got) {
				t.Fatalf("capNote() gave %d bytes, valid UTF-8 %t", len(got), utf8.ValidString(got))
			}
		})
	}
}

// recordedNote keeps the note of the last event it was given.
type recordedNote struct {
	events.EventRecorder
	note string
}

func (r *recordedNote) Eventf(_, _ runtime.Object, _, _, _, note string, args ...any) {
	if note != "%s" || len(args) != 1 {
		panic("noteCapRecorder must pass the formatted note through %s")
	}
	r.note = args[0].(string)
}

func TestNoteCapRecorder(t *testing.T) {
	inner := &recordedNote{}
	r := noteCapRecorder{inner}
	msg := "transport error: " + strings.Repeat("é", 600)
	r.Eventf(nil, nil, "Warning", EventHomeGated, actionProbe, "Cluster %s gated after %d probe failures in a row: %s", "worker-b", 3, msg)
	if len(inner.note) > maxNoteBytes || !utf8.ValidString(inner.note) {
		t.Fatalf("note of %d bytes, valid UTF-8 %t", len(inner.note), utf8.ValidString(inner.note))
	}
	if !strings.HasPrefix(inner.note, "Cluster worker-b gated after 3 probe failures in a row: transport error: éé") {
		t.Fatalf("note %q lost its start", inner.note[:80])
	}
}
