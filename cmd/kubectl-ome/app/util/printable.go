package util

import "github.com/ome-routing/operator/pkg/text"

// Printable is what every table the plugin prints does to a value read from the API
// before it lays it out: control characters written as escapes (pkg/text.Inert), the
// same rule the manager applies where untrusted text enters. The manager's rule keeps
// new objects clean; this one covers objects written by older versions, and any field a
// member or tenant wrote that the manager only copied. A terminal then never obeys an
// ESC [2J, a BEL, an OSC title or a C1 CSI from a TrafficMap, and a newline in a value
// cannot start a line of its own that looks like the plugin's.
//
// JSON and YAML output are left as the API holds them: encoding/json escapes C0 itself,
// and a script reading them needs the stored bytes.
func Printable(s string) string { return text.Inert(s) }

// PrintableCell is Printable for a table cell, which holds a string or a number.
func PrintableCell(c any) any {
	if s, ok := c.(string); ok {
		return Printable(s)
	}
	return c
}
