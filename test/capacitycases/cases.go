package capacitycases

import (
	"encoding/json"
	"strings"
)

// Case is one capacity block and what becomes of it.
type Case struct {
	// Name names the case in test output.
	Name string
	// JSON is the block as it appears under spec.routing.capacity.
	JSON string
	// CELMessage is empty when the API server accepts the block; otherwise it is a
	// substring of the rejection: a CEL rule's message, or the OpenAPI rule's wording.
	CELMessage string
	// ReconcileError, for a block the API server accepts, is the exact error the routing
	// reconciler refuses it with (the map freezes); empty when the block is usable. The
	// limits it is resolved against are Limits.
	ReconcileError string
}

// The installation limits ReconcileError assumes: routing.observer.minPeriod 1s and
// routing.observer.maxSamples 10.
const (
	MinPeriodSeconds = 1
	MaxSamples       = 10
)

// Messages of the CEL rules on RoutingCapacitySpec, as the API server prints them.
const (
	MsgDisabledCombined = "disabled must not be combined with capacity configuration fields."
	MsgMissingField     = "an enabled capacity poll must specify path, method, format, period, timeout, samples, quorum, and maxAge."
	MsgPeriodPositive   = "period must be positive."
	MsgTimeoutPositive  = "timeout must be positive."
	MsgTimeoutShorter   = "timeout must be shorter than period."
	MsgMaxAgeAtLeast    = "maxAge must be at least period."
	MsgQuorumSamples    = "quorum must not exceed samples."
)

// CELMessages are the messages above.
var CELMessages = []string{
	MsgDisabledCombined, MsgMissingField, MsgPeriodPositive, MsgTimeoutPositive,
	MsgTimeoutShorter, MsgMaxAgeAtLeast, MsgQuorumSamples,
}

// FieldNames are the required fields of an enabled poll.
var FieldNames = []string{"path", "method", "format", "period", "timeout", "samples", "quorum", "maxAge"}

// Example is the poll of the chart's commented example, as a fresh map each call.
func Example() map[string]any {
	return map[string]any{
		"path": "/capacity", "method": "GET", "format": "Report",
		"period": "10s", "timeout": "3s", "samples": 10, "quorum": 2, "maxAge": "30s",
	}
}

// with returns the example with the given fields replaced; a nil value removes the field.
func with(changes map[string]any) string {
	block := Example()
	for k, v := range changes {
		if v == nil {
			delete(block, k)
		} else {
			block[k] = v
		}
	}
	out, err := json.Marshal(block)
	if err != nil {
		panic(err)
	}
	return string(out)
}

// Cases is the shared table.
var Cases = buildCases()

func buildCases() []Case {
	cases := []Case{
		// Accepted, and usable.
		{Name: "the chart's example", JSON: with(nil)},
		{Name: "disabled alone", JSON: `{"disabled": true}`},
		{Name: "disabled false with every field", JSON: with(map[string]any{"disabled": false})},
		{Name: "quorum 1, maxAge equal to period", JSON: with(map[string]any{"quorum": 1, "maxAge": "10s"})},
		{Name: "quorum equal to samples", JSON: with(map[string]any{"samples": 3, "quorum": 3})},
		{Name: "method POST", JSON: with(map[string]any{"method": "POST"})},
		{Name: "method HEAD", JSON: with(map[string]any{"method": "HEAD"})},
		{Name: "maxAge 10000ms equal to period 10s", JSON: with(map[string]any{"quorum": 1, "maxAge": "10000ms"})},
		{Name: "path of 2048 characters", JSON: with(map[string]any{"path": "/" + strings.Repeat("a", 2047)})},

		// Accepted by the API server, refused when the service is reconciled.
		{Name: "maxAge spanning fewer than quorum periods", JSON: with(map[string]any{"quorum": 3, "maxAge": "20s"}),
			ReconcileError: "validate routing policy: spec.routing.capacity.maxAge (20s) must span at least quorum (3) period intervals"},
		{Name: "format in lower case", JSON: with(map[string]any{"format": "report"}),
			ReconcileError: `resolve capacity policy: spec.routing.capacity.format "report" is not registered in this build (available: [Report])`},
		{Name: "options for Report", JSON: with(map[string]any{"options": map[string]string{"scale": "2"}}),
			ReconcileError: `resolve capacity policy: spec.routing.capacity.options: format "Report" takes no options, got [scale]`},
		{Name: "period under minPeriod", JSON: with(map[string]any{"period": "500ms", "timeout": "100ms", "quorum": 1, "maxAge": "1s"}),
			ReconcileError: "resolve capacity policy: spec.routing.capacity.period (500ms) must be at least routing.observer.minPeriod (1s)"},
		{Name: "samples over maxSamples", JSON: with(map[string]any{"samples": 11}),
			ReconcileError: "resolve capacity policy: spec.routing.capacity.samples (11) must not exceed routing.observer.maxSamples (10)"},

		// Rejected by CEL rules.
		{Name: "disabled with path", JSON: `{"disabled": true, "path": "/capacity"}`, CELMessage: MsgDisabledCombined},
		{Name: "disabled with options", JSON: `{"disabled": true, "options": {}}`, CELMessage: MsgDisabledCombined},
		{Name: "disabled with every field", JSON: with(map[string]any{"disabled": true}), CELMessage: MsgDisabledCombined},
		{Name: "empty block", JSON: `{}`, CELMessage: MsgMissingField},
		{Name: "period 0s", JSON: with(map[string]any{"period": "0s"}), CELMessage: MsgPeriodPositive},
		{Name: "timeout 0s", JSON: with(map[string]any{"timeout": "0s"}), CELMessage: MsgTimeoutPositive},
		{Name: "timeout equal to period", JSON: with(map[string]any{"timeout": "10s"}), CELMessage: MsgTimeoutShorter},
		{Name: "maxAge under period", JSON: with(map[string]any{"quorum": 1, "maxAge": "5s"}), CELMessage: MsgMaxAgeAtLeast},
		{Name: "quorum over samples", JSON: with(map[string]any{"samples": 2, "quorum": 3}), CELMessage: MsgQuorumSamples},

		// Rejected by OpenAPI rules.
		{Name: "method PUT", JSON: with(map[string]any{"method": "PUT"}), CELMessage: `Unsupported value: "PUT"`},
		{Name: "path without slash", JSON: with(map[string]any{"path": "capacity"}), CELMessage: `should match '^/'`},
		{Name: "empty path", JSON: with(map[string]any{"path": ""}), CELMessage: "should be at least 1 chars long"},
		{Name: "empty format", JSON: with(map[string]any{"format": ""}), CELMessage: "should be at least 1 chars long"},
		{Name: "samples 0", JSON: with(map[string]any{"samples": 0}), CELMessage: "should be greater than or equal to 1"},
		{Name: "quorum 0", JSON: with(map[string]any{"quorum": 0}), CELMessage: "should be greater than or equal to 1"},
		{Name: "maxAge without unit", JSON: with(map[string]any{"maxAge": "30"}), CELMessage: "should match"},
	}
	for _, field := range FieldNames {
		cases = append(cases, Case{Name: "missing " + field, JSON: with(map[string]any{field: nil}), CELMessage: MsgMissingField})
	}
	return cases
}
