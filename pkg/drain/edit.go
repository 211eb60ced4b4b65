package drain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// member is where one drain sits in the annotation's text: from the first byte of its key
// to the byte after its value.
type member struct {
	id         string
	start, end int
}

// layout finds each drain's bytes in a value that Parse accepted, and where the object
// opens, so that an edit can splice one drain in or out and leave every other
// byte as it was.
func layout(value string) (members []member, open int, err error) {
	dec := json.NewDecoder(strings.NewReader(value))
	if _, err := dec.Token(); err != nil {
		return nil, 0, err
	}
	open = int(dec.InputOffset())
	prev := open
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, err
		}
		// The key starts at its opening quote, after the whitespace and comma that follow
		// the previous member.
		start := prev + strings.IndexByte(value[prev:], '"')
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, err
		}
		prev = int(dec.InputOffset())
		members = append(members, member{id: tok.(string), start: start, end: prev})
	}
	return members, open, nil
}

// Add returns the annotation value with the drain added after the existing ones. The
// existing text, other drains included, is kept byte for byte. present is false when the
// service has no annotation yet.
func Add(value string, present bool, o Override) (string, error) {
	entry, err := encodeMember(o)
	if err != nil {
		return "", err
	}
	if !present {
		return "{" + entry + "}", nil
	}
	members, open, err := layout(value)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", Annotation, err)
	}
	if len(members) == 0 {
		return value[:open] + entry + value[open:], nil
	}
	last := members[len(members)-1].end
	return value[:last] + "," + entry + value[last:], nil
}

// Remove returns the annotation value without the drain with the given ID, keeping every
// other byte. last is true when it was the only drain, in which case the caller removes
// the annotation instead.
func Remove(value, id string) (out string, last bool, err error) {
	members, _, err := layout(value)
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", Annotation, err)
	}
	for i, m := range members {
		if m.id != id {
			continue
		}
		switch {
		case len(members) == 1:
			return "", true, nil
		case i > 0:
			// Take the separator before it along.
			return value[:members[i-1].end] + value[m.end:], false, nil
		default:
			// The first: take the separator after it along.
			return value[:m.start] + value[members[1].start:], false, nil
		}
	}
	return "", false, fmt.Errorf("%s has no override %q", Annotation, id)
}

// encodeMember is one drain as compact JSON, `"id":{"cluster":"…","reason":"…"}`, without
// HTML escaping so that a reason reads as typed.
func encodeMember(o Override) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o.ID); err != nil {
		return "", err
	}
	key := strings.TrimSuffix(b.String(), "\n")
	b.Reset()
	if err := enc.Encode(struct {
		Cluster string `json:"cluster"`
		Reason  string `json:"reason"`
	}{o.Cluster, o.Reason}); err != nil {
		return "", err
	}
	return key + ":" + strings.TrimSuffix(b.String(), "\n"), nil
}
