package config

import "encoding/json"

// rawRetry and rawTimeouts are routing.publisher.retry and timeouts as decoded; their
// durations are parsed, and pkg/retry's rules run, in validate.
type rawRetry struct {
	disabled                *bool
	attempts, budgetPercent *int32
	codes                   []int32
	connectionFailures      *bool
	backoff, perTryTimeout  json.RawMessage
	present                 bool
}

type rawTimeouts struct {
	request json.RawMessage
	present bool
}

func (d *decoder) retry(raw json.RawMessage, path string) rawRetry {
	fields := d.object(raw, path, "disabled", "attempts", "codes", "connectionFailures", "backoff", "perTryTimeout", "budgetPercent")
	if fields == nil {
		return rawRetry{}
	}
	r := rawRetry{
		present:            true,
		disabled:           decodeValue[bool](d, fields["disabled"], path+".disabled", "a boolean"),
		attempts:           decodeValue[int32](d, fields["attempts"], path+".attempts", "a 32-bit integer"),
		budgetPercent:      decodeValue[int32](d, fields["budgetPercent"], path+".budgetPercent", "a 32-bit integer"),
		connectionFailures: decodeValue[bool](d, fields["connectionFailures"], path+".connectionFailures", "a boolean"),
		backoff:            fields["backoff"],
		perTryTimeout:      fields["perTryTimeout"],
	}
	if codes := decodeValue[[]int32](d, fields["codes"], path+".codes", "a list of HTTP statuses"); codes != nil {
		r.codes = *codes
		if r.codes == nil {
			r.codes = []int32{}
		}
	}
	return r
}

func (d *decoder) timeouts(raw json.RawMessage, path string) rawTimeouts {
	fields := d.object(raw, path, "request")
	if fields == nil {
		return rawTimeouts{}
	}
	return rawTimeouts{present: true, request: fields["request"]}
}
