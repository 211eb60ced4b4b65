package publish

import (
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestReplayPutsBackTheLastRouteThatSentTraffic(t *testing.T) {
	sent := journalPlan(3, 0)
	sent.BackendKind, sent.BackendPort = "ExternalNameService", 80
	last := LastPositive(sent, 7, 2)
	empty := sent
	empty.Backends = nil
	hosts := map[string]string{"worker-a": "a.example.test", "worker-b": "b.example.test"}

	got, err := Replay(empty, last, "prod", "chat", hosts)
	if err != nil {
		t.Fatal(err)
	}
	refs := got.Route.Spec.Rules[0].BackendRefs
	if len(refs) != 2 || *refs[0].Weight != 3 || *refs[1].Weight != 0 || string(refs[0].Name) != BackendName("prod", "chat", "worker-a") {
		t.Fatalf("refs = %+v", refs)
	}
	if got.Route.Name != "chat-global" || got.Backends[0].Host != "a.example.test" {
		t.Fatalf("route %s, backends %+v", got.Route.Name, got.Backends)
	}

	// A cluster at weight 0 whose backend is gone is left out; one that took traffic is not.
	if got, err := Replay(empty, last, "prod", "chat", map[string]string{"worker-a": "a.example.test"}); err != nil || len(got.Backends) != 1 {
		t.Fatalf("without worker-b's backend: %+v, %v", got.Backends, err)
	}
	for name, c := range map[string]struct {
		plan  Plan
		last  *omev1beta1.TrafficMapPublisherLastPositive
		hosts map[string]string
		want  string
	}{
		"no journal":       {empty, nil, hosts, "records no publication"},
		"backend gone":     {empty, last, map[string]string{"worker-b": "b.example.test"}, `cluster "worker-a"`},
		"another hostname": {withHostname(empty, "other.example.test"), last, hosts, "other endpoint settings"},
		"another port":     {withPort(empty, 8443), last, hosts, "other endpoint settings"},
		"a foreign target": {empty, withTarget(last, "v2:cluster:x"), hosts, "names no cluster"},
	} {
		if _, err := Replay(c.plan, c.last, "prod", "chat", c.hosts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func withHostname(p Plan, host string) Plan { p.Hostname = host; return p }
func withPort(p Plan, port int32) Plan      { p.BackendPort = port; return p }

func withTarget(last *omev1beta1.TrafficMapPublisherLastPositive, target string) *omev1beta1.TrafficMapPublisherLastPositive {
	out := last.DeepCopy()
	out.Targets[0].Target = target
	return out
}
