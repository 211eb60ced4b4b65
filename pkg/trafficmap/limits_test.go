package trafficmap

import "testing"

func TestCheckHomesRefusesMoreThanAMapHolds(t *testing.T) {
	if err := CheckHomes(MaxEntries); err != nil {
		t.Errorf("CheckHomes(%d) = %v, want nil", MaxEntries, err)
	}
	err := CheckHomes(MaxEntries + 1)
	if want := "the service has 65 homes, and a TrafficMap holds at most 64 (spec.entries maxItems)"; err == nil || err.Error() != want {
		t.Errorf("CheckHomes(%d) = %v, want %q", MaxEntries+1, err, want)
	}
}
