package probecases

import (
	"encoding/json"
	"strings"
)

// Case is one probe block and the API server's verdict on it.
type Case struct {
	// Name names the case in test output.
	Name string
	// JSON is the block as it appears under spec.routing.probe.
	JSON string
	// CELMessage is empty when the API server accepts the block; otherwise it is a
	// substring of the rejection: a CEL rule's message, or the OpenAPI rule's wording.
	CELMessage string
}

// Messages of the CEL rules on RoutingProbe. pkg/probe.Validate's messages contain them.
const (
	MsgDisabledCombined = "disabled must not be combined with probe configuration fields"
	MsgMissingField     = "an enabled probe must specify path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, and allFailedPolicy"
	MsgPeriodPositive   = "period must be positive"
	MsgTimeoutPositive  = "timeout must be positive"
	MsgTimeoutShorter   = "timeout must be shorter than period"
	MsgGateForbidden    = "gateStatuses must not contain 401, 403, or 429"
	MsgOverlap503       = "status 503 is in both acceptStatuses and gateStatuses"
	// MsgPathDotSegment refuses a path that could climb out of the endpoint's own prefix
	// once a server or proxy on the way resolves or decodes it.
	MsgPathDotSegment = "path must not contain a '.' or '..' segment, plain or percent-encoded"

	// The optional fields' rules (docs/concepts/probe-extensions.md).
	MsgRampUpPositive      = "rampUp must be positive"
	MsgRampUpAtLeastPeriod = "rampUp must be at least period"
	MsgWindowPositive      = "flapDamping.window must be positive"
	MsgWindowAtLeastPeriod = "flapDamping.window must be at least period"

	// The passive gate's rules (docs/concepts/passive-gate.md).
	MsgBaseEjectionPositive = "passiveGate.baseEjectionTime must be positive"
	MsgMaxEjectionAtLeast   = "passiveGate.maxEjectionTime must be at least passiveGate.baseEjectionTime (30s when left out)"
)

// CELMessages are the messages above, for telling a CEL rejection from an OpenAPI one.
var CELMessages = []string{
	MsgDisabledCombined, MsgMissingField, MsgPeriodPositive, MsgTimeoutPositive,
	MsgTimeoutShorter, MsgGateForbidden, MsgOverlap503, MsgPathDotSegment,
	MsgRampUpPositive, MsgRampUpAtLeastPeriod, MsgWindowPositive, MsgWindowAtLeastPeriod,
	MsgBaseEjectionPositive, MsgMaxEjectionAtLeast,
}

// OptionalFieldNames are the optional fields of an enabled probe: leaving them out keeps
// the probe as the nine fields describe it.
var OptionalFieldNames = []string{"mode", "flapDamping", "rampUp", "passiveGate"}

// FieldNames are the nine configuration fields of an enabled probe.
var FieldNames = []string{
	"path", "method", "acceptStatuses", "gateStatuses", "period", "timeout",
	"failureThreshold", "successThreshold", "allFailedPolicy",
}

// Step1 is the installation probe of the user guide's Step 1, as a fresh map each call
// so that a test may change it.
func Step1() map[string]any {
	return map[string]any{
		"path":             "/v1/models",
		"method":           "GET",
		"acceptStatuses":   []int{200},
		"gateStatuses":     []int{404, 500, 502, 503, 504},
		"period":           "10s",
		"timeout":          "3s",
		"failureThreshold": 3,
		"successThreshold": 2,
		"allFailedPolicy":  "PreserveTraffic",
	}
}

// with returns step1 with the given fields replaced; a nil value removes the field.
func with(changes map[string]any) string {
	block := Step1()
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

// cycle returns n gate statuses, repeating 500 to 504: duplicates are allowed, and there
// are not 500 distinct statuses that a gate list may hold.
func cycle(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 500 + i%5
	}
	return out
}

// Cases is the shared table.
var Cases = buildCases()

func buildCases() []Case {
	cases := []Case{
		// Accepted.
		{Name: "step 1 probe", JSON: with(nil)},
		{Name: "step 2 probe", JSON: with(map[string]any{"period": "30s", "timeout": "5s", "allFailedPolicy": "Drain"})},
		{Name: "disabled alone", JSON: `{"disabled": true}`},
		{Name: "disabled false with every field", JSON: with(map[string]any{"disabled": false})},
		{Name: "timeout 900ms under period 1s", JSON: with(map[string]any{"period": "1s", "timeout": "900ms"})},
		{Name: "compound durations", JSON: with(map[string]any{"period": "1m30s", "timeout": "1.5s"})},
		{Name: "method HEAD", JSON: with(map[string]any{"method": "HEAD"})},
		{Name: "method POST", JSON: with(map[string]any{"method": "POST"})},
		{Name: "path slash only", JSON: with(map[string]any{"path": "/"})},
		{Name: "statuses at the bounds", JSON: with(map[string]any{"acceptStatuses": []int{100, 599}, "gateStatuses": []int{500}})},
		{Name: "429 in acceptStatuses", JSON: with(map[string]any{"acceptStatuses": []int{200, 401, 403, 429}})},
		{Name: "duplicate statuses", JSON: with(map[string]any{"acceptStatuses": []int{200, 200}, "gateStatuses": []int{503, 500, 503}})},
		{Name: "500 gate statuses", JSON: with(map[string]any{"gateStatuses": cycle(500)})},
		{Name: "thresholds of 1", JSON: with(map[string]any{"failureThreshold": 1, "successThreshold": 1})},
		{Name: "path of 2048 characters", JSON: with(map[string]any{"path": "/" + strings.Repeat("a", 2047)})},
		{Name: "path with dots inside segments", JSON: with(map[string]any{"path": "/v1/.well-known/a..b/.../x."})},
		{Name: "path with dots in the query", JSON: with(map[string]any{"path": "/v1/models?next=/../x&dir=."})},
		{Name: "path with dots in the fragment", JSON: with(map[string]any{"path": "/v1/models#/../x"})},

		// Rejected by CEL rules.
		{Name: "disabled with path", JSON: `{"disabled": true, "path": "/v1/models"}`, CELMessage: MsgDisabledCombined},
		{Name: "disabled with period", JSON: `{"disabled": true, "period": "10s"}`, CELMessage: MsgDisabledCombined},
		{Name: "disabled with every field", JSON: with(map[string]any{"disabled": true}), CELMessage: MsgDisabledCombined},
		{Name: "empty block", JSON: `{}`, CELMessage: MsgMissingField},
		{Name: "disabled false alone", JSON: `{"disabled": false}`, CELMessage: MsgMissingField},
		{Name: "period 0s", JSON: with(map[string]any{"period": "0s"}), CELMessage: MsgPeriodPositive},
		{Name: "timeout 0s", JSON: with(map[string]any{"timeout": "0s"}), CELMessage: MsgTimeoutPositive},
		{Name: "timeout equal to period", JSON: with(map[string]any{"period": "10s", "timeout": "10s"}), CELMessage: MsgTimeoutShorter},
		{Name: "timeout 2s over period 1s", JSON: with(map[string]any{"period": "1s", "timeout": "2s"}), CELMessage: MsgTimeoutShorter},
		{Name: "timeout 10000ms equal to period 10s", JSON: with(map[string]any{"period": "10s", "timeout": "10000ms"}), CELMessage: MsgTimeoutShorter},
		{Name: "gate 401", JSON: with(map[string]any{"gateStatuses": []int{401, 503}}), CELMessage: MsgGateForbidden},
		{Name: "gate 403", JSON: with(map[string]any{"gateStatuses": []int{503, 403}}), CELMessage: MsgGateForbidden},
		{Name: "gate 429", JSON: with(map[string]any{"gateStatuses": []int{429}}), CELMessage: MsgGateForbidden},
		{Name: "503 in both lists", JSON: with(map[string]any{"acceptStatuses": []int{200, 503}}), CELMessage: MsgOverlap503},
	}
	cases = append(cases, dotSegmentCases()...)
	cases = append(cases, []Case{

		// Rejected by OpenAPI rules.
		{Name: "method PUT", JSON: with(map[string]any{"method": "PUT"}), CELMessage: `Unsupported value: "PUT"`},
		{Name: "method lower case", JSON: with(map[string]any{"method": "get"}), CELMessage: `Unsupported value: "get"`},
		{Name: "allFailedPolicy unknown", JSON: with(map[string]any{"allFailedPolicy": "Preserve"}), CELMessage: `Unsupported value: "Preserve"`},
		{Name: "path without slash", JSON: with(map[string]any{"path": "v1/models"}), CELMessage: `should match '^/'`},
		{Name: "empty path", JSON: with(map[string]any{"path": ""}), CELMessage: "should be at least 1 chars long"},
		{Name: "path of 2049 characters", JSON: with(map[string]any{"path": "/" + strings.Repeat("a", 2048)}), CELMessage: "may not be more than 2048"},
		{Name: "status 99", JSON: with(map[string]any{"acceptStatuses": []int{99}}), CELMessage: "should be greater than or equal to 100"},
		{Name: "status 600", JSON: with(map[string]any{"gateStatuses": []int{600}}), CELMessage: "should be less than or equal to 599"},
		{Name: "empty acceptStatuses", JSON: with(map[string]any{"acceptStatuses": []int{}}), CELMessage: "should have at least 1 items"},
		{Name: "empty gateStatuses", JSON: with(map[string]any{"gateStatuses": []int{}}), CELMessage: "should have at least 1 items"},
		{Name: "501 gate statuses", JSON: with(map[string]any{"gateStatuses": cycle(501)}), CELMessage: "must have at most 500 items"},
		{Name: "failureThreshold 0", JSON: with(map[string]any{"failureThreshold": 0}), CELMessage: "should be greater than or equal to 1"},
		{Name: "successThreshold 0", JSON: with(map[string]any{"successThreshold": 0}), CELMessage: "should be greater than or equal to 1"},
		{Name: "negative period", JSON: with(map[string]any{"period": "-10s"}), CELMessage: "should match"},
		{Name: "period without unit", JSON: with(map[string]any{"period": "10"}), CELMessage: "should match"},
	}...)
	cases = append(cases, optionalCases()...)
	cases = append(cases, passiveGateCases()...)
	for _, field := range FieldNames {
		cases = append(cases, Case{
			Name:       "missing " + field,
			JSON:       with(map[string]any{field: nil}),
			CELMessage: MsgMissingField,
		})
	}
	return cases
}

// dotSegmentCases are paths with a "." or ".." segment in the forms that servers and
// proxies resolve: plain, percent-encoded in either case, between encoded slashes or
// backslashes, and with a ";" parameter, which some servers strip before resolving.
func dotSegmentCases() []Case {
	var cases []Case
	for _, p := range []string{
		"/..", "/.", "/../v1/models", "/v1/../models", "/a/./b", "/v1/models/..", "/v1/models/.",
		"/%2e%2e/x", "/%2E%2E/x", "/.%2e/x", "/%2e./x", "/%2e/x", "/v1/%2e",
		"/v1%2f..%2fx", "/v1%2F..%2Fx", "/v1\\..\\x", "/v1%5c..%5cx", "/v1%5C.%5Cx",
		"/..;/x", "/v1/..;jsessionid=1", "/..?q", "/..#f",
	} {
		cases = append(cases, Case{Name: "path " + p, JSON: with(map[string]any{"path": p}), CELMessage: MsgPathDotSegment})
	}
	return cases
}

// damping is a flapDamping block.
func damping(window string, maxFactor int) map[string]any {
	return map[string]any{"window": window, "maxFactor": maxFactor}
}

// optionalCases are the cases of mode, flapDamping and rampUp, on the Step 1 probe
// (period 10s).
func optionalCases() []Case {
	return []Case{
		// Accepted.
		{Name: "mode Shadow", JSON: with(map[string]any{"mode": "Shadow"})},
		{Name: "mode Enforce", JSON: with(map[string]any{"mode": "Enforce"})},
		{Name: "flapDamping", JSON: with(map[string]any{"flapDamping": damping("10m", 8)})},
		{Name: "flapDamping at its bounds", JSON: with(map[string]any{"flapDamping": damping("10s", 2)})},
		{Name: "flapDamping maxFactor 64", JSON: with(map[string]any{"flapDamping": damping("1h", 64)})},
		{Name: "flapDamping window 10000ms equal to period 10s", JSON: with(map[string]any{"flapDamping": damping("10000ms", 4)})},
		{Name: "rampUp 1m", JSON: with(map[string]any{"rampUp": "1m"})},
		{Name: "rampUp equal to period", JSON: with(map[string]any{"rampUp": "10s"})},
		{Name: "rampUp 10000ms equal to period 10s", JSON: with(map[string]any{"rampUp": "10000ms"})},
		{Name: "all three", JSON: with(map[string]any{"mode": "Shadow", "flapDamping": damping("5m", 4), "rampUp": "2m"})},

		// Rejected by CEL rules.
		{Name: "disabled with mode", JSON: `{"disabled": true, "mode": "Shadow"}`, CELMessage: MsgDisabledCombined},
		{Name: "disabled with flapDamping", JSON: `{"disabled": true, "flapDamping": {"window": "10m", "maxFactor": 4}}`, CELMessage: MsgDisabledCombined},
		{Name: "disabled with rampUp", JSON: `{"disabled": true, "rampUp": "1m"}`, CELMessage: MsgDisabledCombined},
		{Name: "rampUp 0s", JSON: with(map[string]any{"rampUp": "0s"}), CELMessage: MsgRampUpPositive},
		{Name: "rampUp 5s under period 10s", JSON: with(map[string]any{"rampUp": "5s"}), CELMessage: MsgRampUpAtLeastPeriod},
		{Name: "rampUp 9999ms under period 10s", JSON: with(map[string]any{"rampUp": "9999ms"}), CELMessage: MsgRampUpAtLeastPeriod},
		{Name: "flapDamping window 0s", JSON: with(map[string]any{"flapDamping": damping("0s", 4)}), CELMessage: MsgWindowPositive},
		{Name: "flapDamping window 5s under period 10s", JSON: with(map[string]any{"flapDamping": damping("5s", 4)}), CELMessage: MsgWindowAtLeastPeriod},
		{Name: "optional fields alone", JSON: `{"mode": "Shadow", "rampUp": "1m"}`, CELMessage: MsgMissingField},

		// Rejected by OpenAPI rules.
		{Name: "mode in lower case", JSON: with(map[string]any{"mode": "shadow"}), CELMessage: `Unsupported value: "shadow"`},
		{Name: "mode DryRun", JSON: with(map[string]any{"mode": "DryRun"}), CELMessage: `Unsupported value: "DryRun"`},
		{Name: "flapDamping maxFactor 1", JSON: with(map[string]any{"flapDamping": damping("10m", 1)}), CELMessage: "should be greater than or equal to 2"},
		{Name: "flapDamping maxFactor 65", JSON: with(map[string]any{"flapDamping": damping("10m", 65)}), CELMessage: "should be less than or equal to 64"},
		{Name: "flapDamping without window", JSON: with(map[string]any{"flapDamping": map[string]any{"maxFactor": 4}}), CELMessage: "Required value"},
		{Name: "flapDamping without maxFactor", JSON: with(map[string]any{"flapDamping": map[string]any{"window": "10m"}}), CELMessage: "Required value"},
		{Name: "flapDamping window without unit", JSON: with(map[string]any{"flapDamping": damping("600", 4)}), CELMessage: "should match"},
		{Name: "rampUp without unit", JSON: with(map[string]any{"rampUp": "60"}), CELMessage: "should match"},
		{Name: "negative rampUp", JSON: with(map[string]any{"rampUp": "-1m"}), CELMessage: "should match"},
	}
}

// passive is a passiveGate block with the given fields.
func passive(fields map[string]any) map[string]any {
	return map[string]any{"passiveGate": fields}
}

// passiveGateCases are the cases of passiveGate, on the Step 1 probe.
func passiveGateCases() []Case {
	return []Case{
		// Accepted.
		{Name: "passiveGate with failurePercent alone", JSON: with(passive(map[string]any{"failurePercent": 10}))},
		{Name: "passiveGate with every field", JSON: with(passive(map[string]any{
			"mode": "Enforce", "failurePercent": 25, "minRequests": 50, "maxEjectionPercent": 34,
			"baseEjectionTime": "10s", "maxEjectionTime": "2m",
		}))},
		{Name: "passiveGate at its bounds", JSON: with(passive(map[string]any{
			"failurePercent": 100, "minRequests": 1000000, "maxEjectionPercent": 1,
		}))},
		{Name: "passiveGate maxEjectionTime equal to its base", JSON: with(passive(map[string]any{
			"failurePercent": 1, "minRequests": 1, "maxEjectionPercent": 100, "baseEjectionTime": "1m", "maxEjectionTime": "60s",
		}))},
		{Name: "passiveGate maxEjectionTime 30s without a base", JSON: with(passive(map[string]any{"failurePercent": 10, "maxEjectionTime": "30s"}))},

		// Rejected by CEL rules.
		{Name: "disabled with passiveGate", JSON: `{"disabled": true, "passiveGate": {"failurePercent": 10}}`, CELMessage: MsgDisabledCombined},
		{Name: "passiveGate baseEjectionTime 0s", JSON: with(passive(map[string]any{"failurePercent": 10, "baseEjectionTime": "0s"})), CELMessage: MsgBaseEjectionPositive},
		{Name: "passiveGate maxEjectionTime under its base", JSON: with(passive(map[string]any{
			"failurePercent": 10, "baseEjectionTime": "1m", "maxEjectionTime": "59s",
		})), CELMessage: MsgMaxEjectionAtLeast},
		{Name: "passiveGate maxEjectionTime under the default base", JSON: with(passive(map[string]any{
			"failurePercent": 10, "maxEjectionTime": "29s",
		})), CELMessage: MsgMaxEjectionAtLeast},

		// Rejected by OpenAPI rules.
		{Name: "passiveGate without failurePercent", JSON: with(passive(map[string]any{"minRequests": 10})), CELMessage: "Required value"},
		{Name: "passiveGate failurePercent 0", JSON: with(passive(map[string]any{"failurePercent": 0})), CELMessage: "should be greater than or equal to 1"},
		{Name: "passiveGate failurePercent 101", JSON: with(passive(map[string]any{"failurePercent": 101})), CELMessage: "should be less than or equal to 100"},
		{Name: "passiveGate minRequests 0", JSON: with(passive(map[string]any{"failurePercent": 10, "minRequests": 0})), CELMessage: "should be greater than or equal to 1"},
		{Name: "passiveGate minRequests over a million", JSON: with(passive(map[string]any{"failurePercent": 10, "minRequests": 1000001})), CELMessage: "should be less than or equal to 1000000"},
		{Name: "passiveGate maxEjectionPercent 0", JSON: with(passive(map[string]any{"failurePercent": 10, "maxEjectionPercent": 0})), CELMessage: "should be greater than or equal to 1"},
		{Name: "passiveGate maxEjectionPercent 101", JSON: with(passive(map[string]any{"failurePercent": 10, "maxEjectionPercent": 101})), CELMessage: "should be less than or equal to 100"},
		{Name: "passiveGate mode DryRun", JSON: with(passive(map[string]any{"failurePercent": 10, "mode": "DryRun"})), CELMessage: `Unsupported value: "DryRun"`},
		{Name: "passiveGate baseEjectionTime without unit", JSON: with(passive(map[string]any{"failurePercent": 10, "baseEjectionTime": "30"})), CELMessage: "should match"},
	}
}
