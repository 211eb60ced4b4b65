package get

// This file owns the output: kubectl's table printer for table and wide, a List for json
// and yaml, and the line that says nothing was found.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// sortMaps orders maps by namespace, then name, whatever order the API server gave.
func sortMaps(maps []omev1beta1.TrafficMap) {
	slices.SortFunc(maps, func(a, b omev1beta1.TrafficMap) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

// table is the maps as a metav1.Table, each row carrying its map so that the printer can
// add the NAMESPACE column.
func table(maps []omev1beta1.TrafficMap, now time.Time) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: columns}
	for i := range maps {
		row := metav1.TableRow{Object: runtime.RawExtension{Object: &maps[i]}}
		for _, c := range cells(&maps[i], now) {
			row.Cells = append(row.Cells, util.PrintableCell(c))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// printTable prints the maps as kubectl prints a table: columns three spaces apart, the
// wide columns only with wide, NAMESPACE first with allNamespaces.
func printTable(w io.Writer, maps []omev1beta1.TrafficMap, now time.Time, wide, allNamespaces bool) error {
	p := printers.NewTablePrinter(printers.PrintOptions{Wide: wide, WithNamespace: allNamespaces})
	return p.PrintObj(table(maps, now), w)
}

// list is the maps as the List kubectl prints for -o json|yaml: each item a whole
// TrafficMap with its apiVersion and kind, and without managedFields, which kubectl leaves
// out unless asked.
func list(maps []omev1beta1.TrafficMap) (*metav1.List, error) {
	l := &metav1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: []runtime.RawExtension{}}
	for _, tm := range maps {
		tm.APIVersion = omev1beta1.GroupVersion.String()
		tm.Kind = "TrafficMap"
		tm.ManagedFields = nil
		raw, err := json.Marshal(&tm)
		if err != nil {
			return nil, fmt.Errorf("encode trafficmap %s/%s: %w", tm.Namespace, tm.Name, err)
		}
		l.Items = append(l.Items, runtime.RawExtension{Raw: raw})
	}
	return l, nil
}

// printMaps writes the maps in the output format. An empty table is a line on stderr, so that
// stdout stays empty for a script; json and yaml print an empty List.
func printMaps(stdout, stderr io.Writer, output string, maps []omev1beta1.TrafficMap, now time.Time, allNamespaces bool) error {
	sortMaps(maps)
	switch output {
	case util.OutputJSON, util.OutputYAML:
		l, err := list(maps)
		if err != nil {
			return err
		}
		return util.PrintObject(output, l, stdout)
	}
	if len(maps) == 0 {
		_, err := fmt.Fprintf(stderr, "No %s found.\n", resource)
		return err
	}
	return printTable(stdout, maps, now, output == util.OutputWide, allNamespaces)
}
