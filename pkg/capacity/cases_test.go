package capacity

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/capacitycases"
)

// celMatch is how Validate words the CEL rules whose messages it cannot repeat word for
// word, because it prints the values.
var celMatch = map[string]*regexp.Regexp{
	capacitycases.MsgTimeoutShorter: regexp.MustCompile(`\.timeout \([^)]+\) must be shorter than .*\.period \([^)]+\)`),
	capacitycases.MsgMaxAgeAtLeast:  regexp.MustCompile(`\.maxAge \([^)]+\) must be at least .*\.period \([^)]+\)`),
	capacitycases.MsgQuorumSamples:  regexp.MustCompile(`\.quorum \([^)]+\) must not exceed .*\.samples \([^)]+\)`),
}

func matcher(celMessage string) *regexp.Regexp {
	if re, ok := celMatch[celMessage]; ok {
		return re
	}
	return regexp.MustCompile(regexp.QuoteMeta(strings.TrimSuffix(celMessage, ".")))
}

// TestSharedCases runs the table the API server is also tested with: Resolve refuses
// exactly the blocks the API server refuses (saying what its CEL rule says), and the
// blocks the API server lets through but the installation cannot use, with their exact
// reconcile-time error.
func TestSharedCases(t *testing.T) {
	limits := Limits{MinPeriod: capacitycases.MinPeriodSeconds * time.Second, MaxSamples: capacitycases.MaxSamples}
	for _, c := range capacitycases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var spec v1beta1.RoutingCapacitySpec
			dec := json.NewDecoder(bytes.NewReader([]byte(c.JSON)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&spec); err != nil {
				if c.CELMessage == "" {
					t.Fatalf("decoding a block the API server accepts: %v", err)
				}
				return
			}
			_, err := Resolve(nil, &spec, limits)
			switch {
			case c.CELMessage == "" && c.ReconcileError == "":
				if err != nil {
					t.Fatalf("Resolve() error = %v, want none", err)
				}
			case c.CELMessage == "":
				if err == nil || err.Error() != c.ReconcileError {
					t.Fatalf("Resolve() error = %v, want %q", err, c.ReconcileError)
				}
			default:
				if err == nil {
					t.Fatalf("Resolve() accepted a block the API server refuses")
				}
				if slices.Contains(capacitycases.CELMessages, c.CELMessage) && !matcher(c.CELMessage).MatchString(err.Error()) {
					t.Fatalf("error %q does not match %q", err, matcher(c.CELMessage))
				}
			}
		})
	}
}

func TestSharedCasesCoverEveryRule(t *testing.T) {
	for _, msg := range capacitycases.CELMessages {
		if !slices.ContainsFunc(capacitycases.Cases, func(c capacitycases.Case) bool { return c.CELMessage == msg }) {
			t.Errorf("no case for the CEL rule %q", msg)
		}
	}
	if !slices.Equal(capacitycases.FieldNames, fieldNames) {
		t.Errorf("capacitycases.FieldNames = %v, want %v", capacitycases.FieldNames, fieldNames)
	}
}
