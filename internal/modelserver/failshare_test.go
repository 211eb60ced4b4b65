package modelserver

import (
	"net/http"
	"testing"
)

// A traffic failure share fails exactly every n-th request marked as traffic, and never a
// probe, so the probe keeps passing while the gateway sees failures.
func TestTrafficFailuresFailEveryNthTrafficRequestOnly(t *testing.T) {
	e, err := StartEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetTrafficFailures(4, http.StatusServiceUnavailable)
	get := func(traffic bool) int {
		req, err := http.NewRequest(http.MethodGet, e.URL()+ProbePath, nil)
		if err != nil {
			t.Fatal(err)
		}
		if traffic {
			req.Header.Set(TrafficHeader, "1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	failed := 0
	for i := range 12 {
		if code := get(false); code != http.StatusOK {
			t.Fatalf("probe %d answered %d", i, code)
		}
		if get(true) == http.StatusServiceUnavailable {
			failed++
		}
	}
	if failed != 3 {
		t.Fatalf("%d of 12 traffic requests failed, want 3", failed)
	}
	e.SetTrafficFailures(0, 0)
	if code := get(true); code != http.StatusOK {
		t.Fatalf("after the share was stopped a traffic request answered %d", code)
	}
}
