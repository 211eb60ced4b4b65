package drain

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Annotation is the key of the drains on a source InferenceService.
const Annotation = "ome.io/traffic-drain"

// MaxOverrides is the most drains one annotation may hold. TrafficMap entries accept at most
// this many drainRefs, so a larger set could never be written; refusing it at parse time
// freezes the map with a clear error instead of failing every write.
const MaxOverrides = 64

// MaxIDBytes is the longest override ID: drainRefs items accept no longer, for the same
// reason.
const MaxIDBytes = 253

// Override is one drain: it holds Cluster at weight 0 until it is removed.
type Override struct {
	// ID is the key of the drain in the annotation.
	ID string
	// Cluster is the WorkloadCluster name the drain holds.
	Cluster string
	// Reason is the operator's note on why.
	Reason string
}

// Parse reads the annotation's value. present is false when the annotation is absent, which,
// like "{}", means no drains. The result is sorted by ID.
func Parse(value string, present bool) ([]Override, error) {
	if !present {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(value))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("decode top-level object: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("top-level value must be a JSON object keyed by override ID")
	}
	var out []Override
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("decode top-level object: %w", err)
		}
		id, _ := tok.(string) // inside an object the decoder only yields string keys
		switch {
		case strings.TrimSpace(id) == "":
			return nil, errors.New("override ID must be non-empty")
		case strings.TrimSpace(id) != id:
			return nil, errors.New("override ID must not have leading or trailing whitespace")
		case len(id) > MaxIDBytes:
			return nil, fmt.Errorf("override ID must be at most %d bytes long, got %d", MaxIDBytes, len(id))
		case seen[id]:
			return nil, fmt.Errorf("duplicate override ID %q", id)
		}
		seen[id] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("decode top-level object: %w", err)
		}
		o, err := parseOverride(id, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("top-level value must end with a JSON object")
	}
	switch tok, err := dec.Token(); {
	case err == io.EOF:
	case err != nil:
		return nil, fmt.Errorf("decode top-level object: %w", err)
	default:
		return nil, fmt.Errorf("unexpected trailing JSON token %v", tok)
	}
	if len(out) > MaxOverrides {
		return nil, fmt.Errorf("at most %d overrides are allowed, got %d", MaxOverrides, len(out))
	}
	slices.SortFunc(out, func(a, b Override) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// parseOverride reads one drain's value, a JSON object with exactly the string fields
// cluster and reason.
func parseOverride(id string, raw json.RawMessage) (Override, error) {
	o := Override{ID: id}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return o, fmt.Errorf("override %q must be a JSON object", id)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, fmt.Errorf("override %q must be a JSON object", id)
		}
		field, _ := tok.(string)
		var target *string
		switch field {
		case "cluster":
			target = &o.Cluster
		case "reason":
			target = &o.Reason
		default:
			return o, fmt.Errorf("override %q has unknown field %q", id, field)
		}
		if seen[field] {
			return o, fmt.Errorf("override %q has duplicate field %q", id, field)
		}
		seen[field] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return o, fmt.Errorf("override %q field %q must be a string: %w", id, field, err)
		}
		s, ok := v.(string)
		if !ok {
			return o, fmt.Errorf("override %q field %q must be a string: got %s", id, field, jsonKind(v))
		}
		*target = s
	}
	for _, f := range []struct{ name, value string }{{"cluster", o.Cluster}, {"reason", o.Reason}} {
		switch {
		case strings.TrimSpace(f.value) == "":
			return o, fmt.Errorf("override %q %s must be non-empty", id, f.name)
		case strings.TrimSpace(f.value) != f.value:
			return o, fmt.Errorf("override %q %s must not have leading or trailing whitespace", id, f.name)
		}
	}
	return o, nil
}

// jsonKind names the JSON type of a decoded value, for the error on a field that is not a
// string.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}
