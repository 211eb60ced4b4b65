package publish

import (
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
	zero := last.DeepCopy()
	for i := range zero.Targets {
		zero.Targets[i].Weight = 0
	}
	for name, c := range map[string]struct {
		plan  Plan
		last  *omev1beta1.TrafficMapPublisherLastPositive
		hosts map[string]string
		want  string
	}{
		"no journal":       {empty, nil, hosts, "the journal records no publication that sent traffic"},
		"backend gone":     {empty, last, map[string]string{"worker-b": "b.example.test"}, `cluster "worker-a", which the last publication sent traffic to, has no backend left`},
		"another hostname": {withHostname(empty, "other.example.test"), last, hosts, "the last publication that sent traffic was written under other endpoint settings"},
		"another port":     {withPort(empty, 8443), last, hosts, "the last publication that sent traffic was written under other endpoint settings"},
		"a foreign target": {empty, withTarget(last, "v2:cluster:x"), hosts, `the journal's target "v2:cluster:x" names no cluster`},
		"a weight past the maximum": {empty, withWeight(last, 1000001), hosts,
			`the journal's target "v1:cluster:worker-a" has weight 1000001, outside 0-1000000`},
		"nothing positive": {empty, zero, hosts, "the last publication that sent traffic has no target with a positive weight"},
	} {
		if _, err := Replay(c.plan, c.last, "prod", "chat", c.hosts); err == nil || err.Error() != c.want {
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

func withWeight(last *omev1beta1.TrafficMapPublisherLastPositive, weight int64) *omev1beta1.TrafficMapPublisherLastPositive {
	out := last.DeepCopy()
	out.Targets[0].Weight = weight
	return out
}
