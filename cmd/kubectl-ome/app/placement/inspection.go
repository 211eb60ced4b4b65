package placement

import (
	"fmt"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// The states of an inspection row: what the plugin made of a list it read.
const (
	Validated             = "Validated"
	MalformedPayload      = "MalformedPayload"
	ConflictingDuplicates = "ConflictingDuplicates"
	BudgetExceeded        = "BudgetExceeded"
	Unknown               = "Unknown"
	Invalid               = "Invalid"
	OtherReportedReason   = "OtherReportedReason"
)

// Inspection is how much of a list the report kept, and in what state it found it.
type Inspection struct {
	State     string `json:"state"`
	Kept      int    `json:"kept"`
	Total     int    `json:"total"`
	Truncated bool   `json:"truncated"`
}

// String is the inspection row's value, "<state> <kept>/<total>; truncated=<bool>".
func (i Inspection) String() string {
	return fmt.Sprintf("%s %d/%d; truncated=%t", i.State, i.Kept, i.Total, i.Truncated)
}

// preview bounds a list of n items in the narrow table: past previewHomes it gives the row
// that says how many are shown ("4/6; use -o wide or json", named field) and how many to
// show; -o wide shows all.
func preview(field string, n int, wide bool) ([]util.Row, int) {
	if wide || n <= previewHomes {
		return nil, n
	}
	return []util.Row{{Field: field, Value: fmt.Sprintf("%d/%d; use -o wide or json", previewHomes, n)}}, previewHomes
}

// viewRow ends every placement table.
var viewRow = util.Row{Field: "View", Value: "Bounded cells; use -o json for complete identities"}
