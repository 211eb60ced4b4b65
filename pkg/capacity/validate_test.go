package capacity

import (
	"reflect"
	"testing"
)

// The zero value of an installation's block is no poll, and valid, as OME reads it; a
// service's empty block is not.
func TestValidateEmptySpec(t *testing.T) {
	p, errs := Validate(Spec{}, InstallationPath)
	if len(errs) != 0 || !reflect.DeepEqual(p, Policy{}) {
		t.Errorf("Validate(Spec{}, %s) = %+v, %v; want the zero Policy and no error", InstallationPath, p, errs)
	}
	if _, errs := Validate(Spec{}, ServicePath); len(errs) == 0 {
		t.Errorf("Validate(Spec{}, %s): want an error", ServicePath)
	}
}
