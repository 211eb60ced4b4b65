package util

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
)

// Output formats.
const (
	OutputTable = "table"
	OutputWide  = "wide"
	OutputJSON  = "json"
	OutputYAML  = "yaml"
)

// ErrOutput refuses an unknown -o value.
var ErrOutput = errors.New("output must be table, wide, json or yaml")

// CheckOutput accepts the four formats.
func CheckOutput(o string) error {
	switch o {
	case OutputTable, OutputWide, OutputJSON, OutputYAML:
		return nil
	}
	return ErrOutput
}

// PrintObject prints a report uncut as JSON or YAML with cli-runtime's printers.
func PrintObject(format string, obj runtime.Object, w io.Writer) error {
	var p printers.ResourcePrinter = &printers.JSONPrinter{}
	if format == OutputYAML {
		p = &printers.YAMLPrinter{}
	}
	return p.PrintObj(obj, w)
}

// MaxCell is the widest value a table prints; longer values keep their first
// MaxCell-3 characters and end in "...".
const MaxCell = 56

// Cut bounds a table value.
func Cut(s string, width int) string {
	if len([]rune(s)) <= width {
		return s
	}
	return string([]rune(s)[:width-3]) + "..."
}

// Row is one FIELD/VALUE line.
type Row struct {
	Field, Value string
	// Wrap continues a value longer than MaxCell on further lines (with an empty FIELD)
	// instead of cutting it, for values whose end matters, such as a probe's error. Only
	// PrintFixedRows reads it.
	Wrap bool
	// Whole prints the value uncut on one line; it wins over Wrap.
	Whole bool
}

// PrintRows prints rows under a FIELD/VALUE header with cli-runtime's tab writer, values
// cut at MaxCell.
func PrintRows(w io.Writer, rows []Row) error {
	return printRows(w, rows, MaxCell)
}

// PrintUncutRows is PrintRows without cutting, for a preview a person confirms: it must
// show exactly what will be written.
func PrintUncutRows(w io.Writer, rows []Row) error {
	return printRows(w, rows, 0)
}

func printRows(w io.Writer, rows []Row, maxCell int) error {
	tw := printers.GetNewTabWriter(w)
	fmt.Fprintln(tw, "FIELD\tVALUE")
	for _, r := range rows {
		v := Printable(r.Value)
		if maxCell > 0 {
			v = Cut(v, maxCell)
		}
		fmt.Fprintf(tw, "%s\t%s\n", Printable(r.Field), v)
	}
	return tw.Flush()
}

// FieldWidth is the width of the FIELD column of the fixed-width tables; longer names are
// cut to FieldWidth-3 characters and "...".
const FieldWidth = 18

// PrintFixedRows prints rows with a FIELD column FieldWidth wide and three spaces before the
// value, so that every table of a kind lines up the same whatever its rows.
func PrintFixedRows(w io.Writer, rows []Row) error {
	var b strings.Builder
	line := func(f, v string) {
		b.WriteString(strings.TrimRight(fmt.Sprintf("%-*s   %s", FieldWidth, Cut(f, FieldWidth), v), " "))
		b.WriteByte('\n')
	}
	line("FIELD", "VALUE")
	for _, r := range rows {
		field, value := Printable(r.Field), Printable(r.Value)
		switch {
		case r.Whole:
			line(field, value)
		case r.Wrap:
			for i, l := range Wrap(value, MaxCell) {
				if i == 0 {
					line(field, l)
				} else {
					line("", l)
				}
			}
		default:
			line(field, Cut(value, MaxCell))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Wrap splits s into lines of at most width characters, between words where it can; a
// word longer than width is split inside. The lines joined with single spaces give s back
// when s has no runs of spaces.
func Wrap(s string, width int) []string {
	var lines []string
	var cur []rune
	flush := func() {
		lines = append(lines, string(cur))
		cur = nil
	}
	for _, word := range strings.Fields(s) {
		w := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(w) > width {
			flush()
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		for len(cur)+len(w) > width {
			n := width - len(cur)
			cur = append(cur, w[:n]...)
			w = w[n:]
			flush()
		}
		cur = append(cur, w...)
	}
	if len(cur) > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}
