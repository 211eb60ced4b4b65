package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ome-routing/operator/test/settingcases"
)

// TestSettingCases runs the table that the chart is tested with: the manager refuses
// exactly its refused cases, with the case's line.
func TestSettingCases(t *testing.T) {
	for _, c := range settingcases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			data, err := json.Marshal(c.Config())
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(data)
			switch {
			case c.Manager == "" && err != nil:
				t.Fatalf("Parse() error:\n%v\nwant none", err)
			case c.Manager != "" && err == nil:
				t.Fatalf("Parse() accepts %s; want %q", data, c.Manager)
			case c.Manager != "" && !strings.Contains(err.Error()+"\n", c.Manager+"\n"):
				t.Fatalf("Parse() error:\n%v\nwant a line ending %q", err, c.Manager)
			}
		})
	}
}
