package failover_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/test/failovercases"
)

func TestValidateSharedCases(t *testing.T) {
	for _, c := range failovercases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var f omev1beta1.RoutingFailover
			if err := json.Unmarshal([]byte(c.JSON), &f); err != nil {
				t.Fatalf("unmarshal %s: %v", c.JSON, err)
			}
			err := errors.Join(failover.Validate(&f, failover.ServicePath)...)
			switch {
			case c.GoError == "" && err != nil:
				t.Fatalf("Validate refused %s: %v", c.JSON, err)
			case c.GoError != "" && err == nil:
				t.Fatalf("Validate accepted %s, want %q", c.JSON, c.GoError)
			case c.GoError != "" && !strings.Contains(err.Error(), c.GoError):
				t.Fatalf("Validate(%s) = %q, want it to contain %q", c.JSON, err, c.GoError)
			}
		})
	}
}

func TestValidateNil(t *testing.T) {
	if errs := failover.Validate(nil, failover.ServicePath); errs != nil {
		t.Fatalf("Validate(nil) = %v", errs)
	}
}
