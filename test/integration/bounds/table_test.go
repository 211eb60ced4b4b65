package bounds

import (
	"fmt"
	"slices"
	"testing"
)

// TestEveryBoundedFieldHasACase needs no API server: every field under the parts of the
// CRDs the manager writes whose schema sets a bound has a row in the table, naming a
// driver that exists, and no row names a field the schema does not bound.
func TestEveryBoundedFieldHasACase(t *testing.T) {
	bounds, err := schemaBounds()
	if err != nil {
		t.Fatal(err)
	}
	var missing, stale []string
	for path, b := range bounds {
		if _, ok := table[path]; !ok {
			missing = append(missing, fmt.Sprintf("%s (%s)", path, b))
		}
	}
	for path, d := range table {
		if _, ok := bounds[path]; !ok {
			stale = append(stale, path)
		}
		if _, ok := drivers[d]; !ok {
			t.Errorf("%s names the driver %q, which does not exist", path, d)
		}
	}
	slices.Sort(missing)
	slices.Sort(stale)
	for _, m := range missing {
		t.Errorf("a bounded field the manager writes has no case: add it to the table with the input that feeds it: %s", m)
	}
	for _, s := range stale {
		t.Errorf("a table row names a field the schema does not bound (or no longer has): %s", s)
	}
}
