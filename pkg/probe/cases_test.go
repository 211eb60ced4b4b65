package probe

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/probecases"
)

// celMatch is how Validate words each CEL rule's failure. Most contain the CEL message;
// the timeout rule prints both durations, which the API server's message cannot.
var celMatch = map[string]*regexp.Regexp{
	probecases.MsgTimeoutShorter:      regexp.MustCompile(`\.timeout \([^)]+\) must be shorter than .*\.period \([^)]+\)`),
	probecases.MsgRampUpAtLeastPeriod: regexp.MustCompile(`\.rampUp \([^)]+\) must be at least .*\.period \([^)]+\)`),
	probecases.MsgWindowAtLeastPeriod: regexp.MustCompile(`\.flapDamping\.window \([^)]+\) must be at least .*\.period \([^)]+\)`),
}

func matcher(celMessage string) *regexp.Regexp {
	if re, ok := celMatch[celMessage]; ok {
		return re
	}
	return regexp.MustCompile(regexp.QuoteMeta(celMessage))
}

// TestSharedCases runs the table the API server is also tested with: Validate must reject
// exactly the blocks the API server rejects, and say what its CEL rule says.
func TestSharedCases(t *testing.T) {
	for _, c := range probecases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var rp v1beta1.RoutingProbe
			dec := json.NewDecoder(bytes.NewReader([]byte(c.JSON)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rp); err != nil {
				// A value that does not decode (a duration without a unit) never reaches
				// Validate; the installation config reports it as a parse error.
				if c.CELMessage == "" {
					t.Fatalf("decoding a block the API server accepts: %v", err)
				}
				return
			}
			_, errs := Validate(SpecFromAPI(&rp), ServicePath)
			msgs := errorStrings(errs)
			if accepted := c.CELMessage == ""; accepted != (len(errs) == 0) {
				t.Fatalf("API server accepts: %v; Validate errors: %q", accepted, msgs)
			}
			if slices.Contains(probecases.CELMessages, c.CELMessage) {
				re := matcher(c.CELMessage)
				if !slices.ContainsFunc(msgs, re.MatchString) {
					t.Fatalf("no error matches %q: %q", re, msgs)
				}
			}
		})
	}
}

// TestSharedCasesCoverEveryRule keeps the table from losing a rule: every CEL message and
// every missing field has a case.
func TestSharedCasesCoverEveryRule(t *testing.T) {
	for _, msg := range probecases.CELMessages {
		if !slices.ContainsFunc(probecases.Cases, func(c probecases.Case) bool { return c.CELMessage == msg }) {
			t.Errorf("no case for the CEL rule %q", msg)
		}
	}
	for _, field := range probecases.FieldNames {
		if !slices.ContainsFunc(probecases.Cases, func(c probecases.Case) bool {
			return c.Name == "missing "+field && !strings.Contains(c.JSON, `"`+field+`"`)
		}) {
			t.Errorf("no case leaves out %s", field)
		}
	}
	if !slices.Equal(probecases.FieldNames, fieldNames) {
		t.Errorf("probecases.FieldNames = %v, want %v", probecases.FieldNames, fieldNames)
	}
	if !slices.Equal(probecases.OptionalFieldNames, optionalFieldNames) {
		t.Errorf("probecases.OptionalFieldNames = %v, want %v", probecases.OptionalFieldNames, optionalFieldNames)
	}
	for _, field := range probecases.OptionalFieldNames {
		if !slices.ContainsFunc(probecases.Cases, func(c probecases.Case) bool {
			return c.CELMessage == probecases.MsgDisabledCombined && strings.Contains(c.JSON, `"`+field+`"`) &&
				strings.Contains(c.JSON, `"disabled"`)
		}) {
			t.Errorf("no case combines disabled with %s", field)
		}
	}
}
