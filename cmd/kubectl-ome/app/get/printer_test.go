package get

import (
	"bytes"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// maps are three maps out of order: two in team-b, one in team-a.
func maps() []omev1beta1.TrafficMap {
	a, b, c := testMap(), testMap(), testMap()
	b.Namespace, b.Name, b.Spec.Service = "team-b", "search", "search"
	c.Namespace, c.Name, c.Spec.Service = "team-b", "chat", "chat"
	c.Status.GatewayRef.Namespace = ""
	return []omev1beta1.TrafficMap{*b, *a, *c}
}

func TestPrintMaps(t *testing.T) {
	cases := []struct {
		name          string
		output        string
		allNamespaces bool
		want          string
	}{{
		name:   "default columns, sorted by namespace then name",
		output: util.OutputTable,
		want: `NAME       MODE    TARGETS   ROUTABLE   PUBLISHED   AGE
checkout   Split   2         True       True        90m
chat       Split   2         True       True        90m
search     Split   2         True       True        90m
`,
	}, {
		name:          "-A adds NAMESPACE in front",
		output:        util.OutputTable,
		allNamespaces: true,
		want: `NAMESPACE   NAME       MODE    TARGETS   ROUTABLE   PUBLISHED   AGE
team-a      checkout   Split   2         True       True        90m
team-b      chat       Split   2         True       True        90m
team-b      search     Split   2         True       True        90m
`,
	}, {
		name:   "wide",
		output: util.OutputWide,
		want: `NAME       MODE    TARGETS   ROUTABLE   PUBLISHED   AGE   SERVICE    ACTIVE   HEALTHY   OVERRIDE   OVERRIDE-REASON   REASON     GATEWAY                                               PUBLISHER-FRESHNESS   SERVING   GATED    REFUSED   WOULD-GATE   RAMPING   WARNINGS   PROBED   VERDICT   STATES   MESSAGE   FROZEN   TIERS    NO-TRAFFIC
checkout   Split   2         True       True        90m   checkout   1        1         False      NoOverrides       Routable   gateway.networking.k8s.io/HTTPRoute:team-a/checkout   Current               <none>    <none>   <none>    <none>       <none>    <none>     <none>   <none>    <none>             <none>   <none>   <none>
chat       Split   2         True       True        90m   chat       1        1         False      NoOverrides       Routable   gateway.networking.k8s.io/HTTPRoute:team-b/checkout   Current               <none>    <none>   <none>    <none>       <none>    <none>     <none>   <none>    <none>             <none>   <none>   <none>
search     Split   2         True       True        90m   search     1        1         False      NoOverrides       Routable   gateway.networking.k8s.io/HTTPRoute:team-a/checkout   Current               <none>    <none>   <none>    <none>       <none>    <none>     <none>   <none>    <none>             <none>   <none>   <none>
`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := printMaps(&stdout, &stderr, c.output, maps(), now, c.allNamespaces); err != nil {
				t.Fatal(err)
			}
			if stdout.String() != c.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), c.want)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr: %q", stderr.String())
			}
		})
	}
}

func TestPrintNothingFound(t *testing.T) {
	for _, output := range []string{util.OutputTable, util.OutputWide} {
		var stdout, stderr bytes.Buffer
		if err := printMaps(&stdout, &stderr, output, nil, now, true); err != nil {
			t.Fatal(err)
		}
		if stdout.Len() != 0 || stderr.String() != "No trafficmaps found.\n" {
			t.Errorf("%s: stdout %q, stderr %q", output, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if err := printMaps(&stdout, &stderr, util.OutputJSON, nil, now, false); err != nil {
		t.Fatal(err)
	}
	var l struct {
		APIVersion, Kind string
		Items            []any
	}
	if err := json.Unmarshal(stdout.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if l.APIVersion != "v1" || l.Kind != "List" || l.Items == nil || len(l.Items) != 0 || stderr.Len() != 0 {
		t.Errorf("empty json: %s (stderr %q)", stdout.String(), stderr.String())
	}
}

func TestPrintList(t *testing.T) {
	in := maps()
	in[0].ManagedFields = append(in[0].ManagedFields, metav1ManagedField())
	var stdout, stderr bytes.Buffer
	if err := printMaps(&stdout, &stderr, util.OutputJSON, in, now, true); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Kind  string
		Items []omev1beta1.TrafficMap
	}
	if err := json.Unmarshal(stdout.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if l.Kind != "List" || len(l.Items) != 3 {
		t.Fatalf("list: %s", stdout.String())
	}
	for i, want := range []string{"team-a/checkout", "team-b/chat", "team-b/search"} {
		tm := l.Items[i]
		if got := tm.Namespace + "/" + tm.Name; got != want {
			t.Errorf("item %d = %s, want %s", i, got, want)
		}
		if tm.APIVersion != "ome.io/v1beta1" || tm.Kind != "TrafficMap" || len(tm.ManagedFields) != 0 || len(tm.Spec.Entries) != 2 {
			t.Errorf("item %d: %+v", i, tm)
		}
	}
}

func metav1ManagedField() metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: "ome-manager", Operation: metav1.ManagedFieldsOperationApply}
}
