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
type Row struct{ Field, Value string }

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
		v := r.Value
		if maxCell > 0 {
			v = Cut(v, maxCell)
		}
		fmt.Fprintf(tw, "%s\t%s\n", r.Field, v)
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
		line(r.Field, Cut(r.Value, MaxCell))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
