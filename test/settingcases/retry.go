package settingcases

// The schema's words for the retry block's refusals, as helm prints them.
const (
	schemaMinimum  = "minimum: got"
	schemaRequired = "missing property"
	schemaUnknown  = "additional properties"
	schemaUnique   = "items at"
)

// retryCases are routing.publisher.retry and timeouts: what both accept, what the schema
// refuses (the manager in pkg/retry's words), and the rules between fields that the
// chart's template repeats.
func retryCases() []Case {
	const retry, timeouts = "routing.publisher.retry", "routing.publisher.timeouts"
	full := map[string]any{"attempts": 2, "codes": []any{502, 503}, "connectionFailures": true, "backoff": "100ms",
		"perTryTimeout": "30s", "budgetPercent": 20}
	return []Case{
		{Name: "a retry with every field and a request timeout", Set: map[string]any{retry: full, timeouts: map[string]any{"request": "5m"}}},
		{Name: "a retry on connection failures only", Set: map[string]any{retry: map[string]any{"attempts": 1}}},
		{Name: "a retry on 503 only", Set: map[string]any{retry: map[string]any{"attempts": 5, "codes": []any{503}, "connectionFailures": false}}},
		{Name: "perTryTimeout at the request timeout", Set: map[string]any{retry: map[string]any{"attempts": 1, "perTryTimeout": "1m"},
			timeouts: map[string]any{"request": "60s"}}},

		{Name: "a retry without attempts", Set: map[string]any{retry: map[string]any{"codes": []any{503}}},
			Manager: "routing.publisher.retry: an enabled retry must specify attempts", Schema: schemaRequired},
		{Name: "six attempts", Set: map[string]any{retry: map[string]any{"attempts": 6}},
			Manager: "routing.publisher.retry.attempts must be between 1 and 5, got 6", Schema: schemaMaximum},
		{Name: "zero attempts", Set: map[string]any{retry: map[string]any{"attempts": 0}},
			Manager: "routing.publisher.retry.attempts must be between 1 and 5, got 0", Schema: schemaMinimum},
		{Name: "a retry on 404", Set: map[string]any{retry: map[string]any{"attempts": 1, "codes": []any{503, 404}}},
			Manager: "routing.publisher.retry.codes: codes must be 5xx statuses (500-599): a 4xx answer is never retried, got 404", Schema: schemaMinimum},
		{Name: "a code past 599", Set: map[string]any{retry: map[string]any{"attempts": 1, "codes": []any{600}}},
			Manager: "routing.publisher.retry.codes: codes must be 5xx statuses (500-599): a 4xx answer is never retried, got 600", Schema: schemaMaximum},
		{Name: "a code twice", Set: map[string]any{retry: map[string]any{"attempts": 1, "codes": []any{503, 503}}},
			Manager: "routing.publisher.retry.codes lists 503 more than once", Schema: schemaUnique},
		{Name: "a budget of 0%", Set: map[string]any{retry: map[string]any{"attempts": 1, "budgetPercent": 0}},
			Manager: "routing.publisher.retry.budgetPercent must be between 1 and 100, got 0", Schema: schemaMinimum},
		{Name: "a budget of 101%", Set: map[string]any{retry: map[string]any{"attempts": 1, "budgetPercent": 101}},
			Manager: "routing.publisher.retry.budgetPercent must be between 1 and 100, got 101", Schema: schemaMaximum},
		{Name: "disabled in the installation", Set: map[string]any{retry: map[string]any{"attempts": 1, "disabled": true}},
			Manager: "routing.publisher.retry.disabled is not supported in the installation's retry: leave routing.publisher.retry out for no retry", Schema: schemaUnknown},
		{Name: "a timeouts block without request", Set: map[string]any{timeouts: map[string]any{}},
			Manager: "routing.publisher.timeouts: timeouts must set request", Schema: schemaRequired},
		{Name: "a backoff that is no duration", Set: map[string]any{retry: map[string]any{"attempts": 1, "backoff": "soon"}},
			Manager: notDuration(retry+".backoff", "soon"), Schema: schemaPattern},

		// The rules the chart's template repeats.
		{Name: "a retry of nothing", Set: map[string]any{retry: map[string]any{"attempts": 1, "connectionFailures": false}},
			Manager: "routing.publisher.retry: an enabled retry must retry connectionFailures, codes, or both"},
		{Name: "a retry of nothing with an empty list", Set: map[string]any{retry: map[string]any{"attempts": 1, "connectionFailures": false, "codes": []any{}}},
			Manager: "routing.publisher.retry: an enabled retry must retry connectionFailures, codes, or both"},
		{Name: "a zero backoff", Set: map[string]any{retry: map[string]any{"attempts": 1, "backoff": "0s"}},
			Manager: "routing.publisher.retry.backoff: backoff must be positive, got 0s"},
		{Name: "a zero perTryTimeout", Set: map[string]any{retry: map[string]any{"attempts": 1, "perTryTimeout": "0ms"}},
			Manager: "routing.publisher.retry.perTryTimeout: perTryTimeout must be positive, got 0s"},
		{Name: "a zero request timeout", Set: map[string]any{timeouts: map[string]any{"request": "0s"}},
			Manager: "routing.publisher.timeouts.request: request must be positive, got 0s"},
		{Name: "perTryTimeout past the request timeout", Set: map[string]any{retry: map[string]any{"attempts": 1, "perTryTimeout": "1m0.5s"},
			timeouts: map[string]any{"request": "1m"}},
			Manager: "routing.publisher: retry.perTryTimeout must not be longer than timeouts.request (1m0.5s over 1m0s)"},
		{Name: "perTryTimeout past the largest duration", Set: map[string]any{retry: map[string]any{"attempts": 1, "perTryTimeout": "5124096h"}},
			Manager: notDuration(retry+".perTryTimeout", "5124096h")},
	}
}
